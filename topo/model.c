#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "topo/model.h"
#include "topo/gpubw.h"
#include "topo/pci.h"

struct topo_node *topo_node_create(void)
{
    struct topo_node *node = xcalloc(1, sizeof(*node));

    node->npackages = node->ncores = node->npus = node->gpu_driver = -1;
    return node;
}

static void port_free(struct topo_port *p)
{
    free(p->state_str);
    free(p->phys_str);
    free(p->speed);
    free(p->netdev);
    for (size_t i = 0; i < p->ngids; i++) {
        free(p->gids[i]);
        free(p->gid_types[i]);
    }
    free(p->gids);
    free(p->gid_types);
    free(p->gid_index);
}

void topo_node_destroy(struct topo_node *node)
{
    if (!node)
        return;
    for (size_t i = 0; i < node->ngpus; i++) {
        free(node->gpus[i].vendor);
        free(node->gpus[i].model);
        free(node->gpus[i].uuid);
    }
    for (size_t i = 0; i < node->nnics; i++) {
        struct topo_nic *n = &node->nics[i];
        free(n->name);
        free(n->netdev);
        free(n->fw_ver);
        free(n->board_id);
        free(n->hca_type);
        free(n->node_guid);
        free(n->node_desc);
        free(n->model);
        for (size_t p = 0; p < n->nports; p++)
            port_free(&n->ports[p]);
        free(n->ports);
    }
    for (size_t i = 0; i < node->nnetdevs; i++) {
        free(node->netdevs[i].name);
        free(node->netdevs[i].operstate);
        free(node->netdevs[i].address);
        free(node->netdevs[i].kind);
        free(node->netdevs[i].rdma_dev);
    }
    for (size_t i = 0; i < node->nswitches; i++)
        free(node->switch_ids[i]);
    free(node->switch_ids);
    free(node->bridges);
    free(node->gpus);
    free(node->nics);
    free(node->netdevs);
    free(node->numa);
    free(node->nvlinks);
    free(node->nvswitch);
    free(node->hostname);
    free(node->sources);
    free(node->cpu_model);
    for (size_t i = 0; i < node->nmissing_nics; i++)
        free(node->missing_nics[i]);
    free(node->missing_nics);
    for (size_t i = 0; i < node->nbw; i++)
        topo_bw_capture_free(node->bw[i]);
    free(node->bw);
    free(node->gpu_driver_note);
    free(node->gpu_driver_version);
    free(node->rdma_note);
    free(node);
}

void topo_pciloc_init(struct topo_pciloc *loc)
{
    memset(loc, 0, sizeof(*loc));
    loc->numa = -1;
    loc->hostbridge = -1;
    loc->up = -1;
}

void topo_pcie_link_init(struct topo_pcie_link *link)
{
    memset(link, 0, sizeof(*link));
    link->cur_gbytes = -1;
}

struct topo_gpu *topo_node_add_gpu(struct topo_node *node)
{
    struct topo_gpu *g;

    xgrow(&node->gpus, &node->gpus_alloc, node->ngpus + 1, sizeof(*node->gpus));
    g = &node->gpus[node->ngpus];
    memset(g, 0, sizeof(*g));
    g->index = (int)node->ngpus++;
    topo_pciloc_init(&g->loc);
    topo_pcie_link_init(&g->link);
    g->nvlink_links = g->nvlink_active = -1;
    g->sm = -1;
    return g;
}

struct topo_nic *topo_node_add_nic(struct topo_node *node)
{
    struct topo_nic *n;

    xgrow(&node->nics, &node->nics_alloc, node->nnics + 1, sizeof(*node->nics));
    n = &node->nics[node->nnics++];
    memset(n, 0, sizeof(*n));
    topo_pciloc_init(&n->loc);
    topo_pcie_link_init(&n->link);
    return n;
}

struct topo_port *topo_nic_add_port(struct topo_nic *nic)
{
    struct topo_port *p;

    nic->ports = xrealloc(nic->ports, (nic->nports + 1) * sizeof(*nic->ports));
    p = &nic->ports[nic->nports++];
    memset(p, 0, sizeof(*p));
    p->state = p->phys_state = p->lid = -1;
    p->rate_gbps = -1;
    return p;
}

