#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/xmalloc.h"
#include "topo/compare.h"
#include "topo/reference.h"

const char *const topo_check_ids[] = {
    "gpu.count",
    "gpu.model",
    "gpu.pcie.gen",
    "gpu.pcie.width",
    "nvlink.state",
    "nic.count",
    "nic.port.state",
    "nic.port.phys_state",
    "nic.port.rate",
    "nic.port.link_layer",
    "affinity.path",
    "affinity.numa",
    "rail.assignment",
    "link.bandwidth",
    "link.path",
    "link.unreachable",
    "link.errors",
    "rail.cabling",
    "rank.failed",
    "link.width",
    "link.speed",
    "link.state",
    "fabric.link.missing",
    "fabric.link.extra",
    "fabric.link.moved",
    "fabric.desc.duplicate",
    "fabric.discovery.incomplete",
    "port.errors",
    "port.errors.rising",
    "gdr.driver",
    "gdr.path",
    "gdr.acs",
    "gdr.dmabuf",
    NULL,
};

int topo_check_id_known(const char *id)
{
    size_t n = strlen(id);

    for (size_t i = 0; topo_check_ids[i]; i++) {
        if (!strcmp(id, topo_check_ids[i]))
            return 1;
        if (n > 0 && id[n - 1] == '.' && !strncmp(id, topo_check_ids[i], n))
            return 1;
    }
    return 0;
}

void topo_findings_add(struct topo_findings *f, enum topo_sev sev, const char *check,
                       const char *subject, const char *expected, const char *observed,
                       const char *hint)
{
    struct topo_finding *x;

    xgrow(&f->v, &f->alloc, f->n + 1, sizeof(*f->v));
    x = &f->v[f->n++];
    x->sev = sev;
    x->check = xstrdup(check);
    x->subject = xstrdup(subject);
    x->expected = xstrdup(expected);
    x->observed = xstrdup(observed);
    x->hint = xstrdup(hint);
    if (sev == TOPO_SEV_FAIL)
        f->nfail++;
    else if (sev == TOPO_SEV_WARN)
        f->nwarn++;
    else
        f->nok++;
}

static int finding_cmp(const void *a, const void *b)
{
    const struct topo_finding *x = a, *y = b;
    int c;

    if (x->sev != y->sev)
        return x->sev > y->sev ? -1 : 1;
    if ((c = strcmp(x->check, y->check)) != 0)
        return c;
    return x < y ? -1 : x > y;
}

void topo_findings_sort(struct topo_findings *f)
{
    /* qsort is not stable: the address tie-break above keeps insertion order only when the
     * array is sorted once, so copy indexes in */
    struct {
        struct topo_finding f;
        size_t i;
    } * tmp;

    if (f->n < 2)
        return;
    tmp = xcalloc(f->n, sizeof(*tmp));
    for (size_t i = 0; i < f->n; i++) {
        tmp[i].f = f->v[i];
        tmp[i].i = i;
    }
    qsort(tmp, f->n, sizeof(*tmp), finding_cmp);
    for (size_t i = 0; i < f->n; i++)
        f->v[i] = tmp[i].f;
    free(tmp);
}

void topo_findings_free(struct topo_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].check);
        free(f->v[i].subject);
        free(f->v[i].expected);
        free(f->v[i].observed);
        free(f->v[i].hint);
    }
    free(f->v);
    memset(f, 0, sizeof(*f));
}

/* ---- the checks ---- */

struct ctx {
    const struct topo_node *node;
    const char *host;
    const struct topo_map *map;
    const struct map_node_type *type;
    struct topo_findings *out;
};

static enum topo_sev override(const struct map_severity *s, size_t n, const char *check,
                              enum topo_sev sev)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(s[i].check);
        if (!strcmp(s[i].check, check) ||
            (len && s[i].check[len - 1] == '.' && !strncmp(s[i].check, check, len)))
            sev = s[i].sev;
    }
    return sev;
}

__attribute__((format(printf, 7, 8))) static void add(struct ctx *c, enum topo_sev sev,
                                                      const char *check, const char *expected,
                                                      const char *observed, const char *hint,
                                                      const char *subject_fmt, ...)
{
    char subject[256], rel[200];
    va_list ap;

    va_start(ap, subject_fmt);
    vsnprintf(rel, sizeof(rel), subject_fmt, ap);
    va_end(ap);
    snprintf(subject, sizeof(subject), "%s%s%s", c->host, rel[0] ? "/" : "", rel);
    topo_findings_add(c->out, sev, check, subject, expected, observed, hint);
}

