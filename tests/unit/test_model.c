#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tests/tap/tap.h"
#include "topo/model.h"
#include "topo/pci.h"

static void nvswitch_pairs(void)
{
    struct topo_node *node = topo_node_create();
    const char *bus[] = { "0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0" };
    char t[TOPO_NVTARGET_LEN];
    int nv;

    for (int i = 0; i < 3; i++) {
        struct topo_gpu *g = topo_node_add_gpu(node);
        strcpy(g->loc.busid, bus[i]);
    }
    /* an H200 board: 5+5+4+4 links to four switches per GPU; GPU2 lost one link on one */
    for (int i = 0; i < 3; i++) {
        topo_node_add_switch_nvlink(node, bus[i], "0000:05:00.0", 4);
        topo_node_add_switch_nvlink(node, bus[i], "0000:06:00.0", 5);
        topo_node_add_switch_nvlink(node, bus[i], "0000:07:00.0", i == 2 ? 4 : 5);
        topo_node_add_switch_nvlink(node, bus[i], "0000:08:00.0", 4);
    }
    is_int(topo_node_gpu_switch_links(node, 0), 18, "switch links of a GPU add up: 18");
    is_int(topo_node_nvlink_count(node, 0, 1), 18, "a pair through 4 switches: 18, not 18 x 18");
    is_int(topo_node_nvlink_count(node, 1, 2), 17, "... the smaller of the two totals: 17");
    is_int(topo_node_gpu_gpu_path(node, 2, 0, &nv), TOPO_PATH_NV, "through switches: NV");
    is_int(nv, 17, "... NV17");
    topo_node_add_switch_nvlink(node, bus[0], "0000:05:00.0", 1);
    is_int(topo_node_gpu_switch_links(node, 0), 19, "a second record of a GPU-switch pair adds up");
    topo_node_add_nvlink(node, bus[0], bus[1], 2);
    is_int(topo_node_nvlink_count(node, 0, 1), 20, "direct links add to switch links");
    is_int(topo_node_nvlink_count(node, 0, 0), 0, "a GPU with itself: 0");
    is_int(topo_node_nvlink_count(node, 0, 7), 0, "out of range: 0");
    topo_node_destroy(node);

    ok(topo_nvtarget_normalize("fffffff:ff:ff.0", t) == 0 && !strcmp(t, "ffffffff:ff:ff.0"),
       "NCCL's fabric target (28-bit domain) is the fabric");
    ok(topo_nvtarget_normalize("FFFFFFFF:FF:FF.0", t) == 0 && !strcmp(t, "ffffffff:ff:ff.0"),
       "NVML's fabric address is the same fabric");
    ok(topo_nvtarget_normalize("fffffff:ffff:ff", t) == 0 && !strcmp(t, "ffffffff:ff:ff.0"),
       "NCCL >= 2.31's sentinel (no PCI address) is the same fabric");
    ok(topo_nvtarget_normalize("00000000:C4:00.0", t) == 0 && !strcmp(t, "0000:c4:00.0"),
       "an NVSwitch's NVML address is normalised");
    ok(topo_nvtarget_normalize("10000:c4:00.0", t) == 0 && !strcmp(t, "10000:c4:00.0"),
       "a 20-bit domain (Intel VMD's 10000:) is an address too");
    ok(topo_nvtarget_normalize("1ffffffff:00:00.0", t) < 0, "a domain wider than 32 bits: refused");
    ok(topo_nvtarget_normalize("ffff:zz:00.0", t) < 0, "not an address: refused");
    ok(topo_nvtarget_normalize(NULL, t) < 0, "NULL: refused");
    ok(topo_busid_normalize("fffffff:ff:ff.0", t) < 0, "a GPU's own address keeps 16 bits");
}