struct topo_netdev *topo_node_add_netdev(struct topo_node *node)
{
    struct topo_netdev *d;

    xgrow(&node->netdevs, &node->netdevs_alloc, node->nnetdevs + 1, sizeof(*node->netdevs));
    d = &node->netdevs[node->nnetdevs++];
    memset(d, 0, sizeof(*d));
    d->speed_mbps = d->mtu = -1;
    return d;
}

struct topo_numa *topo_node_add_numa(struct topo_node *node, int os_index)
{
    struct topo_numa *m;

    for (size_t i = 0; i < node->nnuma; i++)
        if (node->numa[i].os_index == os_index)
            return &node->numa[i];
    xgrow(&node->numa, &node->numa_alloc, node->nnuma + 1, sizeof(*node->numa));
    m = &node->numa[node->nnuma++];
    m->os_index = os_index;
    m->memory_bytes = 0;
    m->npus = -1;
    return m;
}

void topo_node_add_nvlink(struct topo_node *node, const char *a, const char *b, int count)
{
    struct topo_nvlink *l;

    for (size_t i = 0; i < node->nnvlinks; i++) {
        l = &node->nvlinks[i];
        if ((!strcmp(l->a, a) && !strcmp(l->b, b)) || (!strcmp(l->a, b) && !strcmp(l->b, a))) {
            l->count += count;
            return;
        }
    }
    xgrow(&node->nvlinks, &node->nvlinks_alloc, node->nnvlinks + 1, sizeof(*node->nvlinks));
    l = &node->nvlinks[node->nnvlinks++];
    snprintf(l->a, sizeof(l->a), "%s", a);
    snprintf(l->b, sizeof(l->b), "%s", b);
    l->count = count;
}

void topo_node_add_switch_nvlink(struct topo_node *node, const char *gpu, const char *sw, int count)
{
    struct topo_nvswitch_link *l;

    for (size_t i = 0; i < node->nnvswitch; i++) {
        l = &node->nvswitch[i];
        if (!strcmp(l->gpu, gpu) && !strcmp(l->sw, sw)) {
            l->count += count;
            return;
        }
    }
    xgrow(&node->nvswitch, &node->nvswitch_alloc, node->nnvswitch + 1, sizeof(*node->nvswitch));
    l = &node->nvswitch[node->nnvswitch++];
    snprintf(l->gpu, sizeof(l->gpu), "%s", gpu);
    snprintf(l->sw, sizeof(l->sw), "%s", sw);
    l->count = count;
}

static int switch_links(const struct topo_node *node, const char *gpu)
{
    int total = 0;

    for (size_t i = 0; i < node->nnvswitch; i++)
        if (!strcmp(node->nvswitch[i].gpu, gpu))
            total += node->nvswitch[i].count;
    return total;
}

int topo_node_gpu_switch_links(const struct topo_node *node, size_t gpu)
{
    if (gpu >= node->ngpus || !node->gpus[gpu].loc.busid[0])
        return 0;
    return switch_links(node, node->gpus[gpu].loc.busid);
}

int topo_node_nvlink_count(const struct topo_node *node, size_t a, size_t b)
{
    const char *x, *y;
    int direct = 0, sa, sb;

    if (a >= node->ngpus || b >= node->ngpus || a == b)
        return 0;
    x = node->gpus[a].loc.busid;
    y = node->gpus[b].loc.busid;
    if (!x[0] || !y[0])
        return 0;
    for (size_t i = 0; i < node->nnvlinks; i++) {
        const struct topo_nvlink *l = &node->nvlinks[i];
        if ((!strcmp(l->a, x) && !strcmp(l->b, y)) || (!strcmp(l->a, y) && !strcmp(l->b, x)))
            direct += l->count;
    }
    sa = switch_links(node, x);
    sb = switch_links(node, y);
    return direct + (sa < sb ? sa : sb);
}