static int listed(char **list, size_t n, const char *a, const char *b)
{
    for (size_t i = 0; i < n; i++)
        if ((a && !strcmp(list[i], a)) || (b && !strcmp(list[i], b)))
            return 1;
    return 0;
}

/* is NIC name (port, or the whole NIC when port < 0) on an ignore list? */
static int ignored(const struct ctx *c, const char *name, int port)
{
    char withport[160], withhost[320], hostport[320];

    snprintf(withport, sizeof(withport), "%s:%d", name, port);
    snprintf(withhost, sizeof(withhost), "%s/%s", c->host, name);
    snprintf(hostport, sizeof(hostport), "%s/%s:%d", c->host, name, port);
    if (c->type && listed(c->type->ignore, c->type->nignore, name, port > 0 ? withport : NULL))
        return 1;
    if (c->map && (listed(c->map->ignore, c->map->nignore, name, port > 0 ? withport : NULL) ||
                   listed(c->map->ignore, c->map->nignore, withhost, port > 0 ? hostport : NULL)))
        return 1;
    return 0;
}

static void check_gpus(struct ctx *c)
{
    const struct topo_node *node = c->node;
    char e[64], o[64];

    if (c->type && c->type->gpu_count >= 0) {
        snprintf(e, sizeof(e), "%d", c->type->gpu_count);
        snprintf(o, sizeof(o), "%zu", node->ngpus);
        add(c, (int)node->ngpus == c->type->gpu_count ? TOPO_SEV_OK : TOPO_SEV_FAIL, "gpu.count", e,
            o,
            (int)node->ngpus < c->type->gpu_count
                ? "a GPU is missing: check nvidia-smi, dmesg for Xid 79 (fallen off the bus)"
                : NULL,
            "%s", "");
    }
    for (size_t i = 0; i < node->ngpus; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        const struct topo_gpu_ref *ref =
            topo_ref_gpu(c->type && c->type->gpu_model ? c->type->gpu_model : g->model);
        int egen, ewidth, elinks, ogen, owidth, olinks;

        if (c->type && c->type->gpu_model) {
            if (!g->model)
                add(c, TOPO_SEV_WARN, "gpu.model", c->type->gpu_model, NULL,
                    "the input does not name GPU models", "gpu%d", g->index);
            else
                add(c, strcmp(g->model, c->type->gpu_model) ? TOPO_SEV_FAIL : TOPO_SEV_OK,
                    "gpu.model", c->type->gpu_model, g->model, NULL, "gpu%d", g->index);
        }
        /* The generation is judged on the link's maximum (NVML reports the most the device
         * and the system allow); the current one drops when the GPU idles. */
        egen = c->type && c->type->pcie_gen > 0 ? c->type->pcie_gen : ref ? ref->pcie_gen : 0;
        ogen = g->link.max_gen > 0 ? g->link.max_gen : g->link.cur_gen;
        if (egen > 0 && ogen > 0) {
            snprintf(e, sizeof(e), "Gen%d", egen);
            snprintf(o, sizeof(o), "Gen%d", ogen);
            add(c, ogen < egen ? TOPO_SEV_FAIL : TOPO_SEV_OK, "gpu.pcie.gen", e, o,
                ogen < egen ? "the slot trained below the expected generation: reseat the GPU "
                              "or riser, check the BIOS PCIe speed setting"
                            : NULL,
                "gpu%d", g->index);
        }
        ewidth = c->type && c->type->pcie_width > 0 ? c->type->pcie_width
                 : ref                              ? ref->pcie_width
                                                    : 0;
        owidth = g->link.cur_width > 0 ? g->link.cur_width : g->link.max_width;
        if (ewidth > 0 && owidth > 0) {
            snprintf(e, sizeof(e), "x%d", ewidth);
            snprintf(o, sizeof(o), "x%d", owidth);
            add(c, owidth < ewidth ? TOPO_SEV_FAIL : TOPO_SEV_OK, "gpu.pcie.width", e, o,
                owidth < ewidth ? "lanes are missing: reseat the GPU, riser or cable" : NULL,
                "gpu%d", g->index);
        }
        elinks = c->type && c->type->nvlink_links >= 0 ? c->type->nvlink_links
                 : ref                                 ? ref->nvlink_links
                                                       : -1;
        olinks = g->nvlink_active >= 0 ? g->nvlink_active : g->nvlink_links;
        if (g->nvlink_links == 0 && elinks > 0 && !(c->type && c->type->nvlink_links >= 0)) {
            /* the driver shows no link at all: a VM given one GPU of a board, or NVLink off.
             * The model's reference alone does not fail the node for it; a map does. */
            snprintf(e, sizeof(e), "%d active", elinks);
            add(c, TOPO_SEV_WARN, "nvlink.state", e, "no NVLink exposed",
                "the GPU shows no NVLink (one GPU of a board in a VM, or NVLink disabled): "
                "set gpus.nvlink.links in the map to require them",
                "gpu%d", g->index);
        } else if (olinks >= 0 && (elinks >= 0 || (g->nvlink_active >= 0 && g->nvlink_links > 0))) {
            int want = elinks >= 0 ? elinks : g->nvlink_links;
            snprintf(e, sizeof(e), "%d active", want);
            snprintf(o, sizeof(o), "%d active", olinks);
            add(c, olinks < want ? TOPO_SEV_FAIL : TOPO_SEV_OK, "nvlink.state", e, o,
                olinks < want ? (olinks == 0 ? "all NVLinks are inactive: check the fabric "
                                               "manager and nvidia-smi nvlink --status"
                                             : "NVLinks are down: nvidia-smi nvlink --status, "
                                               "then reseat or replace the board")
                              : NULL,
                "gpu%d", g->index);
        }
    }
}

