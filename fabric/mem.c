#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "fabric/mem.h"
#include "readers/discover.h"
#include "readers/numa.h"

int fabric_nearest_gpu(const struct topo_node *node, size_t nic, enum topo_path *path)
{
    int best = -1;

    *path = TOPO_PATH_UNKNOWN;
    for (size_t g = 0; g < node->ngpus; g++) {
        enum topo_path p = topo_node_gpu_nic_path(node, g, nic);
        if (p != TOPO_PATH_UNKNOWN && (best < 0 || p < *path)) {
            best = (int)g;
            *path = p;
        }
    }
    return best;
}

/* host memory on the NIC's NUMA node through hwloc; plain page-aligned memory when the node is
 * unknown (virtual interfaces, one-node machines) or binding is refused */
static int alloc_host(struct fabric_mem *m, const char *rdma_dev, const char *netdev)
{
    int numa = netdev ? topo_numa_of_netdev(NULL, netdev) : -1;
    hwloc_topology_t topo;

    if (numa < 0 && rdma_dev)
        ry_sysfs_read_int(NULL, &numa, NULL, "class/infiniband/%s/device/numa_node", rdma_dev);
    m->numa = -1;
    if (numa >= 0 && hwloc_topology_init(&topo) == 0) {
        hwloc_obj_t node;
        if (hwloc_topology_load(topo) == 0 &&
            (node = hwloc_get_numanode_obj_by_os_index(topo, (unsigned)numa)) &&
            (m->host = hwloc_alloc_membind(topo, m->size, node->nodeset, HWLOC_MEMBIND_BIND,
                                           HWLOC_MEMBIND_BYNODESET))) {
            m->hwloc = topo;
            m->numa = numa;
            memset(m->host, 0, m->size); /* touch: the pages land on the node now */
            snprintf(m->desc, sizeof(m->desc), "host (NUMA node %d)", numa);
            return 0;
        }
        hwloc_topology_destroy(topo);
    }
    if (posix_memalign((void **)&m->host, 4096, m->size))
        return -1;
    memset(m->host, 0, m->size);
    snprintf(m->desc, sizeof(m->desc), "host (%s)",
             numa < 0 ? "NIC NUMA node unknown: not bound" : "binding refused");
    return 0;
}

static int pick_gpu(struct fabric_mem *m, const char *which, const char *rdma_dev, ry_error_t *err)
{
    struct topo_inputs in;
    struct topo_node *node;
    struct topo_nic *nic;
    char *end;
    int g;

    if (which && *which) {
        long v = strtol(which, &end, 10);
        if (end != which && !*end)
            return fabric_cuda_device_by_ordinal((int)v, &m->gpu, err);
        return fabric_cuda_device(which, &m->gpu, err);
    }
    /* the GPU nearest the NIC, from the node's topology */
    if (fabric_cuda_load(err) < 0)
        return -1;
    memset(&in, 0, sizeof(in));
    if (!(node = topo_discover(&in, err)))
        return -1;
    if (!(nic = topo_node_nic_by_name(node, rdma_dev))) {
        topo_node_destroy(node);
        return ry_errorf(err, "%s is not in this node's topology: name the GPU (--mem cuda:N)",
                         rdma_dev);
    }
    g = fabric_nearest_gpu(node, (size_t)(nic - node->nics), &m->path);
    if (g < 0) {
        int n = (int)node->ngpus;
        topo_node_destroy(node);
        return ry_errorf(err,
                         "no GPU with a known PCIe path to %s (%d GPUs found): name the GPU "
                         "(--mem cuda:N)",
                         rdma_dev, n);
    }
    g = fabric_cuda_device(node->gpus[g].loc.busid, &m->gpu, err);
    topo_node_destroy(node);
    return g;
}

int fabric_mem_alloc(struct fabric_mem *m, const char *spec, const char *rdma_dev,
                     const char *netdev, size_t size, ry_error_t *err)
{
    memset(m, 0, sizeof(*m));
    m->size = size;
    m->numa = -1;
    if (!spec || !strcmp(spec, "host")) {
        if (alloc_host(m, rdma_dev, netdev) < 0)
            return ry_errorf(err, "cannot allocate %zu bytes of host memory", size);
        return 0;
    }
    if (strcmp(spec, "cuda") && strncmp(spec, "cuda:", 5))
        return ry_errorf(err, "unknown memory '%s' (host, cuda, cuda:N, cuda:BUSID)", spec);
    m->cuda = 1;
    if (pick_gpu(m, spec[4] == ':' ? spec + 5 : NULL, rdma_dev, err) < 0 ||
        fabric_cuda_alloc(m->gpu.ordinal, size, &m->dev, err) < 0)
        return -1;
    m->size = m->dev.size;
    m->host = xcalloc(1, m->size);
    snprintf(m->desc, sizeof(m->desc), "cuda gpu%d %s%s%s%s", m->gpu.ordinal, m->gpu.busid,
             m->path != TOPO_PATH_UNKNOWN ? " (" : "",
             m->path != TOPO_PATH_UNKNOWN ? topo_path_name(m->path) : "",
             m->path != TOPO_PATH_UNKNOWN ? ")" : "");
    return 0;
}

void fabric_mem_free(struct fabric_mem *m)
{
    if (m->cuda) {
        fabric_cuda_free(&m->dev);
        free(m->host);
    } else if (m->hwloc) {
        hwloc_free((hwloc_topology_t)m->hwloc, m->host, m->size);
        hwloc_topology_destroy((hwloc_topology_t)m->hwloc);
    } else
        free(m->host);
    memset(m, 0, sizeof(*m));
}

int fabric_mem_fill(struct fabric_mem *m, size_t msg, ry_error_t *err)
{
    for (size_t i = 0; i < m->size; i++)
        m->host[i] = fabric_pattern(i % msg);
    return m->cuda ? fabric_cuda_copy(&m->dev, 0, m->host, m->size, 1, err) : 0;
}

int fabric_mem_check(struct fabric_mem *m, size_t off, size_t len, size_t msg, int full,
                     ry_error_t *err)
{
    if (off + len > m->size)
        len = off < m->size ? m->size - off : 0;
    if (m->cuda && len && fabric_cuda_copy(&m->dev, off, m->host + off, len, 0, err) < 0)
        return -1;
    for (size_t i = 0; i < len; i += full ? 1 : 4093)
        if (m->host[off + i] != fabric_pattern((off + i) % msg))
            return ry_errorf(err, "data differs at offset %zu of the %s buffer", off + i,
                             m->cuda ? "GPU" : "host");
    if (len && m->host[off + len - 1] != fabric_pattern((off + len - 1) % msg))
        return ry_errorf(err, "data differs at offset %zu of the %s buffer", off + len - 1,
                         m->cuda ? "GPU" : "host");
    return 0;
}

int fabric_mem_clear(struct fabric_mem *m, ry_error_t *err)
{
    memset(m->host, 0, m->size);
    return m->cuda ? fabric_cuda_memset(&m->dev, 0, err) : 0;
}