static void pcie_path(void)
{
    struct topo_node *node = topo_node_create();
    struct topo_gpu *g = topo_node_add_gpu(node);
    int rp, usp, dsp, gen, width, b;
    double v;

    strcpy(g->loc.busid, "0000:9a:00.0");
    g->link.max_gen = 5, g->link.max_width = 16;
    g->link.cur_gen = 1, g->link.cur_width = 16; /* idle */
    rp = topo_node_add_bridge(node, "0000:96:01.0", -1);
    usp = topo_node_add_bridge(node, "0000:97:00.0", rp);
    dsp = topo_node_add_bridge(node, "0000:98:00.0", usp);
    is_int(topo_node_add_bridge(node, "0000:97:00.0", -1), usp, "a bridge is added once");
    is_int(node->bridges[usp].up, rp, "... keeping what is above it");
    g->loc.up = dsp;
    node->bridges[rp].link = (struct topo_pcie_link){ 5, 16, 5, 16, -1 };
    node->bridges[usp].link = (struct topo_pcie_link){ 2, 16, 5, 16, -1 }; /* trained down */
    node->bridges[dsp].link = (struct topo_pcie_link){ 1, 16, 5, 16, -1 };
    b = topo_node_host_link(node, &g->loc, &g->link, &v, &gen, &width);
    /* the downstream port follows the idle GPU (Gen1) and is the narrowest known */
    is_int(b, dsp, "the narrowest link counts as trained");
    node->bridges[dsp].link.cur_gen = 5;
    b = topo_node_host_link(node, &g->loc, &g->link, &v, &gen, &width);
    is_int(b, usp, "the switch trained at Gen2 is the narrowest link");
    ok(v > 7.9 && v < 8.1, "Gen2 x16 carries 8.0 GB/s");
    is_int(gen, 2, "the lowest generation on the way: 2");
    is_int(width, 16, "the lowest width on the way: 16");
    node->bridges[usp].link.cur_gen = 5;
    b = topo_node_host_link(node, &g->loc, &g->link, &v, &gen, &width);
    is_int(b, -1, "every bridge at Gen5 x16: the GPU's own link (as it can train, not idle Gen1)");
    is_int(gen, 5, "... Gen5");
    node->bridges[rp].up = usp; /* a damaged input: a cycle */
    ok(topo_node_host_link(node, &g->loc, &g->link, &v, NULL, NULL) >= -1,
       "a cycle of bridges ends");
    topo_node_destroy(node);

    ok(topo_pci_link_gbytes(5, 16) > 63.0 && topo_pci_link_gbytes(5, 16) < 63.1,
       "Gen5 x16: 63.0 GB/s");
    ok(topo_pci_link_gbytes(4, 16) > 31.5 && topo_pci_link_gbytes(4, 16) < 31.6,
       "Gen4 x16: 31.5 GB/s");
    ok(topo_pci_link_gbytes(1, 16) == 4.0, "Gen1 x16: 4 GB/s (8b/10b)");
    ok(topo_pci_link_gbytes(0, 16) < 0 && topo_pci_link_gbytes(5, 0) < 0 &&
           topo_pci_link_gbytes(8, 16) < 0,
       "unknown generation or width: unknown");
    ok(topo_pci_nic_is_rdma(0x020700, 0x15b3, 0x1021), "ConnectX-7 (IB class): RDMA");
    ok(topo_pci_nic_is_rdma(0x020000, 0x15b3, 0x101d), "ConnectX-6 Dx in Ethernet: RDMA (RoCE)");
    ok(topo_pci_nic_is_rdma(0x0200, 0x1d0f, 0xefa1), "EFA: RDMA");
    ok(!topo_pci_nic_is_rdma(0x0200, 0x1d0f, 0xec20), "ENA: not RDMA");
    ok(!topo_pci_nic_is_rdma(0x020000, 0x17db, 0x0501), "Slingshot: not a verbs device");
    ok(!topo_pci_nic_is_rdma(0x020000, 0x8086, 0x1592), "an Intel Ethernet NIC: not RDMA");
    ok(!topo_pci_nic_is_rdma(0x030200, 0x15b3, 0x1021), "not a network class: not RDMA");
}

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
    nvswitch_pairs();
    pcie_path();
    return done_testing();
}