/* the most common rate among active ports like p (same link layer and HCA type), and how many
 * ports share it */
static double peer_rate(const struct topo_node *node, const struct topo_nic *nic,
                        const struct topo_port *p, int *count)
{
    double best = -1;
    int bestn = 0;

    for (size_t i = 0; i < node->nnics; i++)
        for (size_t j = 0; j < node->nics[i].nports; j++) {
            const struct topo_port *q = &node->nics[i].ports[j];
            int n = 0;
            if (q->state != 4 || q->rate_gbps < 0 || q->link_layer != p->link_layer ||
                (nic->hca_type && node->nics[i].hca_type &&
                 strcmp(nic->hca_type, node->nics[i].hca_type)))
                continue;
            for (size_t k = 0; k < node->nnics; k++)
                for (size_t l = 0; l < node->nics[k].nports; l++) {
                    const struct topo_port *r = &node->nics[k].ports[l];
                    n += r->state == 4 && r->rate_gbps == q->rate_gbps &&
                         r->link_layer == p->link_layer &&
                         !(nic->hca_type && node->nics[k].hca_type &&
                           strcmp(nic->hca_type, node->nics[k].hca_type));
                }
            if (n > bestn || (n == bestn && q->rate_gbps > best)) {
                bestn = n;
                best = q->rate_gbps;
            }
        }
    *count = bestn;
    return best;
}

static void check_port(struct ctx *c, const struct topo_nic *nic, const struct topo_port *p,
                       const struct map_nic *m)
{
    char e[64], o[96];
    const char *name = nic->name;

    if (p->state >= 0)
        add(c, p->state == 4 ? TOPO_SEV_OK : TOPO_SEV_FAIL, "nic.port.state", "ACTIVE",
            p->state_str ? p->state_str : "not active",
            p->state == 4   ? NULL
            : p->state == 2 ? "the port is up but the subnet manager has not configured it"
                            : "link down: check the cable, transceiver and switch port",
            "%s:%d", name, p->num);
    if (p->phys_state >= 0)
        add(c, p->phys_state == 5 ? TOPO_SEV_OK : TOPO_SEV_FAIL, "nic.port.phys_state", "LinkUp",
            p->phys_str ? p->phys_str : "not LinkUp",
            p->phys_state == 5   ? NULL
            : p->phys_state == 2 ? "Polling: no peer answers; check the cable and the switch port"
            : p->phys_state == 3 ? "Disabled: the port is administratively down"
                                 : "the physical link is not up",
            "%s:%d", name, p->num);
    if (m && m->link_layer != TOPO_LL_UNKNOWN && p->link_layer != TOPO_LL_UNKNOWN)
        add(c, m->link_layer == p->link_layer ? TOPO_SEV_OK : TOPO_SEV_FAIL, "nic.port.link_layer",
            topo_link_layer_name(m->link_layer), topo_link_layer_name(p->link_layer),
            m->link_layer == p->link_layer ? NULL
                                           : "the port runs the other protocol: set LINK_TYPE "
                                             "with mlxconfig",
            "%s:%d", name, p->num);
    if (p->state != 4 || p->rate_gbps < 0)
        return; /* the rate of a port that is not up means nothing */
    if (m && m->rate_gbps >= 0) {
        snprintf(e, sizeof(e), "%g Gb/s", m->rate_gbps);
        snprintf(o, sizeof(o), "%g Gb/s", p->rate_gbps);
        add(c, p->rate_gbps < m->rate_gbps ? TOPO_SEV_FAIL : TOPO_SEV_OK, "nic.port.rate", e, o,
            p->rate_gbps < m->rate_gbps ? "the link trained below its rate: check the cable, "
                                          "transceiver and the switch port speed"
                                        : NULL,
            "%s:%d", name, p->num);
        return;
    }
    /* no map value: an InfiniBand link below 4X, or a port slower than its peers */
    if (p->link_layer == TOPO_LL_INFINIBAND && p->width > 0 && p->width < 4 && p->speed) {
        double lane = topo_ref_ib_lane_gbps(p->speed);
        snprintf(e, sizeof(e), "4X %s", p->speed);
        if (lane > 0)
            snprintf(e, sizeof(e), "%g Gb/s (4X %s)", lane * 4, p->speed);
        snprintf(o, sizeof(o), "%g Gb/s (%dX %s)", p->rate_gbps, p->width, p->speed);
        add(c, TOPO_SEV_FAIL, "nic.port.rate", e, o,
            "the link trained with fewer lanes: check the cable and transceiver", "%s:%d", name,
            p->num);
        return;
    }
    {
        int peers;
        double want = peer_rate(c->node, nic, p, &peers);
        if (want < 0)
            return;
        snprintf(e, sizeof(e), "%g Gb/s (like %d port%s of this kind)", want, peers,
                 peers == 1 ? "" : "s");
        snprintf(o, sizeof(o), "%g Gb/s", p->rate_gbps);
        add(c, p->rate_gbps < want ? TOPO_SEV_FAIL : TOPO_SEV_OK, "nic.port.rate", e, o,
            p->rate_gbps < want ? "slower than its peers: the link trained at a lower speed or "
                                  "width"
                                : NULL,
            "%s:%d", name, p->num);
    }
}

