#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "common/xmalloc.h"
#include "readers/nccl.h"
#include "readers/pci_names.h"
#include "readers/xml.h"
#include "topo/pci.h"
#include "topo/reference.h"

static char *attr(xmlNodePtr n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    char *s;

    if (!v)
        return NULL;
    s = xstrdup((const char *)v);
    xmlFree(v);
    return s;
}

static int is(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, (const xmlChar *)name);
}

/* A hex attribute such as class="0x030200"; 0 when absent, all-zero or all-ones */
static unsigned hex_attr(xmlNodePtr n, const char *name)
{
    char *v = attr(n, name);
    unsigned long x = 0;

    if (v) {
        x = strtoul(v, NULL, 16);
        free(v);
    }
    return x == 0xffff || x == 0xffffffff ? 0 : (unsigned)x;
}

struct nvrow {
    char gpu[TOPO_BUSID_LEN];
    char target[TOPO_NVTARGET_LEN]; /* "" when it is not an address */
    unsigned tclass;
    int count;
};

struct walk {
    struct topo_node *node;
    const char *path;
    struct topo_pci_names *names;
    int numa;
    int nswitch;
    int switches[TOPO_MAX_SWITCH_DEPTH];
    int up;             /* the bridge (switch) the walk is in, -1 at a <cpu> */
    struct nvrow *rows; /* <nvlink> rows of every GPU */
    size_t nrows, rows_alloc;
    struct {
        char busid[TOPO_BUSID_LEN];
        int line;
    } * busids; /* every <pci> seen, to refuse one described twice */
    size_t nbusids, busids_alloc;
    ry_error_t *err;
};

static void fill_loc(struct walk *w, struct topo_pciloc *loc, const char *busid)
{
    topo_pciloc_init(loc);
    if (busid)
        topo_busid_normalize(busid, loc->busid);
    loc->numa = w->numa;
    loc->up = w->up;
    /* NCCL files carry no host bridges: devices under one CPU on different switches are NODE */
    loc->nswitch = w->nswitch;
    for (int i = 0; i < w->nswitch; i++)
        loc->switches[i] = w->switches[w->nswitch - 1 - i];
}

static void fill_link(xmlNodePtr pci, struct topo_pcie_link *link)
{
    char *speed = attr(pci, "link_speed"), *width = attr(pci, "link_width");
    double gts;

    /* NCCL records max_link_speed and max_link_width: the capability, not the trained link */
    if (speed && topo_pci_parse_gts(speed, &gts) == 0)
        link->max_gen = topo_pci_gen_from_gts(gts);
    if (width)
        link->max_width = atoi(width);
    free(speed);
    free(width);
}

static long long int_attr(xmlNodePtr n, const char *name, long long dflt)
{
    char *v = attr(n, name);
    long long x = dflt;

    if (v && *v)
        x = strtoll(v, NULL, 0);
    free(v);
    return x;
}

/* One NIC per <net>: NCCL puts the ports of a card (mlx5_0 and mlx5_1 on one GUID, or four
 * RDMA devices of one ConnectX-7 function) in one <nic>, but the machine has one RDMA device per
 * <net>, each with its port. pci is the NIC's <pci> element, NULL for a NIC without a PCI
 * device (a socket NIC, listed again under every <cpu>: those are kept once). */
static void add_nics(struct walk *w, xmlNodePtr pci, xmlNodePtr nicel, const char *busid)
{
    unsigned cls = pci ? hex_attr(pci, "class") : 0, vendor = pci ? hex_attr(pci, "vendor") : 0;
    unsigned device = pci ? hex_attr(pci, "device") : 0;
    size_t nets = 0;

    for (xmlNodePtr c = nicel ? nicel->children : NULL; c; c = c->next)
        nets += is(c, "net");
    for (xmlNodePtr c = nicel && nets ? nicel->children : NULL;; c = c ? c->next : NULL) {
        struct topo_nic *n;
        struct topo_port *p;
        char *name = NULL;
        long long port;
        if (c && !is(c, "net"))
            continue;
        if (!c && nets)
            break;
        if (c && !pci && (name = attr(c, "name"))) {
            struct topo_nic *seen = topo_node_nic_by_name(w->node, name);
            if (seen && !seen->loc.busid[0]) {
                seen->loc.numa = -1; /* under several CPUs: its NUMA node is not known */
                free(name);
                continue;
            }
        } else if (c)
            name = attr(c, "name");
        n = topo_node_add_nic(w->node);
        n->name = name;
        fill_loc(w, &n->loc, busid);
        if (pci) {
            n->pci_vendor = vendor;
            n->pci_device = device;
            n->pci_class = cls > 0xffff ? cls >> 8 : cls;
            n->model = topo_pci_lookup_name(w->names, vendor, device);
            fill_link(pci, &n->link);
            n->rdma = topo_pci_nic_is_rdma(cls, vendor, device);
        }
        if (!c)
            break; /* a NIC NCCL did not describe */
        port = int_attr(c, "port", 0);
        /* without a PCI device, what the transport says: verbs ports count from 1, NCCL's
         * socket transport reports port 0 */
        if (!pci)
            n->rdma = port >= 1;
        p = topo_nic_add_port(n);
        p->num = (int)port;
        if ((port = int_attr(c, "speed", -1)) >= 0)
            p->rate_gbps = (double)port / 1000.0; /* NCCL writes Mb/s */
        if (n->rdma) {
            char *guid = attr(c, "guid");
            if (guid && strtoull(guid, NULL, 16) != 0)
                n->node_guid = guid;
            else
                free(guid);
        }
    }
}

