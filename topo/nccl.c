#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "src/common/xmalloc.h"
#include "topo/nccl.h"
#include "topo/pci.h"

struct xml_errors {
    char first[400];
    int line;
};

/* libxml2 would print parse errors on stderr; keep the first one for our own message */
static void collect_error(void *ctx, xmlErrorPtr e)
{
    struct xml_errors *x = ctx;
    size_t n;

    if (!x || x->first[0] || !e || !e->message)
        return;
    snprintf(x->first, sizeof(x->first), "%s", e->message);
    n = strlen(x->first);
    while (n > 0 && (x->first[n - 1] == '\n' || x->first[n - 1] == ' '))
        x->first[--n] = '\0';
    x->line = e->line;
}

static xmlDocPtr read_doc(const char *path, ry_error_t *err)
{
    struct xml_errors x = { .first = "", .line = 0 };
    xmlDocPtr doc;
    FILE *f;

    if (!(f = fopen(path, "r")))
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno)), NULL;
    fclose(f);
    xmlSetStructuredErrorFunc(&x, collect_error);
    doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
    xmlSetStructuredErrorFunc(NULL, NULL);
    if (!doc) {
        errno = EINVAL;
        if (x.line > 0)
            ry_errorf(err, "%s:%d: malformed XML: %s", path, x.line,
                      x.first[0] ? x.first : "parse error");
        else
            ry_errorf(err, "%s: malformed XML: %s", path, x.first[0] ? x.first : "parse error");
    }
    return doc;
}

/* hwloc 3.x writes OS device types as a bitmask; hwloc 2.x as an enum */
static const char *osdev_v3_to_v2(unsigned long mask)
{
    static const struct {
        unsigned long bit;
        const char *v2;
    } map[] = {
        { 32, "3" }, /* OpenFabrics */
        { 8, "5" },  /* CoProcessor (CUDA, OpenCL) */
        { 4, "1" },  /* GPU */
        { 16, "2" }, /* Network */
        { 1, "0" },  /* Storage (Block) */
        { 2, "6" },  /* Memory */
        { 64, "4" }, /* DMA */
    };

    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (mask & map[i].bit)
            return map[i].v2;
    return "0";
}

static void downgrade_objects(xmlNodePtr n)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!xmlStrcmp(n->name, (const xmlChar *)"object")) {
            xmlChar *t = xmlGetProp(n, (const xmlChar *)"osdev_type");
            if (t) {
                xmlSetProp(n, (const xmlChar *)"osdev_type",
                           (const xmlChar *)osdev_v3_to_v2(strtoul((const char *)t, NULL, 10)));
                xmlFree(t);
            }
        }
        downgrade_objects(n->children);
    }
}

int topo_hwloc_xml_prepare(const char *path, char **buf, int *len, ry_error_t *err)
{
    xmlDocPtr doc;
    xmlNodePtr root;
    xmlChar *version, *out = NULL;
    int rc = 0;

    *buf = NULL;
    *len = 0;
    if (!(doc = read_doc(path, err)))
        return -1;
    root = xmlDocGetRootElement(doc);
    if (!root || xmlStrcmp(root->name, (const xmlChar *)"topology")) {
        errno = EINVAL;
        rc = ry_errorf(err, "%s:%d: root element is <%s>, expected an hwloc <topology>", path,
                       root ? root->line : 1, root ? (const char *)root->name : "");
        goto out;
    }
    version = xmlGetProp(root, (const xmlChar *)"version");
    if (version && atoi((const char *)version) >= 3) {
        xmlSetProp(root, (const xmlChar *)"version", (const xmlChar *)"2.0");
        downgrade_objects(root->children);
        xmlDocDumpMemory(doc, &out, len);
        if (!out) {
            errno = ENOMEM;
            rc = ry_errorf(err, "%s: cannot convert hwloc %s XML", path, (const char *)version);
        } else {
            *buf = (char *)out;
            rc = 1;
        }
    }
    xmlFree(version);
out:
    xmlFreeDoc(doc);
    return rc;
}

void topo_xml_buffer_free(char *buf)
{
    xmlFree(buf);
}

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

struct walk {
    struct topo_node *node;
    const char *path;
    struct topo_pci_names *names;
    int numa;
    int nswitch;
    int switches[TOPO_MAX_SWITCH_DEPTH];
    /* GPUs attached to NVSwitches, with their link counts */
    char (*nvs_gpu)[TOPO_BUSID_LEN];
    int *nvs_count;
    size_t nnvs;
    ry_error_t *err;
};

