#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "readers/pci_acs.h"
#include "readers/pci_names.h"
#include "readers/sysfs.h"
#include "topo/iba.h"
#include "topo/pci.h"

/* Read an optional string attribute: 0 and *out NULL when absent, -1 on other errors */
static int read_opt(const char *root, char **out, ry_error_t *err, const char *fmt, const char *a,
                    const char *b)
{
    char buf[512];

    *out = NULL;
    if (ry_sysfs_read(root, buf, sizeof(buf), err, fmt, a, b) < 0)
        return errno == ENOENT ? 0 : -1;
    if (buf[0])
        *out = xstrdup(buf);
    return 0;
}

/* "4: ACTIVE" -> 4 and "ACTIVE" */
static int read_state(const char *root, int *num, char **name, ry_error_t *err, const char *dev,
                      const char *port, const char *attr)
{
    char buf[128], *end;
    long v;

    if (ry_sysfs_read(root, buf, sizeof(buf), err, "class/infiniband/%s/ports/%s/%s", dev, port,
                      attr) < 0)
        return errno == ENOENT ? 0 : -1;
    v = strtol(buf, &end, 10);
    if (end == buf || *end != ':') {
        errno = EINVAL;
        return ry_errorf(err,
                         "%s/class/infiniband/%s/ports/%s/%s: line 1: '%s' is not a port "
                         "state (expected '<number>: <name>')",
                         ry_sysfs_root(root), dev, port, attr, buf);
    }
    *num = (int)v;
    end++;
    while (*end == ' ')
        end++;
    *name = xstrdup(end);
    return 0;
}

static int read_gids(const char *root, struct topo_port *p, const char *dev, const char *port,
                     ry_error_t *err)
{
    char **names;
    size_t n;

    if (ry_sysfs_list(root, &names, &n, err, "class/infiniband/%s/ports/%s/gids", dev, port) < 0)
        return errno == ENOENT ? 0 : -1;
    for (size_t i = 0; i < n; i++) {
        char gid[64], type[64], ndev[64];
        /* unused table entries read as zero (or fail with EINVAL on RoCE) */
        if (ry_sysfs_read(root, gid, sizeof(gid), NULL, "class/infiniband/%s/ports/%s/gids/%s", dev,
                          port, names[i]) < 0 ||
            strspn(gid, "0:") == strlen(gid))
            continue;
        p->gids = xrealloc(p->gids, (p->ngids + 1) * sizeof(*p->gids));
        p->gid_types = xrealloc(p->gid_types, (p->ngids + 1) * sizeof(*p->gid_types));
        p->gid_index = xrealloc(p->gid_index, (p->ngids + 1) * sizeof(*p->gid_index));
        p->gids[p->ngids] = xstrdup(gid);
        p->gid_index[p->ngids] = atoi(names[i]);
        p->gid_types[p->ngids] = NULL;
        if (ry_sysfs_read(root, type, sizeof(type), NULL,
                          "class/infiniband/%s/ports/%s/gid_attrs/types/%s", dev, port,
                          names[i]) == 0 &&
            type[0])
            p->gid_types[p->ngids] = xstrdup(type);
        if (!p->netdev &&
            ry_sysfs_read(root, ndev, sizeof(ndev), NULL,
                          "class/infiniband/%s/ports/%s/gid_attrs/ndevs/%s", dev, port,
                          names[i]) == 0 &&
            ndev[0])
            p->netdev = xstrdup(ndev);
        p->ngids++;
    }
    ry_sysfs_list_free(names, n);
    return 0;
}

