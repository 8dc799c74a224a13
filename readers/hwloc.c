#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <hwloc/distances.h>

#include "common/xmalloc.h"
#include "readers/hwloc.h"
#include "readers/pci_names.h"
#include "topo/pci.h"

static const char *info(hwloc_obj_t obj, const char *name)
{
    return obj ? hwloc_obj_get_info_by_name(obj, name) : NULL;
}

static void pci_busid(hwloc_obj_t obj, char out[TOPO_BUSID_LEN])
{
    snprintf(out, TOPO_BUSID_LEN, "%04x:%02x:%02x.%x", obj->attr->pcidev.domain & 0xffffu,
             obj->attr->pcidev.bus, obj->attr->pcidev.dev, obj->attr->pcidev.func);
}

static int obj_numa(hwloc_topology_t topo, hwloc_obj_t obj)
{
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, obj);

    if (anc && anc->nodeset && hwloc_bitmap_weight(anc->nodeset) == 1)
        return hwloc_bitmap_first(anc->nodeset);
    if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) == 1)
        return (int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0)->os_index;
    return -1;
}

/* The PCI location of obj: host bridge, and the PCIe switches between obj and its root port.
 * hwloc shows a switch as an upstream-port bridge with one downstream-port bridge per slot,
 * below the root port (itself a bridge under the host bridge). Counting bridges two at a time
 * above the device gives one entry per switch, as NCCL and nvidia-smi count them. */
static void pci_location(struct topo_node *node, hwloc_topology_t topo, hwloc_obj_t obj,
                         struct topo_pciloc *loc)
{
    hwloc_obj_t chain[2 * TOPO_MAX_SWITCH_DEPTH + 1];
    int n = 0, rooted = 0;
    char busid[TOPO_BUSID_LEN];

    topo_pciloc_init(loc);
    pci_busid(obj, loc->busid);
    loc->numa = obj_numa(topo, obj);
    for (hwloc_obj_t p = obj->parent; p && p->type == HWLOC_OBJ_BRIDGE; p = p->parent) {
        if (p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
            loc->hostbridge = (int)p->gp_index;
            rooted = 1;
            break;
        }
        if (n < (int)(sizeof(chain) / sizeof(chain[0])))
            chain[n++] = p;
    }
    /* every bridge port up to and with the root port, with the link hwloc read (GB/s) */
    {
        int up = -1;
        for (int k = n - 1; k >= 0; k--) {
            hwloc_obj_t b = chain[k];
            int i;
            if (b->attr->bridge.upstream_type != HWLOC_OBJ_BRIDGE_PCI)
                continue;
            pci_busid(b, busid);
            i = topo_node_add_bridge(node, busid, up);
            if (b->attr->bridge.upstream.pci.linkspeed > 0)
                node->bridges[i].link.cur_gbytes = b->attr->bridge.upstream.pci.linkspeed;
            /* downstream, upstream, downstream... counted from the device */
            node->bridges[i].faces_down = k % 2 == 0;
            up = i;
        }
        loc->up = up;
    }
    if (rooted && n > 0)
        n--; /* the root port is not a switch */
    for (int k = 0; k < n && loc->nswitch < TOPO_MAX_SWITCH_DEPTH; k += 2) {
        hwloc_obj_t up = chain[k + 1 < n ? k + 1 : k];
        if (up->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
            pci_busid(up, busid);
        else
            snprintf(busid, sizeof(busid), "gp%llu", (unsigned long long)up->gp_index);
        loc->switches[loc->nswitch++] = topo_node_switch_id(node, busid);
    }
}

static const char *const port_states[] = {
    "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"
};

static void add_hwloc_ports(struct topo_nic *nic, hwloc_obj_t os)
{
    char key[32];
    const char *v;

    for (int p = 1; p <= 16; p++) {
        struct topo_port *port;
        snprintf(key, sizeof(key), "Port%dState", p);
        if (!(v = info(os, key)))
            continue;
        port = topo_nic_add_port(nic);
        port->num = p;
        port->state = atoi(v);
        if (port->state >= 0 && port->state <= 5)
            port->state_str = xstrdup(port_states[port->state]);
        snprintf(key, sizeof(key), "Port%dLID", p);
        if ((v = info(os, key)))
            port->lid = (int)strtol(v, NULL, 0);
        snprintf(key, sizeof(key), "Port%dGID0", p);
        if ((v = info(os, key)) && strspn(v, "0:") != strlen(v)) {
            port->gids = xcalloc(1, sizeof(char *));
            port->gid_types = xcalloc(1, sizeof(char *));
            port->gid_index = xcalloc(1, sizeof(int));
            port->gids[0] = xstrdup(v);
            port->ngids = 1;
        }
    }
}

static void add_device(struct topo_node *node, hwloc_topology_t topo, hwloc_obj_t obj,
                       struct topo_pci_names *names)
{
    unsigned vendor = obj->attr->pcidev.vendor_id, device = obj->attr->pcidev.device_id;
    enum topo_pci_kind kind = topo_pci_classify_device(obj->attr->pcidev.class_id, vendor, device);
    hwloc_obj_t ofed = NULL, gpuos = NULL, net = NULL, cuda = NULL;

