#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tests/tap/tap.h"
#include "topo/model.h"

/* Build a location: numa, host bridge, switches (nearest first, -1 terminated). */
static struct topo_pciloc loc(int numa, int hb, const int *sw)
{
    struct topo_pciloc l;

    topo_pciloc_init(&l);
    l.numa = numa;
    l.hostbridge = hb;
    for (int i = 0; sw && sw[i] >= 0; i++)
        l.switches[l.nswitch++] = sw[i];
    return l;
}

int main(void)
{
    int s1[] = { 1, -1 }, s2[] = { 2, -1 }, s12[] = { 3, 1, -1 }, s32[] = { 4, 1, -1 };
    struct topo_pciloc a, b;
    struct topo_node *node;
    struct topo_gpu *g;
    struct topo_nic *n;
    int nv;

    a = loc(0, 7, s1), b = loc(0, 7, s1);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_PIX, "same switch: PIX");
    a = loc(0, 7, s12), b = loc(0, 7, s32);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_PXB, "sub-switches under one switch: PXB");
    a = loc(0, 7, s12), b = loc(0, 7, s1);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_PXB, "one level apart: PXB");
    a = loc(0, 7, s1), b = loc(0, 7, s2);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_PHB, "same host bridge, other switch: PHB");
    a = loc(0, 7, NULL), b = loc(0, 7, NULL);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_PHB, "two root ports of a host bridge: PHB");
    a = loc(0, 7, s1), b = loc(0, 8, s2);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_NODE, "two host bridges, one NUMA node: NODE");
    a = loc(0, -1, s1), b = loc(0, -1, s2);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_NODE, "unknown host bridges, one NUMA: NODE");
    a = loc(0, 7, s1), b = loc(1, 8, s2);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_SYS, "two NUMA nodes: SYS");
    a = loc(-1, -1, NULL), b = loc(0, 8, s2);
    is_int(topo_path_classify(&a, &b), TOPO_PATH_UNKNOWN, "no location: unknown");

    node = topo_node_create();
    g = topo_node_add_gpu(node);
    snprintf(g->loc.busid, sizeof(g->loc.busid), "0000:20:00.0");
    g->loc = loc(0, 7, s2);
    strcpy(g->loc.busid, "0000:20:00.0");
    g = topo_node_add_gpu(node);
    g->loc = loc(0, 7, s1);
    strcpy(g->loc.busid, "0000:10:00.0");
    n = topo_node_add_nic(node);
    n->name = strdup("mlx5_1");
    n->rdma = 1;
    n->loc = loc(1, 9, NULL);
    n = topo_node_add_nic(node);
    n->name = strdup("mlx5_0");
    n->rdma = 1;
    n->loc = loc(0, 7, s1);
    topo_node_sort(node);
    is_str(node->gpus[0].loc.busid, "0000:10:00.0", "GPUs sorted by PCI address");
    is_int(node->gpus[1].index, 1, "GPUs renumbered");
    is_str(node->nics[0].name, "mlx5_0", "NICs sorted by name");
    is_int(topo_node_nearest_nic(node, 0), 0, "GPU0 nearest NIC is mlx5_0 (PIX)");
    is_int(topo_node_gpu_nic_path(node, 1, 0), TOPO_PATH_PHB, "GPU1 to mlx5_0 is PHB");
    is_int(topo_node_gpu_nic_path(node, 1, 1), TOPO_PATH_SYS, "GPU1 to mlx5_1 is SYS");
    is_int(topo_node_gpu_nic_path(node, 5, 0), TOPO_PATH_UNKNOWN, "out of range: unknown");
    is_int(topo_node_gpu_gpu_path(node, 0, 0, &nv), TOPO_PATH_SELF, "GPU to itself: X");
    is_int(topo_node_gpu_gpu_path(node, 0, 1, &nv), TOPO_PATH_PHB, "GPU0-GPU1 without NVLink: PHB");
    topo_node_add_nvlink(node, "0000:20:00.0", "0000:10:00.0", 4);
    topo_node_add_nvlink(node, "0000:10:00.0", "0000:20:00.0", 2);
    is_int(topo_node_gpu_gpu_path(node, 1, 0, &nv), TOPO_PATH_NV, "NVLink: NV");
    is_int(nv, 6, "NVLink counts add up in either direction");
    is_int(topo_node_switch_id(node, "0000:01:00.0"), 0, "first switch id is 0");
    is_int(topo_node_switch_id(node, "0000:02:00.0"), 1, "second switch id is 1");
    is_int(topo_node_switch_id(node, "0000:01:00.0"), 0, "switch ids are stable");
    topo_node_add_source(node, "a %d", 1);
    topo_node_add_source(node, "b");
    is_str(node->sources, "a 1, b", "sources are joined");
    topo_node_destroy(node);
    topo_node_destroy(NULL);
    ok(1, "destroy(NULL) is a no-op");
    return done_testing();
}