static const struct topo_nic *nic_by_name(const struct topo_node *node, const char *name)
{
    for (size_t i = 0; i < node->nnics; i++)
        if (node->nics[i].name && !strcmp(node->nics[i].name, name))
            return &node->nics[i];
    return NULL;
}

static void check_nics(struct ctx *c)
{
    const struct topo_node *node = c->node;
    char e[64], o[64];
    size_t expected = 0, present = 0;

    for (size_t i = 0; i < node->nmissing_nics; i++)
        add(c, TOPO_SEV_FAIL, "nic.count", "present", "missing",
            "the input says the device is gone: check lspci and dmesg for mlx5_core errors", "%s",
            node->missing_nics[i]);
    if (c->type) {
        for (size_t i = 0; i < c->type->nnics; i++) {
            const struct map_nic *m = &c->type->nics[i];
            const struct topo_nic *nic;
            int seen = 0;
            for (size_t j = 0; j < i; j++)
                seen |= !strcmp(c->type->nics[j].name, m->name);
            if (ignored(c, m->name, -1))
                continue;
            if (!seen)
                expected++;
            if (!(nic = nic_by_name(node, m->name))) {
                int evidence = listed(node->missing_nics, node->nmissing_nics, m->name, NULL);
                if (!seen && !evidence)
                    add(c, TOPO_SEV_FAIL, "nic.count", "present", "missing",
                        "not found: check lspci, the driver and the firmware", "%s", m->name);
                continue;
            }
            if (!seen)
                present++;
            for (size_t p = 0; p < nic->nports; p++)
                if (nic->ports[p].num == m->port && !ignored(c, m->name, m->port))
                    check_port(c, nic, &nic->ports[p], m);
        }
        for (size_t n = 0; n < node->nnics; n++) {
            int inmap = 0;
            for (size_t i = 0; i < c->type->nnics; i++)
                inmap |= node->nics[n].name && !strcmp(c->type->nics[i].name, node->nics[n].name);
            if (!inmap && node->nics[n].rdma && !ignored(c, node->nics[n].name, -1))
                add(c, TOPO_SEV_WARN, "nic.count", "not in the map", "present",
                    "add it to the map, or to its ignore list", "%s", node->nics[n].name);
        }
        snprintf(e, sizeof(e), "%zu", expected);
        snprintf(o, sizeof(o), "%zu", present);
        add(c, present < expected ? TOPO_SEV_FAIL : TOPO_SEV_OK, "nic.count", e, o, NULL, "%s", "");
        return;
    }
    for (size_t n = 0; n < node->nnics; n++) {
        const struct topo_nic *nic = &node->nics[n];
        if (ignored(c, nic->name, -1))
            continue;
        for (size_t p = 0; p < nic->nports; p++)
            if (!ignored(c, nic->name, nic->ports[p].num))
                check_port(c, nic, &nic->ports[p], NULL);
    }
}