int topo_node_add_bridge(struct topo_node *node, const char *busid, int up)
{
    struct topo_bridge *b;

    for (size_t i = 0; i < node->nbridges; i++)
        if (!strcmp(node->bridges[i].busid, busid)) {
            if (node->bridges[i].up < 0 && up != (int)i)
                node->bridges[i].up = up;
            return (int)i;
        }
    xgrow(&node->bridges, &node->bridges_alloc, node->nbridges + 1, sizeof(*node->bridges));
    b = &node->bridges[node->nbridges];
    memset(b, 0, sizeof(*b));
    snprintf(b->busid, sizeof(b->busid), "%s", busid);
    b->up = up;
    topo_pcie_link_init(&b->link);
    return (int)node->nbridges++;
}

double topo_link_gbytes(const struct topo_pcie_link *link, int current)
{
    double g;

    if (current) {
        if ((g = topo_pci_link_gbytes(link->cur_gen, link->cur_width)) > 0)
            return g;
        if (link->cur_gbytes > 0)
            return link->cur_gbytes;
    }
    return topo_pci_link_gbytes(link->max_gen, link->max_width);
}

double topo_bridge_gbytes(const struct topo_node *node, int b, int below)
{
    const struct topo_bridge *x;

    if (b < 0 || (size_t)b >= node->nbridges)
        return -1;
    x = &node->bridges[b];
    return topo_link_gbytes(&x->link, !(below && x->faces_down));
}

static void lower(int *dst, int v)
{
    if (v > 0 && (*dst == 0 || v < *dst))
        *dst = v;
}

int topo_node_host_link(const struct topo_node *node, const struct topo_pciloc *loc,
                        const struct topo_pcie_link *own, double *gbytes, int *gen, int *width)
{
    int best = -2, g = 0, w = 0, hops = 0;
    double min = -1, v;

    /* the device's own link as it can train: a GPU drops its speed when idle */
    if (own && (v = topo_link_gbytes(own, 0)) > 0) {
        min = v;
        best = -1;
    }
    if (own) {
        lower(&g, own->max_gen > 0 ? own->max_gen : own->cur_gen);
        lower(&w, own->cur_width > 0 ? own->cur_width : own->max_width);
    }
    /* hops bounds a cycle a damaged input could make */
    for (int b = loc->up; b >= 0 && (size_t)b < node->nbridges && hops < 64;
         b = node->bridges[b].up, hops++) {
        const struct topo_pcie_link *l = &node->bridges[b].link;
        int mine = b == loc->up && node->bridges[b].faces_down;
        if ((v = topo_bridge_gbytes(node, b, b == loc->up)) > 0 && (min < 0 || v < min)) {
            min = v;
            best = b;
        }
        lower(&g, l->cur_gen > 0 && !mine ? l->cur_gen : l->max_gen);
        lower(&w, l->cur_width > 0 ? l->cur_width : l->max_width);
    }
    if (gbytes)
        *gbytes = min;
    if (gen)
        *gen = g;
    if (width)
        *width = w;
    return best;
}

int topo_node_switch_id(struct topo_node *node, const char *busid)
{
    for (size_t i = 0; i < node->nswitches; i++)
        if (!strcmp(node->switch_ids[i], busid))
            return (int)i;
    xgrow(&node->switch_ids, &node->switches_alloc, node->nswitches + 1, sizeof(*node->switch_ids));
    node->switch_ids[node->nswitches] = xstrdup(busid);
    return (int)node->nswitches++;
}

void topo_node_add_source(struct topo_node *node, const char *fmt, ...)
{
    char *s, *joined;
    va_list ap;

    va_start(ap, fmt);
    s = xvasprintf(fmt, ap);
    va_end(ap);
    if (node->sources) {
        joined = xasprintf("%s, %s", node->sources, s);
        free(node->sources);
        free(s);
        node->sources = joined;
    } else
        node->sources = s;
}

struct topo_gpu *topo_node_gpu_by_busid(struct topo_node *node, const char *busid)
{
    for (size_t i = 0; i < node->ngpus; i++)
        if (node->gpus[i].loc.busid[0] && !strcmp(node->gpus[i].loc.busid, busid))
            return &node->gpus[i];
    return NULL;
}