/* NVLink rows of a <gpu>: the GPU's total here, the links themselves once the whole file is
 * read (a target may be a GPU listed further down) */
static void add_gpu_links(struct walk *w, struct topo_gpu *g, xmlNodePtr gpuel)
{
    int total = 0;

    for (xmlNodePtr c = gpuel->children; c; c = c->next) {
        struct nvrow *r;
        char *target, *count;
        int n;
        if (is(c, "c2c") || is(c, "xgmi")) {
            /* the GPU reaches the CPU over NVLink-C2C; an AMD GPU (RCCL's dump) its peers over
             * xGMI */
            count = attr(c, "count");
            n = count && atoi(count) > 0 ? atoi(count) : 0;
            if (is(c, "c2c"))
                g->c2c_links += n;
            else
                g->xgmi_links += n;
            free(count);
            continue;
        }
        if (!is(c, "nvlink"))
            continue;
        target = attr(c, "target");
        count = attr(c, "count");
        n = count ? atoi(count) : 0;
        if (n > 0) {
            total += n;
            xgrow(&w->rows, &w->rows_alloc, w->nrows + 1, sizeof(*w->rows));
            r = &w->rows[w->nrows++];
            snprintf(r->gpu, sizeof(r->gpu), "%s", g->loc.busid);
            if (!target || topo_nvtarget_normalize(target, r->target) < 0)
                r->target[0] = '\0';
            r->tclass = hex_attr(c, "tclass");
            r->count = n;
        }
        free(target);
        free(count);
    }
    /* NCCL writes a row per peer an active link leads to: a <gpu> without rows has none up */
    g->nvlink_links = total;
}

/* NCCL's classes of NVLink targets: 0x03xxxx a GPU, 0x068000 an NVSwitch, 0x068001 the CPU
 * (POWER). A row without a class leads to a GPU when its target is one. */
static void resolve_nvlinks(struct walk *w)
{
    for (size_t i = 0; i < w->nrows; i++) {
        const struct nvrow *r = &w->rows[i];
        int to_gpu =
            (r->tclass >> 16) == 0x03 || (!r->tclass && topo_node_gpu_by_busid(w->node, r->target));
        if (!r->target[0] || !strcmp(r->target, r->gpu))
            continue;
        if (to_gpu) {
            /* both GPUs list the same links: take each pair once, the larger of its two rows */
            int back = 0;
            if (!topo_node_gpu_by_busid(w->node, r->target))
                continue;
            for (size_t j = 0; j < w->nrows; j++)
                if (!strcmp(w->rows[j].gpu, r->target) && !strcmp(w->rows[j].target, r->gpu))
                    back = w->rows[j].count;
            if (back > r->count || (back == r->count && strcmp(r->gpu, r->target) > 0))
                continue;
            topo_node_add_nvlink(w->node, r->gpu, r->target, r->count);
        } else if (r->tclass == 0x068000 || !r->tclass)
            topo_node_add_switch_nvlink(w->node, r->gpu, r->target, r->count);
    }
}

/* The line of an earlier <pci> element with the same address, 0 when none */
static int seen_busid(struct walk *w, const char *busid, int line)
{
    for (size_t i = 0; i < w->nbusids; i++)
        if (!strcmp(w->busids[i].busid, busid))
            return w->busids[i].line;
    xgrow(&w->busids, &w->busids_alloc, w->nbusids + 1, sizeof(*w->busids));
    snprintf(w->busids[w->nbusids].busid, TOPO_BUSID_LEN, "%s", busid);
    w->busids[w->nbusids++].line = line;
    return 0;
}

static int walk_children(struct walk *w, xmlNodePtr parent);

/* PUs in an affinity mask as NCCL writes it ("0000ffff,ffffffff": 32-bit words, highest first),
 * -1 when it is not one */