static int nic_index(const struct topo_node *node, const char *name)
{
    for (size_t i = 0; i < node->nnics; i++)
        if (node->nics[i].name && !strcmp(node->nics[i].name, name))
            return (int)i;
    return -1;
}

static void check_affinity(struct ctx *c)
{
    const struct topo_node *node = c->node;

    if (!c->type)
        return;
    for (size_t i = 0; i < c->type->nnics; i++) {
        const struct map_nic *m = &c->type->nics[i];
        int n = nic_index(node, m->name), near;
        const struct topo_nic *nic;
        char e[64], o[64];

        if (n < 0 || ignored(c, m->name, -1))
            continue;
        nic = &node->nics[n];
        if (m->numa >= 0 && nic->loc.numa >= 0) {
            snprintf(e, sizeof(e), "NUMA %d", m->numa);
            snprintf(o, sizeof(o), "NUMA %d", nic->loc.numa);
            add(c, m->numa == nic->loc.numa ? TOPO_SEV_OK : TOPO_SEV_FAIL, "affinity.numa", e, o,
                m->numa == nic->loc.numa ? NULL : "the NIC sits in a slot of the other socket",
                "%s", m->name);
        }
        if (m->near_gpu < 0 || (size_t)m->near_gpu >= node->ngpus)
            continue;
        if (m->path != TOPO_PATH_UNKNOWN) {
            enum topo_path p = topo_node_gpu_nic_path(node, (size_t)m->near_gpu, (size_t)n);
            if (p != TOPO_PATH_UNKNOWN) {
                snprintf(e, sizeof(e), "gpu%d %s", m->near_gpu, topo_path_name(m->path));
                snprintf(o, sizeof(o), "gpu%d %s", m->near_gpu, topo_path_name(p));
                add(c, p == m->path ? TOPO_SEV_OK : TOPO_SEV_FAIL, "affinity.path", e, o,
                    p == m->path ? NULL
                                 : "the GPU and NIC are not where the map puts them: a card in "
                                   "the wrong slot, or a PCIe switch in another mode",
                    "%s", m->name);
            }
        }
        if (m->rail >= 0 && (near = topo_node_nearest_nic(node, (size_t)m->near_gpu)) >= 0) {
            /* a NIC as close as the nearest one (two NICs on the GPU's switch) serves too */
            if (topo_node_gpu_nic_path(node, (size_t)m->near_gpu, (size_t)n) ==
                topo_node_gpu_nic_path(node, (size_t)m->near_gpu, (size_t)near))
                near = n;
            snprintf(e, sizeof(e), "rail %d: %s", m->rail, m->name);
            snprintf(o, sizeof(o), "rail %d: %s", m->rail, node->nics[near].name);
            add(c, near == n ? TOPO_SEV_OK : TOPO_SEV_FAIL, "rail.assignment", e, o,
                near == n ? NULL
                          : "another NIC is closest to this GPU: NICs swapped between slots, or "
                            "the map's rail order is wrong",
                "gpu%d", m->near_gpu);
        }
    }
}

void topo_findings_override(struct topo_findings *f, const struct topo_map *map,
                            const struct map_node_type *type)
{
    size_t kept = 0;

    f->nfail = f->nwarn = f->nok = 0;
    for (size_t i = 0; i < f->n; i++) {
        struct topo_finding *x = &f->v[i];
        if (x->sev != TOPO_SEV_OK) {
            if (type)
                x->sev = override(type->severity, type->nseverity, x->check, x->sev);
            if (map)
                x->sev = override(map->severity, map->nseverity, x->check, x->sev);
        }
        if (x->sev == TOPO_SEV_IGNORE) {
            free(x->check);
            free(x->subject);
            free(x->expected);
            free(x->observed);
            free(x->hint);
            continue;
        }
        f->v[kept++] = *x;
        if (x->sev == TOPO_SEV_FAIL)
            f->nfail++;
        else if (x->sev == TOPO_SEV_WARN)
            f->nwarn++;
        else
            f->nok++;
    }
    f->n = kept;
}

int topo_compare(const struct topo_node *node, const char *host, const struct topo_map *map,
                 const struct map_node_type *type, struct topo_findings *out)
{
    struct ctx c = { node, host ? host : "node", map, type, out };

    if (node->gpus_listed)
        check_gpus(&c);
    if (node->nics_listed)
        check_nics(&c);
    check_affinity(&c);
    /* the map's severity overrides, through the one mechanism railyard-fabric uses too */
    topo_findings_override(out, map, type);
    return 0;
}