static int read_port(const char *root, struct topo_nic *nic, const char *dev, const char *port,
                     ry_error_t *err)
{
    struct topo_port *p = NULL;
    char buf[128];
    int num = atoi(port);

    for (size_t i = 0; i < nic->nports; i++)
        if (nic->ports[i].num == num)
            p = &nic->ports[i];
    if (!p) {
        p = topo_nic_add_port(nic);
        p->num = num;
    }
    free(p->state_str);
    free(p->phys_str);
    p->state_str = p->phys_str = NULL;
    if (read_state(root, &p->state, &p->state_str, err, dev, port, "state") < 0 ||
        read_state(root, &p->phys_state, &p->phys_str, err, dev, port, "phys_state") < 0)
        return -1;
    if (ry_sysfs_read(root, buf, sizeof(buf), err, "class/infiniband/%s/ports/%s/rate", dev,
                      port) == 0) {
        free(p->speed);
        if (topo_ib_parse_rate(buf, &p->rate_gbps, &p->width, &p->speed) < 0) {
            errno = EINVAL;
            return ry_errorf(err,
                             "%s/class/infiniband/%s/ports/%s/rate: line 1: '%s' is not a "
                             "rate (expected '<number> Gb/sec (<width>X <speed>)')",
                             ry_sysfs_root(root), dev, port, buf);
        }
    } else if (errno != ENOENT)
        return -1;
    if (ry_sysfs_read(root, buf, sizeof(buf), err, "class/infiniband/%s/ports/%s/link_layer", dev,
                      port) == 0) {
        if (!strcmp(buf, "InfiniBand"))
            p->link_layer = TOPO_LL_INFINIBAND;
        else if (!strcmp(buf, "Ethernet"))
            p->link_layer = TOPO_LL_ETHERNET;
        else {
            errno = EINVAL;
            return ry_errorf(err,
                             "%s/class/infiniband/%s/ports/%s/link_layer: line 1: unknown "
                             "link layer '%s'",
                             ry_sysfs_root(root), dev, port, buf);
        }
    } else if (errno != ENOENT)
        return -1;
    if (p->link_layer != TOPO_LL_ETHERNET) {
        uint64_t lid;
        if (ry_sysfs_read_u64(root, &lid, err, "class/infiniband/%s/ports/%s/lid", dev, port) == 0)
            p->lid = (int)lid;
        else if (errno != ENOENT)
            return -1;
    }
    return read_gids(root, p, dev, port, err);
}

static void read_pci_link(const char *root, const char *busid, struct topo_pcie_link *link,
                          int *numa)
{
    char buf[64];
    double gts;
    int v;

    /* These attributes are optional (virtual functions and old kernels lack some); a value
     * that does not parse stays unknown rather than failing the whole node. */
    if (ry_sysfs_read(root, buf, sizeof(buf), NULL, "bus/pci/devices/%s/current_link_speed",
                      busid) == 0 &&
        topo_pci_parse_gts(buf, &gts) == 0)
        link->cur_gen = topo_pci_gen_from_gts(gts);
    if (ry_sysfs_read(root, buf, sizeof(buf), NULL, "bus/pci/devices/%s/max_link_speed", busid) ==
            0 &&
        topo_pci_parse_gts(buf, &gts) == 0)
        link->max_gen = topo_pci_gen_from_gts(gts);
    if (ry_sysfs_read_int(root, &v, NULL, "bus/pci/devices/%s/current_link_width", busid) == 0 &&
        v > 0)
        link->cur_width = v;
    if (ry_sysfs_read_int(root, &v, NULL, "bus/pci/devices/%s/max_link_width", busid) == 0 && v > 0)
        link->max_width = v;
    if (*numa < 0 &&
        ry_sysfs_read_int(root, &v, NULL, "bus/pci/devices/%s/numa_node", busid) == 0 && v >= 0)
        *numa = v;
}