static int mask_weight(const char *mask)
{
    int n = 0;

    if (!mask || !*mask)
        return -1;
    for (const char *p = mask; *p; p++) {
        int v;
        if (*p == ',')
            continue;
        if (*p >= '0' && *p <= '9')
            v = *p - '0';
        else if ((*p | 32) >= 'a' && (*p | 32) <= 'f')
            v = (*p | 32) - 'a' + 10;
        else
            return -1;
        n += (v & 1) + ((v >> 1) & 1) + ((v >> 2) & 1) + ((v >> 3) & 1);
    }
    return n;
}

/* A <cpu>: its NUMA node's PUs from the affinity mask, the CPU model from vendor, family and
 * model (x86; NCCL writes only the architecture on arm64 and POWER) */
static void read_cpu(struct walk *w, xmlNodePtr cpu)
{
    char *mask = attr(cpu, "affinity"), *vendor = attr(cpu, "vendor"), *arch = attr(cpu, "arch");
    int pus = mask_weight(mask);

    if (w->numa >= 0) {
        struct topo_numa *m = topo_node_add_numa(w->node, w->numa);
        if (pus > 0)
            m->npus = pus;
    }
    if (!w->node->cpu_model && (vendor || arch))
        w->node->cpu_model = topo_cpu_model_name(vendor, (int)int_attr(cpu, "familyid", -1),
                                                 (int)int_attr(cpu, "modelid", -1), arch);
    free(mask);
    free(vendor);
    free(arch);
}

static int walk_pci(struct walk *w, xmlNodePtr pci)
{
    char *busid = attr(pci, "busid");
    unsigned cls = hex_attr(pci, "class"), vendor = hex_attr(pci, "vendor");
    enum topo_pci_kind kind = topo_pci_classify_device(cls, vendor, hex_attr(pci, "device"));
    xmlNodePtr gpuel = NULL, nicel = NULL;
    int has_pci_child = 0, rc = 0, dup;
    char nb[TOPO_BUSID_LEN];

    if (!busid || topo_busid_normalize(busid, nb) < 0) {
        errno = EINVAL;
        rc = ry_errorf(w->err, "%s:%d: <pci> busid '%s' is not a PCI address", w->path, pci->line,
                       busid ? busid : "");
        free(busid);
        return rc;
    }
    if ((dup = seen_busid(w, nb, pci->line)) > 0) {
        errno = EINVAL;
        rc = ry_errorf(w->err,
                       "%s:%d: PCI address %s is described twice (first at line %d): two hosts' "
                       "topologies in one file?",
                       w->path, pci->line, nb, dup);
        free(busid);
        return rc;
    }
    for (xmlNodePtr c = pci->children; c; c = c->next) {
        if (is(c, "pci"))
            has_pci_child = 1;
        else if (is(c, "gpu"))
            gpuel = c;
        else if (is(c, "nic"))
            nicel = c;
    }
    if (gpuel)
        kind = TOPO_PCI_GPU;
    else if (nicel && kind != TOPO_PCI_NIC_IB)
        kind = TOPO_PCI_NIC_ETH;

    if (kind == TOPO_PCI_BRIDGE || has_pci_child) {
        /* NCCL keeps one <pci> per switch (the upstream port) */
        if (w->nswitch >= TOPO_MAX_SWITCH_DEPTH) {
            errno = E2BIG;
            rc = ry_errorf(w->err, "%s:%d: PCI switches nested deeper than %d", w->path, pci->line,
                           TOPO_MAX_SWITCH_DEPTH);
        } else {
            int saved = w->up, b = topo_node_add_bridge(w->node, nb, w->up);
            /* NCCL's link of a switch: its upstream link, the lower of both ends' capability */
            fill_link(pci, &w->node->bridges[b].link);
            w->up = b;
            w->switches[w->nswitch++] = topo_node_switch_id(w->node, nb);
            rc = walk_children(w, pci);
            w->nswitch--;
            w->up = saved;
        }
    } else if (kind == TOPO_PCI_GPU) {
        struct topo_gpu *g = topo_node_add_gpu(w->node);
        g->pci_vendor = vendor;
        g->pci_device = hex_attr(pci, "device");
        g->vendor = xstrdup(topo_pci_vendor_name(vendor));
        g->model = topo_pci_lookup_name(w->names, vendor, g->pci_device);
        fill_loc(w, &g->loc, busid);
        fill_link(pci, &g->link);
        if (gpuel) {
            /* a compute capability (10 x major + minor) is 10 or more: anything else ("0", a
             * word strtoll reads as 0) is unknown, never a kind two GPUs share */
            long long sm = int_attr(gpuel, "sm", -1);
            char *gcn = attr(gpuel, "gcn");
            /* RCCL writes an AMD GPU's architecture there (sm="942" beside gcn="gfx942"): no
             * compute capability */
            g->sm = sm >= 10 && sm < 10000 && !gcn ? (int)sm : -1;
            free(gcn);
            add_gpu_links(w, g, gpuel);
        }
    } else if (kind == TOPO_PCI_NIC_IB || kind == TOPO_PCI_NIC_ETH) {
        add_nics(w, pci, nicel, busid);
    }
    free(busid);
    return rc;
}