    for (hwloc_obj_t c = obj->io_first_child; c; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE)
            continue;
        switch (c->attr->osdev.type) {
        case HWLOC_OBJ_OSDEV_OPENFABRICS:
            if (!ofed)
                ofed = c;
            break;
        case HWLOC_OBJ_OSDEV_NETWORK:
            if (!net)
                net = c;
            break;
        case HWLOC_OBJ_OSDEV_GPU:
        case HWLOC_OBJ_OSDEV_COPROC:
            if (info(c, "GPUModel") && !gpuos)
                gpuos = c;
            if (info(c, "CUDAGlobalMemorySize") && !cuda)
                cuda = c;
            break;
        default: break;
        }
    }
    if (gpuos && kind != TOPO_PCI_GPU)
        kind = TOPO_PCI_GPU;
    if (ofed)
        kind = TOPO_PCI_NIC_IB; /* any RDMA device: IB, RoCE, EFA */
    else if (vendor == TOPO_PCI_VENDOR_MELLANOX &&
             (kind == TOPO_PCI_NIC_ETH || obj->attr->pcidev.class_id == 0x0c06))
        kind = TOPO_PCI_NIC_IB; /* a ConnectX whose RDMA driver is not loaded: listed, rdma 0 */

    if (kind == TOPO_PCI_GPU) {
        struct topo_gpu *g = topo_node_add_gpu(node);
        const char *v;
        g->pci_vendor = vendor;
        g->pci_device = device;
        /* the short PCI vendor name first: backends spell vendors differently */
        g->vendor = xstrdup(topo_pci_vendor_name(vendor) ? topo_pci_vendor_name(vendor)
                                                         : info(gpuos, "GPUVendor"));
        g->model = xstrdup(info(gpuos, "GPUModel"));
        if (!g->model)
            g->model = xstrdup(info(obj, "PCIDevice"));
        if (!g->model)
            g->model = topo_pci_lookup_name(names, vendor, device);
        if ((v = info(cuda, "CUDAGlobalMemorySize")))
            g->memory_bytes = strtoull(v, NULL, 10) * 1024;
        g->uuid = xstrdup(info(gpuos, "NVIDIAUUID"));
        pci_location(node, topo, obj, &g->loc);
        if (obj->attr->pcidev.linkspeed > 0)
            g->link.cur_gbytes = obj->attr->pcidev.linkspeed;
    } else if (kind == TOPO_PCI_NIC_IB) {
        struct topo_nic *n = topo_node_add_nic(node);
        n->pci_vendor = vendor;
        n->pci_device = device;
        n->pci_class = obj->attr->pcidev.class_id;
        n->rdma = ofed != NULL;
        n->name = xstrdup(ofed ? ofed->name : net ? net->name : NULL);
        if (!n->name)
            n->name = xasprintf("nic%zu", node->nnics - 1);
        n->netdev = xstrdup(net ? net->name : NULL);
        n->node_guid = xstrdup(info(ofed, "NodeGUID"));
        n->model = xstrdup(info(obj, "PCIDevice"));
        if (!n->model)
            n->model = topo_pci_lookup_name(names, vendor, device);
        pci_location(node, topo, obj, &n->loc);
        if (obj->attr->pcidev.linkspeed > 0)
            n->link.cur_gbytes = obj->attr->pcidev.linkspeed;
        if (ofed)
            add_hwloc_ports(n, ofed);
    }
    /* plain netdevs (Ethernet without RDMA) come from sysfs, where it is read */
}