struct topo_nic *topo_node_nic_by_busid(struct topo_node *node, const char *busid)
{
    for (size_t i = 0; i < node->nnics; i++)
        if (node->nics[i].loc.busid[0] && !strcmp(node->nics[i].loc.busid, busid))
            return &node->nics[i];
    return NULL;
}

struct topo_nic *topo_node_nic_by_name(struct topo_node *node, const char *name)
{
    for (size_t i = 0; i < node->nnics; i++)
        if (node->nics[i].name && !strcmp(node->nics[i].name, name))
            return &node->nics[i];
    return NULL;
}

struct topo_netdev *topo_node_netdev_by_name(struct topo_node *node, const char *name)
{
    for (size_t i = 0; i < node->nnetdevs; i++)
        if (!strcmp(node->netdevs[i].name, name))
            return &node->netdevs[i];
    return NULL;
}

static int gpu_cmp(const void *a, const void *b)
{
    const struct topo_gpu *x = a, *y = b;
    int c = strcmp(x->loc.busid, y->loc.busid);

    /* GPUs without an address (nvidia-smi text) keep the order they were read in */
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int nic_cmp(const void *a, const void *b)
{
    const struct topo_nic *x = a, *y = b;

    /* RDMA devices first (they are the rails), then plain NICs */
    if (x->rdma != y->rdma)
        return y->rdma - x->rdma;
    return ry_natcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int netdev_cmp(const void *a, const void *b)
{
    const struct topo_netdev *x = a, *y = b;

    return ry_natcmp(x->name, y->name);
}

void topo_node_sort(struct topo_node *node)
{
    int addressed = 1;

    /* GPUs are numbered in PCI order; GPUs read from nvidia-smi text have no address and keep
     * the numbers nvidia-smi gave them */
    for (size_t i = 0; i < node->ngpus; i++)
        addressed &= node->gpus[i].loc.busid[0] != '\0';
    if (node->ngpus > 1 && addressed)
        qsort(node->gpus, node->ngpus, sizeof(*node->gpus), gpu_cmp);
    for (size_t i = 0; i < node->ngpus && addressed; i++)
        node->gpus[i].index = (int)i;
    if (node->nnics > 1)
        qsort(node->nics, node->nnics, sizeof(*node->nics), nic_cmp);
    if (node->nnetdevs > 1)
        qsort(node->netdevs, node->nnetdevs, sizeof(*node->netdevs), netdev_cmp);
}

enum topo_path topo_path_classify(const struct topo_pciloc *a, const struct topo_pciloc *b)
{
    /* The lowest common switch is the first one of a's chain found in b's chain. */
    for (int i = 0; i < a->nswitch; i++)
        for (int j = 0; j < b->nswitch; j++)
            if (a->switches[i] == b->switches[j])
                return i + j + 1 == 1 ? TOPO_PATH_PIX : TOPO_PATH_PXB;
    if (a->hostbridge >= 0 && a->hostbridge == b->hostbridge)
        return TOPO_PATH_PHB;
    if (a->numa >= 0 && b->numa >= 0)
        return a->numa == b->numa ? TOPO_PATH_NODE : TOPO_PATH_SYS;
    return TOPO_PATH_UNKNOWN;
}

enum topo_path topo_node_gpu_nic_path(const struct topo_node *node, size_t gpu, size_t nic)
{
    if (gpu >= node->ngpus || nic >= node->nnics)
        return TOPO_PATH_UNKNOWN;
    return topo_path_classify(&node->gpus[gpu].loc, &node->nics[nic].loc);
}

enum topo_path topo_node_gpu_gpu_path(const struct topo_node *node, size_t a, size_t b,
                                      int *nvcount)
{
    int n;

    if (nvcount)
        *nvcount = 0;
    if (a >= node->ngpus || b >= node->ngpus)
        return TOPO_PATH_UNKNOWN;
    if (a == b)
        return TOPO_PATH_SELF;
    if ((n = topo_node_nvlink_count(node, a, b)) > 0) {
        if (nvcount)
            *nvcount = n;
        return TOPO_PATH_NV;
    }
    return topo_path_classify(&node->gpus[a].loc, &node->gpus[b].loc);
}

static int nearest_nic(const struct topo_node *node, size_t gpu, int rdma_only)
{
    enum topo_path best = TOPO_PATH_UNKNOWN, p;
    int besti = -1;

    for (size_t n = 0; n < node->nnics; n++) {
        if (rdma_only && !node->nics[n].rdma)
            continue;
        p = topo_node_gpu_nic_path(node, gpu, n);
        if (p == TOPO_PATH_UNKNOWN)
            continue;
        if (besti < 0 || p < best) {
            best = p;
            besti = (int)n;
        }
    }
    return besti;
}

int topo_node_nearest_nic(const struct topo_node *node, size_t gpu)
{
    return nearest_nic(node, gpu, 0);
}

int topo_node_nearest_rdma_nic(const struct topo_node *node, size_t gpu)
{
    return nearest_nic(node, gpu, 1);
}

static const char *const path_names[] = {
    [TOPO_PATH_UNKNOWN] = "n/a", [TOPO_PATH_SELF] = "X",  [TOPO_PATH_NV] = "NV",
    [TOPO_PATH_PIX] = "PIX",     [TOPO_PATH_PXB] = "PXB", [TOPO_PATH_PHB] = "PHB",
    [TOPO_PATH_NODE] = "NODE",   [TOPO_PATH_SYS] = "SYS",
};

const char *topo_path_name(enum topo_path p)
{
    if ((size_t)p >= sizeof(path_names) / sizeof(path_names[0]))
        return "n/a";
    return path_names[p];
}

enum topo_path topo_path_parse(const char *s)
{
    if (!s)
        return TOPO_PATH_UNKNOWN;
    if (!strncmp(s, "NV", 2) && s[2] != '\0' && strspn(s + 2, "0123456789") == strlen(s + 2))
        return TOPO_PATH_NV;
    for (size_t i = TOPO_PATH_SELF; i < sizeof(path_names) / sizeof(path_names[0]); i++)
        if (!strcmp(s, path_names[i]))
            return (enum topo_path)i;
    return TOPO_PATH_UNKNOWN;
}

int topo_busid_normalize(const char *s, char out[TOPO_BUSID_LEN])
{
    unsigned long dom = 0;
    unsigned bus, dev, fn;
    char tail;

    if (!s)
        return -1;
    if (sscanf(s, "%lx:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) == 4) {
        /* NVML writes an 8-digit domain; PCI domains are 16 bits on Linux */
        if (dom > 0xffff)
            return -1;
    } else if (sscanf(s, "%2x:%2x.%1x%c", &bus, &dev, &fn, &tail) == 3) {
        dom = 0;
    } else
        return -1;
    if (bus > 0xff || dev > 0x1f || fn > 7)
        return -1;
    snprintf(out, TOPO_BUSID_LEN, "%04lx:%02x:%02x.%x", dom, bus, dev, fn);
    return 0;
}

int topo_nvtarget_normalize(const char *s, char out[TOPO_NVTARGET_LEN])
{
    unsigned long dom = 0;
    unsigned bus, dev, fn;
    char tail;

    if (!s)
        return -1;
    /* NCCL >= 2.31 writes the fabric as "fffffff:ffff:ff", which is no PCI address */
    if (!strncasecmp(s, "fffffff", 7) && strspn(s, "fF:.0") == strlen(s)) {
        snprintf(out, TOPO_NVTARGET_LEN, "ffffffff:ff:ff.0");
        return 0;
    }
    if (sscanf(s, "%lx:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &tail) != 4) {
        if (sscanf(s, "%2x:%2x.%1x%c", &bus, &dev, &fn, &tail) != 3)
            return -1;
        dom = 0;
    }
    if (dom > 0xffffffffUL || bus > 0xff || dev > 0x1f || fn > 7)
        return -1;
    snprintf(out, TOPO_NVTARGET_LEN, "%04lx:%02x:%02x.%x", dom, bus, dev, fn);
    return 0;
}

const char *topo_link_layer_name(enum topo_link_layer ll)
{
    switch (ll) {
    case TOPO_LL_INFINIBAND: return "InfiniBand";
    case TOPO_LL_ETHERNET: return "Ethernet";
    default: return NULL;
    }
}