static int read_device(struct topo_node *node, const char *root, const char *dev, ry_error_t *err)
{
    struct topo_nic *nic;
    char busid[TOPO_BUSID_LEN] = "", link[64];
    char **ports = NULL, **nets = NULL;
    size_t nports = 0, nnets = 0;
    int rc = -1;

    if (ry_sysfs_link_base(root, link, sizeof(link), NULL, "class/infiniband/%s/device", dev) == 0)
        topo_busid_normalize(link, busid);
    nic = topo_node_nic_by_name(node, dev);
    if (!nic && busid[0] && (nic = topo_node_nic_by_busid(node, busid)) && nic->rdma &&
        strcmp(nic->name, dev) != 0)
        nic = NULL; /* another RDMA device on that function (e.g. a bond) */
    if (!nic) {
        nic = topo_node_add_nic(node);
        snprintf(nic->loc.busid, sizeof(nic->loc.busid), "%s", busid);
    }
    free(nic->name);
    nic->name = xstrdup(dev);
    nic->rdma = 1;

#define OPT(field, attrname)                                                                       \
    do {                                                                                           \
        char *v_;                                                                                  \
        if (read_opt(root, &v_, err, "class/infiniband/%s/%s", dev, attrname) < 0)                 \
            goto out;                                                                              \
        if (v_) {                                                                                  \
            free(nic->field);                                                                      \
            nic->field = v_;                                                                       \
        }                                                                                          \
    } while (0)
    OPT(fw_ver, "fw_ver");
    OPT(board_id, "board_id");
    OPT(hca_type, "hca_type");
    OPT(node_guid, "node_guid");
    OPT(node_desc, "node_desc");
#undef OPT

    if (ry_sysfs_list(root, &ports, &nports, err, "class/infiniband/%s/ports", dev) < 0 &&
        errno != ENOENT)
        goto out;
    for (size_t i = 0; i < nports; i++)
        if (read_port(root, nic, dev, ports[i], err) < 0)
            goto out;

    /* the netdevs of the PCI function: ib0 for IPoIB, the Ethernet interface for RoCE */
    if (ry_sysfs_list(root, &nets, &nnets, NULL, "class/infiniband/%s/device/net", dev) == 0 &&
        nnets > 0) {
        if (!nic->netdev)
            nic->netdev = xstrdup(nets[0]);
        for (size_t i = 0; i < nic->nports; i++) {
            struct topo_port *p = &nic->ports[i];
            for (size_t k = 0; k < nnets && !p->netdev; k++) {
                int devport;
                if (ry_sysfs_read_int(root, &devport, NULL,
                                      "class/infiniband/%s/device/net/%s/dev_port", dev,
                                      nets[k]) < 0)
                    devport = 0;
                if (devport + 1 == p->num || nnets == 1)
                    p->netdev = xstrdup(nets[k]);
            }
        }
    }
    for (size_t i = 0; i < nic->nports && !nic->netdev; i++)
        if (nic->ports[i].netdev)
            nic->netdev = xstrdup(nic->ports[i].netdev);
    rc = 0;
out:
    ry_sysfs_list_free(ports, nports);
    ry_sysfs_list_free(nets, nnets);
    if (rc < 0)
        ry_error_prefix(err, "%s", dev);
    return rc;
}

static int read_netdevs(struct topo_node *node, const char *root, ry_error_t *err)
{
    char **names;
    size_t n;

    if (ry_sysfs_list(root, &names, &n, err, "class/net") < 0)
        return errno == ENOENT ? 0 : -1;
    for (size_t i = 0; i < n; i++) {
        struct topo_netdev *d = topo_node_netdev_by_name(node, names[i]);
        char buf[128], link[64];
        int v;
        if (!d) {
            d = topo_node_add_netdev(node);
            d->name = xstrdup(names[i]);
        }
        if (ry_sysfs_read(root, buf, sizeof(buf), NULL, "class/net/%s/operstate", names[i]) == 0)
            d->operstate = xstrdup(buf);
        /* speed reads fail with EINVAL on a link that is down */
        if (ry_sysfs_read_int(root, &v, NULL, "class/net/%s/speed", names[i]) == 0 && v > 0)
            d->speed_mbps = v;
        if (ry_sysfs_read_int(root, &v, NULL, "class/net/%s/mtu", names[i]) == 0)
            d->mtu = v;
        if (ry_sysfs_read(root, buf, sizeof(buf), NULL, "class/net/%s/address", names[i]) == 0)
            d->address = xstrdup(buf);
        if (ry_sysfs_read_int(root, &v, NULL, "class/net/%s/type", names[i]) == 0)
            d->kind = xstrdup(v == 1     ? "ether"
                              : v == 32  ? "infiniband"
                              : v == 772 ? "loopback"
                                         : "other");
        if (ry_sysfs_link_base(root, link, sizeof(link), NULL, "class/net/%s/device", names[i]) ==
            0)
            topo_busid_normalize(link, d->busid);
    }
    ry_sysfs_list_free(names, n);
    for (size_t i = 0; i < node->nnics; i++)
        for (size_t p = 0; p < node->nics[i].nports; p++) {
            const char *nd = node->nics[i].ports[p].netdev;
            struct topo_netdev *d = nd ? topo_node_netdev_by_name(node, nd) : NULL;
            if (d && !d->rdma_dev)
                d->rdma_dev = xstrdup(node->nics[i].name);
        }
    return 0;
}