/* The NVLink bandwidth hwloc's NVML backend gives one link, MB/s: 20000 for NVLink 1 (P100),
 * 25000 for later versions. The matrix holds multiples of it. */
static hwloc_uint64_t nvlink_unit(const struct hwloc_distances_s *d)
{
    hwloc_uint64_t min = 0;
    int by25 = 1, by20 = 1;

    for (unsigned i = 0; i < d->nbobjs; i++)
        for (unsigned j = 0; j < d->nbobjs; j++) {
            hwloc_uint64_t v = d->values[i * d->nbobjs + j];
            if (i == j || !v)
                continue;
            by25 &= v % 25000 == 0;
            by20 &= v % 20000 == 0;
            if (!min || v < min)
                min = v;
        }
    return by25 ? 25000 : by20 ? 20000 : min;
}

/* The GPU of node an object of the matrix stands for (its NVML or CUDA OS device, or the PCI
 * device itself), or NULL. */
static struct topo_gpu *matrix_gpu(struct topo_node *node, hwloc_obj_t obj)
{
    char busid[TOPO_BUSID_LEN];

    if (obj->type == HWLOC_OBJ_OS_DEVICE)
        obj = obj->parent;
    if (!obj || obj->type != HWLOC_OBJ_PCI_DEVICE)
        return NULL;
    pci_busid(obj, busid);
    return topo_node_gpu_by_busid(node, busid);
}

/* NVLinks from hwloc's "NVLinkBandwidth" distances (hwloc >= 2.5 keeps GPU-NVSwitch and
 * GPU-CPU links in it, lstopo -v prints it): GPU pairs, GPU-NVSwitch links, and each GPU's
 * total. Without the matrix nothing is known about NVLink. */
static void read_nvlinks(struct topo_node *node, hwloc_topology_t topo)
{
    struct hwloc_distances_s *d = NULL;
    hwloc_uint64_t unit;
    unsigned nr = 1;

    if (hwloc_distances_get_by_name(topo, "NVLinkBandwidth", &nr, &d, 0) < 0 || nr == 0 || !d)
        return;
    if (!(d->kind & HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH) || !(unit = nvlink_unit(d))) {
        hwloc_distances_release(topo, d);
        return;
    }
    for (unsigned i = 0; i < d->nbobjs; i++) {
        struct topo_gpu *g = matrix_gpu(node, d->objs[i]);
        int total = 0;
        if (!g)
            continue;
        for (unsigned j = 0; j < d->nbobjs; j++) {
            hwloc_obj_t peer = d->objs[j];
            struct topo_gpu *pg;
            char busid[TOPO_BUSID_LEN];
            int links = (int)((d->values[i * d->nbobjs + j] + unit / 2) / unit);
            if (i == j || links <= 0)
                continue;
            total += links;
            if ((pg = matrix_gpu(node, peer))) {
                if (strcmp(g->loc.busid, pg->loc.busid) < 0) /* the matrix is symmetric */
                    topo_node_add_nvlink(node, g->loc.busid, pg->loc.busid, links);
            } else if (peer->type == HWLOC_OBJ_PCI_DEVICE) {
                /* an NVSwitch (whatever its config space says: one of a DGX-2's reads zeros) */
                pci_busid(peer, busid);
                topo_node_add_switch_nvlink(node, g->loc.busid, busid, links);
            }
            /* else the CPU (POWER's NVLink ports): counted in the GPU's total only */
        }
        g->nvlink_links = total;
    }
    hwloc_distances_release(topo, d);
}