static void fill_loc(struct walk *w, struct topo_pciloc *loc, const char *busid)
{
    topo_pciloc_init(loc);
    if (busid)
        topo_busid_normalize(busid, loc->busid);
    loc->numa = w->numa;
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

static void add_nic_nets(struct topo_nic *nic, xmlNodePtr nicel)
{
    for (xmlNodePtr c = nicel->children; c; c = c->next) {
        struct topo_port *p;
        char *v;
        if (!is(c, "net"))
            continue;
        p = topo_nic_add_port(nic);
        if ((v = attr(c, "port"))) {
            p->num = atoi(v);
            free(v);
        }
        if ((v = attr(c, "speed"))) {
            p->rate_gbps = atof(v) / 1000.0; /* NCCL writes Mb/s */
            free(v);
        }
        if ((v = attr(c, "name"))) {
            if (!nic->name)
                nic->name = xstrdup(v);
            free(v);
        }
        if ((v = attr(c, "guid"))) {
            if (strtoull(v, NULL, 16) != 0) {
                nic->rdma = 1;
                if (!nic->node_guid)
                    nic->node_guid = xstrdup(v);
            }
            free(v);
        }
    }
}

static void add_gpu_links(struct walk *w, struct topo_gpu *g, xmlNodePtr gpuel)
{
    int total = 0;

    for (xmlNodePtr c = gpuel->children; c; c = c->next) {
        char *target, *count;
        char tb[TOPO_BUSID_LEN];
        unsigned tclass;
        int n;
        if (!is(c, "nvlink"))
            continue;
        target = attr(c, "target");
        count = attr(c, "count");
        tclass = hex_attr(c, "tclass");
        n = count ? atoi(count) : 0;
        total += n;
        if (target && topo_busid_normalize(target, tb) == 0 && n > 0) {
            if ((tclass >> 8) == 0x0680) {
                /* NVSwitch: every GPU on the switch fabric is a peer */
                w->nvs_gpu = xrealloc(w->nvs_gpu, (w->nnvs + 1) * sizeof(*w->nvs_gpu));
                w->nvs_count = xrealloc(w->nvs_count, (w->nnvs + 1) * sizeof(*w->nvs_count));
                snprintf(w->nvs_gpu[w->nnvs], TOPO_BUSID_LEN, "%s", g->loc.busid);
                w->nvs_count[w->nnvs++] = n;
            } else if ((tclass >> 16) == 0x03 && strcmp(tb, g->loc.busid) != 0) {
                /* both GPUs list the link: count it once, from the lower address */
                if (strcmp(g->loc.busid, tb) < 0)
                    topo_node_add_nvlink(w->node, g->loc.busid, tb, n);
            }
        }
        free(target);
        free(count);
    }
    if (total > 0)
        g->nvlink_links = total;
}

static int walk_children(struct walk *w, xmlNodePtr parent);

static int walk_pci(struct walk *w, xmlNodePtr pci)
{
    char *busid = attr(pci, "busid");
    unsigned cls = hex_attr(pci, "class"), vendor = hex_attr(pci, "vendor");
    enum topo_pci_kind kind = topo_pci_classify_device(cls, vendor, hex_attr(pci, "device"));
    xmlNodePtr gpuel = NULL, nicel = NULL;
    int has_pci_child = 0, rc = 0;
    char nb[TOPO_BUSID_LEN];

    if (!busid || topo_busid_normalize(busid, nb) < 0) {
        errno = EINVAL;
        rc = ry_errorf(w->err, "%s:%d: <pci> busid '%s' is not a PCI address", w->path, pci->line,
                       busid ? busid : "");
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
            w->switches[w->nswitch++] = topo_node_switch_id(w->node, nb);
            rc = walk_children(w, pci);
            w->nswitch--;
        }
    } else if (kind == TOPO_PCI_GPU) {
        struct topo_gpu *g = topo_node_add_gpu(w->node);
        g->pci_vendor = vendor;
        g->pci_device = hex_attr(pci, "device");
        g->vendor = xstrdup(topo_pci_vendor_name(vendor));
        g->model = topo_pci_lookup_name(w->names, vendor, g->pci_device);
        fill_loc(w, &g->loc, busid);
        fill_link(pci, &g->link);
        if (gpuel)
            add_gpu_links(w, g, gpuel);
    } else if (kind == TOPO_PCI_NIC_IB || kind == TOPO_PCI_NIC_ETH) {
        struct topo_nic *n = topo_node_add_nic(w->node);
        n->pci_vendor = vendor;
        n->pci_device = hex_attr(pci, "device");
        n->pci_class = cls > 0xffff ? cls >> 8 : cls;
        n->rdma = kind == TOPO_PCI_NIC_IB || vendor == TOPO_PCI_VENDOR_AMAZON;
        n->model = topo_pci_lookup_name(w->names, vendor, n->pci_device);
        fill_loc(w, &n->loc, busid);
        fill_link(pci, &n->link);
        if (nicel)
            add_nic_nets(n, nicel);
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
            struct topo_nic *n = topo_node_add_nic(w->node);
            fill_loc(w, &n->loc, NULL);
            add_nic_nets(n, c);
        } else if (is(c, "cpu")) {
            char *numa = attr(c, "numaid");
            int saved = w->numa;
            w->numa = numa ? atoi(numa) : -1;
            free(numa);
            if (w->numa >= 0)
                topo_node_add_numa(w->node, w->numa);
            if (walk_children(w, c) < 0)
                return -1;
            w->numa = saved;
        }
    }
    return 0;
}

int topo_nccl_discover(struct topo_node *node, const char *path, ry_error_t *err)
{
    struct walk w = { .node = node, .path = path, .numa = -1, .err = err };
    xmlDocPtr doc;
    xmlNodePtr root;
    int rc = -1;

    if (!(doc = read_doc(path, err)))
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
    w.names = topo_pci_names_open();
    if (walk_children(&w, root) < 0)
        goto out;
    for (size_t i = 0; i < w.nnvs; i++)
        for (size_t j = i + 1; j < w.nnvs; j++)
            topo_node_add_nvlink(node, w.nvs_gpu[i], w.nvs_gpu[j],
                                 w.nvs_count[i] < w.nvs_count[j] ? w.nvs_count[i] : w.nvs_count[j]);
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
    node->gpus_listed = node->nics_listed = 1;
    topo_node_add_source(node, "nccl-topo %s", path);
    rc = 0;
out:
    topo_pci_names_close(w.names);
    free(w.nvs_gpu);
    free(w.nvs_count);
    xmlFreeDoc(doc);
    return rc;
}