static int scan_pci_gpus(struct topo_node *node, const char *root, ry_error_t *err)
{
    struct topo_pci_names *names;
    char **devs;
    size_t n;

    if (ry_sysfs_list(root, &devs, &n, err, "bus/pci/devices") < 0)
        return errno == ENOENT ? 0 : -1;
    node->gpus_listed = 1;
    names = topo_pci_names_open();
    for (size_t i = 0; i < n; i++) {
        uint64_t cls, vendor, device;
        char busid[TOPO_BUSID_LEN];
        struct topo_gpu *g;
        if (topo_busid_normalize(devs[i], busid) < 0 ||
            ry_sysfs_read_u64(root, &cls, NULL, "bus/pci/devices/%s/class", devs[i]) < 0 ||
            ry_sysfs_read_u64(root, &vendor, NULL, "bus/pci/devices/%s/vendor", devs[i]) < 0 ||
            topo_pci_classify((unsigned)cls, (unsigned)vendor) != TOPO_PCI_GPU ||
            topo_node_gpu_by_busid(node, busid))
            continue;
        if (ry_sysfs_read_u64(root, &device, NULL, "bus/pci/devices/%s/device", devs[i]) < 0)
            device = 0;
        g = topo_node_add_gpu(node);
        snprintf(g->loc.busid, sizeof(g->loc.busid), "%s", busid);
        g->pci_vendor = (unsigned)vendor;
        g->pci_device = (unsigned)device;
        g->vendor = xstrdup(topo_pci_vendor_name((unsigned)vendor));
        g->model = topo_pci_lookup_name(names, (unsigned)vendor, (unsigned)device);
    }
    topo_pci_names_close(names);
    ry_sysfs_list_free(devs, n);
    return 0;
}

/* Where a device sits, from its sysfs path (devices/pci0000:00/<root port>/<up>/<down>/<dev>),
 * when no other source placed it: the root port's bus names the host bridge, and the bridges
 * below it count two at a time as switches (upstream and downstream port), as hwloc shows them. */