static int walk_children(struct walk *w, xmlNodePtr parent)
{
    for (xmlNodePtr c = parent->children; c; c = c->next) {
        if (is(c, "pci")) {
            if (walk_pci(w, c) < 0)
                return -1;
        } else if (is(c, "nic")) {
            /* a NIC NCCL saw without a PCI device (socket or virtual) */
            add_nics(w, NULL, c, NULL);
        } else if (is(c, "cpu")) {
            char *numa = attr(c, "numaid");
            int saved = w->numa, saved_up = w->up;
            w->numa = numa ? atoi(numa) : -1;
            w->up = -1;
            free(numa);
            read_cpu(w, c);
            if (walk_children(w, c) < 0)
                return -1;
            w->numa = saved;
            w->up = saved_up;
        }
    }
    return 0;
}

/* A dump of several hosts (NCCL fuses the topologies of a multi-node NVLink domain, one host
 * hash per <cpu>) is not one node: refused, never merged into one node's GPUs. */
static int one_host(const char *path, xmlNodePtr root, ry_error_t *err)
{
    char *first = NULL, *other = NULL;
    int first_line = 0, other_line = 0, hosts = 0, rc = 0;

    for (xmlNodePtr c = root->children; c; c = c->next) {
        char *h;
        if (!is(c, "cpu") || !(h = attr(c, "host_hash")))
            continue;
        if (!first) {
            first = h, first_line = c->line, hosts = 1;
            continue;
        }
        if (strcmp(h, first) && (!other || strcmp(h, other))) {
            hosts++;
            if (!other) {
                other = h, other_line = c->line;
                continue;
            }
        }
        free(h);
    }
    if (hosts > 1) {
        /* the hashes as numbers: the file's own text is not echoed */
        errno = EINVAL;
        rc = ry_errorf(err,
                       "%s:%d: the dump describes %d hosts (host_hash 0x%llx at line %d, 0x%llx "
                       "at line %d): NCCL writes the topology of a multi-node NVLink domain so; "
                       "give one host's topology (a dump taken with that host alone)",
                       path, other_line, hosts, strtoull(first, NULL, 0), first_line,
                       strtoull(other, NULL, 0), other_line);
    }
    free(first);
    free(other);
    return rc;
}

int topo_nccl_discover(struct topo_node *node, const char *path, ry_error_t *err)
{
    struct walk w = { .node = node, .path = path, .numa = -1, .up = -1, .err = err };
    xmlDocPtr doc;
    xmlNodePtr root;
    int rc = -1;

    if (!(doc = topo_xml_read(path, err)))
        return -1;
    root = xmlDocGetRootElement(doc);
    if (root && is(root, "graphs")) {
        errno = EINVAL;
        ry_errorf(err,
                  "%s:%d: this is an NCCL graph file (<graphs>, as NCCL_GRAPH_DUMP_FILE "
                  "writes), not a topology: give the file NCCL_TOPO_DUMP_FILE writes",
                  path, root->line);
        goto out;
    }
    if (!root || !is(root, "system")) {
        errno = EINVAL;
        ry_errorf(err, "%s:%d: root element is <%s>, expected an NCCL topology <system>", path,
                  root ? root->line : 1, root ? (const char *)root->name : "");
        goto out;
    }
    if (one_host(path, root, err) < 0)
        goto out;
    w.names = topo_pci_names_open();
    if (walk_children(&w, root) < 0)
        goto out;
    resolve_nvlinks(&w);
    node->npus = 0;
    for (size_t i = 0; i < node->nnuma && node->npus >= 0; i++)
        node->npus = node->numa[i].npus > 0 ? node->npus + node->numa[i].npus : -1;
    if (node->nnuma == 0)
        node->npus = -1;
    /* NICs NCCL did not name get nic0, nic1... in PCI address order, as GPUs are numbered */
    for (size_t k = 0;; k++) {
        struct topo_nic *next = NULL;
        for (size_t i = 0; i < node->nnics; i++)
            if (!node->nics[i].name &&
                (!next || strcmp(node->nics[i].loc.busid, next->loc.busid) < 0))
                next = &node->nics[i];
        if (!next)
            break;
        next->name = xasprintf("nic%zu", k);
    }
    /* NCCL writes its dump on a node with GPUs: a file without one is a static topology that
     * leaves them out (as cloud images ship for NCCL_TOPO_FILE), which says nothing of them */
    node->gpus_listed = node->ngpus > 0;
    node->nics_listed = 1;
    topo_node_add_source(node, "nccl-topo %s", path);
    rc = 0;
out:
    topo_pci_names_close(w.names);
    free(w.rows);
    free(w.busids);
    xmlFreeDoc(doc);
    return rc;
}