static int load(hwloc_topology_t topo, const char *xml, ry_error_t *err)
{
    char *buf = NULL;
    int len = 0, prep, rc;
    FILE *f;

    if (hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL) < 0)
        return ry_errorf(err, "hwloc: cannot keep I/O objects: %s", strerror(errno));
    /* On Linux, hwloc's linux backend reads the PCI tree from sysfs. The libpciaccess-based
     * "pci" component would read config space and keeps its ID table allocated after it is
     * unloaded (seen as a leak under LeakSanitizer); names come from libpci here anyway. */
    if (!xml)
        hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
    if (xml) {
        if (!(f = fopen(xml, "r")))
            return ry_errorf(err, "cannot open %s: %s", xml, strerror(errno));
        fclose(f);
        /* hwloc's own parser says little about where a file is broken: check it first */
        if ((prep = topo_hwloc_xml_prepare(xml, &buf, &len, err)) < 0)
            return -1;
        rc =
            prep ? hwloc_topology_set_xmlbuffer(topo, buf, len) : hwloc_topology_set_xml(topo, xml);
        if (rc < 0) {
            topo_xml_buffer_free(buf);
            return ry_errorf(err, "%s: not an hwloc XML topology: %s", xml, strerror(errno));
        }
    }
    rc = hwloc_topology_load(topo);
    topo_xml_buffer_free(buf);
    if (rc < 0)
        return ry_errorf(err, "%s: hwloc cannot load the topology: %s", xml ? xml : "live machine",
                         strerror(errno));
    return 0;
}

int topo_hwloc_discover(struct topo_node *node, const char *xml, ry_error_t *err)
{
    struct topo_pci_names *names;
    hwloc_topology_t topo;
    hwloc_obj_t obj, root;
    const char *v;
    int rc = -1;

    if (hwloc_topology_init(&topo) < 0)
        return ry_errorf(err, "hwloc: cannot initialise: %s", strerror(errno));
    if (load(topo, xml, err) < 0)
        goto out;

    root = hwloc_get_root_obj(topo);
    if (!node->hostname && (v = info(root, "HostName")))
        node->hostname = xstrdup(v);
    node->npackages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    node->ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    node->npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    if (obj && (v = info(obj, "CPUModel")) && !node->cpu_model)
        node->cpu_model = xstrdup(v);
    for (obj = NULL; (obj = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, obj));) {
        struct topo_numa *m = topo_node_add_numa(node, (int)obj->os_index);
        m->memory_bytes = obj->attr->numanode.local_memory;
        m->npus = hwloc_get_nbobjs_inside_cpuset_by_type(topo, obj->cpuset, HWLOC_OBJ_PU);
    }
    names = topo_pci_names_open();
    for (obj = NULL; (obj = hwloc_get_next_pcidev(topo, obj));)
        add_device(node, topo, obj, names);
    topo_pci_names_close(names);
    read_nvlinks(node, topo);
    node->gpus_listed = node->nics_listed = 1;
    topo_node_add_source(node, "hwloc %s", xml ? xml : "live");
    rc = 0;
out:
    hwloc_topology_destroy(topo);
    return rc;
}

int topo_hwloc_export_live(const char *path, ry_error_t *err)
{
    hwloc_topology_t topo;
    int rc = -1;

    if (hwloc_topology_init(&topo) < 0)
        return ry_errorf(err, "hwloc: cannot initialise: %s", strerror(errno));
    if (load(topo, NULL, err) < 0)
        goto out;
    if (hwloc_topology_export_xml(topo, path, 0) < 0) {
        ry_errorf(err, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    hwloc_topology_destroy(topo);
    return rc;
}