static void sysfs_location(struct topo_node *node, const char *root, struct topo_pciloc *loc)
{
    char chain[2 * TOPO_MAX_SWITCH_DEPTH + 2][16];
    size_t n;
    unsigned dom, bus, dev, fn;

    if (!loc->busid[0] || loc->hostbridge >= 0 || loc->nswitch > 0)
        return;
    n = topo_pci_chain(root, loc->busid, chain, sizeof(chain) / sizeof(chain[0]));
    if (n < 2 || sscanf(chain[0], "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return;
    loc->hostbridge = (int)(dom * 256 + bus);
    /* the bridges between the root port and the device, nearest first */
    for (size_t k = 0; k + 2 < n && loc->nswitch < TOPO_MAX_SWITCH_DEPTH; k += 2) {
        size_t down = n - 2 - k, up = down > 1 ? down - 1 : down;
        loc->switches[loc->nswitch++] = topo_node_switch_id(node, chain[up]);
    }
}

/* The bridges between a device and its root port, from its sysfs path, each with its trained
 * and capable link (a bridge another source placed gets the link sysfs gives) */
static void sysfs_bridges(struct topo_node *node, const char *root, struct topo_pciloc *loc)
{
    char chain[2 * TOPO_MAX_SWITCH_DEPTH + 2][16];
    int up = -1, numa = 0;
    size_t n;

    if (!loc->busid[0])
        return;
    n = topo_pci_chain(root, loc->busid, chain, sizeof(chain) / sizeof(chain[0]));
    for (size_t k = 0; k + 1 < n; k++) {
        int b = topo_node_add_bridge(node, chain[k], up);
        read_pci_link(root, chain[k], &node->bridges[b].link, &numa);
        /* root port, upstream, downstream...: the port right above the device faces down */
        node->bridges[b].faces_down = (n - 2 - k) % 2 == 0;
        up = b;
    }
    if (up >= 0)
        loc->up = up;
}

int topo_sysfs_discover(struct topo_node *node, const char *root, int scan_pci, ry_error_t *err)
{
    const char *r = ry_sysfs_root(root);
    char **devs = NULL;
    size_t n = 0;

    if (!ry_sysfs_exists(root, "."))
        return ry_errorf(err, "sysfs root %s: %s", r, strerror(ENOENT));
    if (!ry_sysfs_exists(root, "class") && !ry_sysfs_exists(root, "bus")) {
        errno = ENOENT;
        if (ry_sysfs_list(root, &devs, &n, NULL, ".") == 0 && n > 0 &&
            ry_sysfs_exists(root, "%s/ports", devs[0])) {
            ry_sysfs_list_free(devs, n);
            return ry_errorf(err,
                             "%s: this looks like a copy of /sys/class/infiniband; "
                             "--sysfs-root takes the directory that stands for /sys "
                             "(with class/infiniband/ inside)",
                             r);
        }
        ry_sysfs_list_free(devs, n);
        return ry_errorf(err, "%s: not a sysfs tree (neither class/ nor bus/ is there)", r);
    }
    if (ry_sysfs_list(root, &devs, &n, err, "class/infiniband") < 0 && errno != ENOENT)
        return -1;
    /* /sys/class/infiniband lists every RDMA device (it is absent when there is none) */
    if (n > 0 || ry_sysfs_exists(root, "class"))
        node->nics_listed = 1;
    for (size_t i = 0; i < n; i++)
        if (read_device(node, root, devs[i], err) < 0) {
            ry_sysfs_list_free(devs, n);
            return -1;
        }
    ry_sysfs_list_free(devs, n);
    if (read_netdevs(node, root, err) < 0)
        return -1;
    if (scan_pci && scan_pci_gpus(node, root, err) < 0)
        return -1;
    for (size_t i = 0; i < node->ngpus; i++)
        if (node->gpus[i].loc.busid[0])
            read_pci_link(root, node->gpus[i].loc.busid, &node->gpus[i].link,
                          &node->gpus[i].loc.numa);
    for (size_t i = 0; i < node->nnics; i++)
        if (node->nics[i].loc.busid[0])
            read_pci_link(root, node->nics[i].loc.busid, &node->nics[i].link,
                          &node->nics[i].loc.numa);
    for (size_t i = 0; i < node->ngpus; i++)
        sysfs_location(node, root, &node->gpus[i].loc);
    for (size_t i = 0; i < node->nnics; i++)
        sysfs_location(node, root, &node->nics[i].loc);
    for (size_t i = 0; i < node->ngpus; i++)
        sysfs_bridges(node, root, &node->gpus[i].loc);
    for (size_t i = 0; i < node->nnics; i++)
        sysfs_bridges(node, root, &node->nics[i].loc);
    topo_node_add_source(node, "sysfs %s", r);
    return 0;
}

int topo_sysfs_discover_live(struct topo_node *node, const char *root, ry_error_t *err)
{
    if (ry_sysfs_exists(root, ".") && !ry_sysfs_exists(root, "class") &&
        !ry_sysfs_exists(root, "bus")) {
        topo_node_add_source(node,
                             "sysfs %s: neither class/ nor bus/ (a sandboxed kernel?): "
                             "nothing read",
                             ry_sysfs_root(root));
        return 0;
    }
    return topo_sysfs_discover(node, root, 0, err);
}
