#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "topo/compare.h"
#include "topo/gpubw.h"
#include "topo/pci.h"
#include "topo/reference.h"

const char *const topo_check_ids[] = {
    "gpu.count",
    "gpu.model",
    "gpu.pcie.gen",
    "gpu.pcie.width",
    "gpu.driver",
    "nvlink.state",
    "pcie.path",
    "nic.count",
    "nic.pcie.gen",
    "nic.pcie.width",
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
    "link.outlier",
    "link.goodput",
    "link.congestion",
    "collective.busbw",
    "rail.cabling",
    "fabric.spine",
    "rank.failed",
    "link.width",
    "link.speed",
    "link.state",
    "fabric.link.missing",
    "fabric.link.extra",
    "fabric.link.moved",
    "fabric.desc.duplicate",
    "fabric.desc.mismatch",
    "fabric.discovery.incomplete",
    "port.errors",
    "port.errors.rising",
    "watch.port.flapping",
    "watch.port.down",
    "watch.port.errors.burst",
    "watch.port.congestion",
    "watch.nvlink.flapping",
    "watch.nvlink.down",
    "watch.nvlink.errors",
    "gdr.driver",
    "gdr.path",
    "gdr.acs",
    "gdr.dmabuf",
    "gpu.pcie.bw",
    "gpu.pcie.latency",
    "gpu.p2p.bw",
    "gpu.p2p.latency",
    "gpu.p2p.access",
    "gpu.mem.bw",
    "gpu.l2.latency",
    "gpu.mem.latency",
    "gpu.launch.latency",
    "gpu.gdr.bw",
    "nic.loopback.bw",
    "gpu.copy.verify",
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

/* a finding and its place before the sort: failures first, then warnings, then passes; by check
 * within each; in the order they were found within a check (qsort alone is not stable) */
struct sorted_finding {
    struct topo_finding f;
    size_t i;
};

static int finding_cmp(const void *a, const void *b)
{
    const struct sorted_finding *x = a, *y = b;
    int c;

    if (x->f.sev != y->f.sev)
        return x->f.sev > y->f.sev ? -1 : 1;
    if ((c = strcmp(x->f.check, y->f.check)) != 0)
        return c;
    return x->i < y->i ? -1 : x->i > y->i;
}

void topo_findings_sort(struct topo_findings *f)
{
    struct sorted_finding *tmp;

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

static int of_node(const char *subject, const char *node)
{
    size_t n = strlen(node);

    return !strncmp(subject, node, n) && (subject[n] == '\0' || subject[n] == '/');
}

const struct topo_finding *topo_findings_first_fail(const struct topo_findings *f, const char *node,
                                                    int only_node, size_t *count)
{
    const struct topo_finding *x = NULL;
    size_t n = 0;

    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].sev == TOPO_SEV_FAIL && (!only_node || of_node(f->v[i].subject, node))) {
            if (!x)
                x = &f->v[i];
            n++;
        }
    if (count)
        *count = n;
    return x;
}

size_t topo_findings_reason(const struct topo_findings *f, const char *node, int only_node,
                            const char *prefix, char *buf, size_t len)
{
    char line[81], more[32] = "";
    const char *subject;
    size_t count, hl = strlen(node);
    const struct topo_finding *x = topo_findings_first_fail(f, node, only_node, &count);

    if (!x || len == 0)
        return count;
    subject = x->subject;
    if (!strncmp(subject, node, hl) && subject[hl] == '/')
        subject += hl + 1; /* Slurm shows the node already */
    if (count > 1)
        snprintf(more, sizeof(more), " +%zu", count - 1);
    /* (the subject left out where it is the node itself, with its space) */
    if (!strcmp(subject, node))
        subject = "";
    if (snprintf(line, sizeof(line) - strlen(more), "%s%s %s%s%s%s%s", prefix, x->check, subject,
                 *subject ? " " : "", x->observed ? x->observed : "", x->expected ? " exp " : "",
                 x->expected ? x->expected : "") >= (int)(sizeof(line) - strlen(more))) {
        /* too long: the expected value goes first (a cut one says nothing), then the cut word,
         * and a clause left with a word or two of its own (", still") */
        char *exp = strstr(line, " exp "), *gap = strrchr(line, ' '), *clause = NULL;
        if (exp)
            *exp = '\0';
        else if (gap && gap - line > (ptrdiff_t)strlen(prefix) + 20) {
            *gap = '\0';
            for (char *p = strstr(line, ", "); p; p = strstr(p + 1, ", "))
                clause = p;
            if (clause && strlen(clause + 2) < 12 && clause - line > (ptrdiff_t)strlen(prefix) + 20)
                *clause = '\0';
        }
    }
    for (size_t n = strlen(line); n > 0 && strchr(" ,;", line[n - 1]); n--)
        line[n - 1] = '\0';
    snprintf(buf, len, "%s%s", line, more);
    return count;
}

void topo_findings_unjudged(struct topo_findings *f, const char *fmt, ...)
{
    va_list ap;

    xgrow(&f->unjudged, &f->unjudged_alloc, f->nunjudged + 1, sizeof(*f->unjudged));
    va_start(ap, fmt);
    f->unjudged[f->nunjudged++] = xvasprintf(fmt, ap);
    va_end(ap);
}

void topo_findings_free(struct topo_findings *f)
{
    for (size_t i = 0; i < f->nunjudged; i++)
        free(f->unjudged[i]);
    free(f->unjudged);
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

/* A link value that should be at least what is expected: fmt prints one ("Gen%d", "x%d"), note
 * follows the expectation ("" or " (like the other NICs...)"); below it, sev with the hint */
static void at_least(struct ctx *c, enum topo_sev sev, const char *check, const char *fmt, int want,
                     const char *note, int got, const char *hint, const char *subject)
{
    char e[128], o[64], v[32];

    snprintf(v, sizeof(v), fmt, want);
    snprintf(e, sizeof(e), "%s%s", v, note);
    snprintf(o, sizeof(o), fmt, got);
    add(c, got < want ? sev : TOPO_SEV_OK, check, e, o, got < want ? hint : NULL, "%s", subject);
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
    /* port 0 is a port: a socket NIC's, as NCCL's topology numbers it */
    if (c->type && listed(c->type->ignore, c->type->nignore, name, port >= 0 ? withport : NULL))
        return 1;
    if (c->map && (listed(c->map->ignore, c->map->nignore, name, port >= 0 ? withport : NULL) ||
                   listed(c->map->ignore, c->map->nignore, withhost, port >= 0 ? hostport : NULL)))
        return 1;
    return 0;
}

/* Two GPUs of one kind: the same model name, else the same PCI id, else the same compute
 * capability */
static int same_kind(const struct topo_gpu *a, const struct topo_gpu *b)
{
    if (a->model && b->model)
        return !strcmp(a->model, b->model);
    if (a->pci_device && b->pci_device)
        return a->pci_vendor == b->pci_vendor && a->pci_device == b->pci_device;
    return a->sm >= 0 && a->sm == b->sm;
}

static int gpu_links(const struct topo_gpu *g)
{
    return g->nvlink_active >= 0 ? g->nvlink_active : g->nvlink_links;
}

/* The NVLinks the other GPUs of gpu's kind have (the most common count among those with any),
 * 0 when none has any; *switched is set when they reach NVSwitches (an SXM board, where every
 * GPU has its links: a PCIe card's bridge is a build choice) */
static int sibling_links(const struct topo_node *node, size_t gpu, int *switched)
{
    int best = 0, bestn = 0;

    *switched = 0;
    for (size_t i = 0; i < node->ngpus; i++) {
        int n = 0, l = gpu_links(&node->gpus[i]);
        if (i == gpu || l <= 0 || !same_kind(&node->gpus[i], &node->gpus[gpu]))
            continue;
        *switched |= topo_node_gpu_switch_links(node, i) > 0;
        for (size_t j = 0; j < node->ngpus; j++)
            n += j != gpu && gpu_links(&node->gpus[j]) == l &&
                 same_kind(&node->gpus[j], &node->gpus[gpu]);
        if (n > bestn || (n == bestn && l > best))
            best = l, bestn = n;
    }
    return best;
}

/* a GPU of NVIDIA's, by its PCI vendor or the vendor its reader named */
static int nvidia(const struct topo_gpu *g)
{
    return g->pci_vendor == TOPO_PCI_VENDOR_NVIDIA || (g->vendor && !strcmp(g->vendor, "NVIDIA"));
}

static void check_nvlink(struct ctx *c, size_t i, const struct topo_gpu_ref *ref)
{
    const struct topo_node *node = c->node;
    const struct topo_gpu *g = &node->gpus[i];
    int from_map = c->type && c->type->nvlink_links >= 0, switched;
    int olinks = gpu_links(g), sib = sibling_links(node, i, &switched);
    int elinks = from_map ? c->type->nvlink_links : ref ? ref->nvlink_links : -1;
    enum topo_sev sev = TOPO_SEV_FAIL;
    const char *hint = NULL;
    int from_sib = 0;
    char e[64], o[64];

    if (g->pci_vendor && !nvidia(g)) {
        /* another vendor's GPU (an RCCL dump's AMD GPUs): its peer links are not NVLink */
        char xgmi[40] = "";
        if (g->xgmi_links > 0)
            snprintf(xgmi, sizeof(xgmi), " (%d xGMI in the input)", g->xgmi_links);
        topo_findings_unjudged(c->out,
                               "%s/gpu%d: nvlink.state: a GPU of %s (PCI vendor %04x): its peer "
                               "links%s are not judged; railyard judges NVIDIA's NVLink",
                               c->host, g->index, g->vendor ? g->vendor : "another vendor",
                               g->pci_vendor, xgmi);
        return;
    }
    if (olinks < 0) { /* the input says nothing of NVLink: never a silent pass */
        int want = from_map ? c->type->nvlink_links : ref ? ref->nvlink_links : -1;
        if (want > 0)
            topo_findings_unjudged(c->out,
                                   "%s/gpu%d: nvlink.state: the input says nothing of NVLink "
                                   "(%d active expected by %s): give nvidia-smi nvlink "
                                   "--status, or check on the node with its driver loaded",
                                   c->host, g->index, want,
                                   from_map ? "the map" : "the model's reference");
        return;
    }
    if (elinks < 0 && sib > 0) {
        from_sib = 1;
        /* no reference: the GPU's siblings are its reference; a bridged PCIe card without its
         * bridge is a difference, not a fault, unless the siblings sit on NVSwitches */
        elinks = sib;
        sev = switched ? TOPO_SEV_FAIL : TOPO_SEV_WARN;
    } else if (elinks < 0 && g->nvlink_active >= 0 && g->nvlink_links > 0)
        elinks = g->nvlink_links; /* links present: each should be up */
    if (elinks < 0)
        return;
    if (olinks == 0 && g->nvlink_links == 0 && !from_map && node->ngpus == 1 && sib == 0) {
        /* one GPU of a board given to a VM shows no link at all, and has no peer to reach:
         * the model's reference alone does not fail it, a map does */
        snprintf(e, sizeof(e), "%d active", elinks);
        add(c, TOPO_SEV_WARN, "nvlink.state", e, "no NVLink exposed",
            "the GPU shows no NVLink (one GPU of a board in a VM, or NVLink disabled): set "
            "gpus.nvlink.links in the map to require them",
            "gpu%d", g->index);
        return;
    }
    if (olinks < elinks)
        hint = olinks == 0 ? (sib > 0 ? "the GPU has lost every NVLink while its siblings have "
                                        "theirs: check nvidia-smi nvlink --status and the "
                                        "fabric manager, then reseat or replace the board"
                                      : "all NVLinks are inactive: check the fabric manager "
                                        "and nvidia-smi nvlink --status")
                           : "NVLinks are down: nvidia-smi nvlink --status, then reseat or "
                             "replace the board";
    snprintf(e, sizeof(e), "%d active%s", elinks,
             from_sib ? " (like the other GPUs of this kind)" : "");
    snprintf(o, sizeof(o), "%d active", olinks);
    add(c, olinks < elinks ? sev : TOPO_SEV_OK, "nvlink.state", e, o, hint, "gpu%d", g->index);
}

/* An NVIDIA GPU on this machine's PCI bus whose driver does not answer (NVML could not be
 * loaded or initialised: a module that failed to build after a kernel update) is a fault, not
 * a node without GPUs: every other GPU check would pass on what the bus alone shows. */
static void check_driver(struct ctx *c)
{
    const struct topo_node *node = c->node;

    if (node->gpu_driver < 0)
        return; /* a captured input: the driver was not asked */
    for (size_t i = 0; i < node->ngpus; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        if (!nvidia(g))
            continue;
        add(c, node->gpu_driver ? TOPO_SEV_OK : TOPO_SEV_FAIL, "gpu.driver", "answering",
            node->gpu_driver        ? "answering"
            : node->gpu_driver_note ? node->gpu_driver_note
                                    : "no NVIDIA driver",
            node->gpu_driver ? NULL
                             : "the GPU is on the PCI bus but its driver does not answer: "
                               "lsmod | grep nvidia, dkms status, dmesg; reinstall the driver "
                               "for the running kernel",
            "gpu%d", g->index);
    }
}

/* what a map's node type or a GPU says of the kind of GPU: "NAME (10de:2330, 9.0)" */
static void kind_words(char *buf, size_t len, const char *model, unsigned vendor, unsigned device,
                       int sm)
{
    char id[24] = "", cc[24] = "";

    if (vendor && device)
        snprintf(id, sizeof(id), "%04x:%04x", vendor & 0xffff, device & 0xffff);
    if (sm > 0)
        snprintf(cc, sizeof(cc), "%d.%d", sm / 10, sm % 10);
    if (model)
        snprintf(buf, len, "%s%s%s%s%s%s", model, *id || *cc ? " (" : "", id,
                 *id && *cc ? ", " : "", cc, *id || *cc ? ")" : "");
    else
        snprintf(buf, len, "%s%s%s%s", *id ? id : "", *id && *cc ? ", " : "",
                 *cc ? "compute capability " : "", cc);
}

/* gpu.model: the kind of GPU the map's node type names, by the most exact mark both sides have:
 * the PCI id, else the name, else the compute capability. The map says nothing: not judged; the
 * input says nothing the map has: a warning. */
static void check_gpu_kind(struct ctx *c, const struct topo_gpu *g)
{
    const struct map_node_type *t = c->type;
    char e[160], o[160];
    int differ;

    if (!t || (!t->gpu_model && !t->gpu_pci_device && t->gpu_sm < 0))
        return;
    kind_words(e, sizeof(e), t->gpu_model, t->gpu_pci_vendor, t->gpu_pci_device, t->gpu_sm);
    kind_words(o, sizeof(o), g->model, g->pci_vendor, g->pci_device, g->sm);
    if (t->gpu_pci_device && g->pci_vendor && g->pci_device)
        differ = t->gpu_pci_vendor != g->pci_vendor || t->gpu_pci_device != g->pci_device;
    else if (t->gpu_model && g->model)
        differ = strcmp(t->gpu_model, g->model) != 0;
    else if (t->gpu_sm >= 0 && g->sm > 0)
        differ = t->gpu_sm != g->sm;
    else {
        add(c, TOPO_SEV_WARN, "gpu.model", e, NULL,
            "the input names the GPU by nothing the map has (name, PCI id, compute capability)",
            "gpu%d", g->index);
        return;
    }
    add(c, differ ? TOPO_SEV_FAIL : TOPO_SEV_OK, "gpu.model", e, o,
        differ ? "another kind of GPU than the map's node type: a node of another type, or the "
                 "wrong map"
               : NULL,
        "gpu%d", g->index);
}

/* A PCIe link whose generation or width the input does not give (hwloc gives only the rate the
 * link carries; ibstat and nvidia-smi nvlink --status give no PCIe at all), where the map or a
 * reference expects them. A rate that carries what the expected generation and width carry
 * passes both checks; anything less is not judged, with the reason: a rate does not say which
 * term is short, and a GPU slows its link when idle. Where one term is given, the caller judges
 * it and the other is listed as not judged. Returns 1 when the link was handled here. */
static int pcie_unknown(struct ctx *c, const char *kind, const struct topo_pcie_link *l, int egen,
                        int ogen, int ewidth, int owidth, const char *subject)
{
    char e[32], o[48], want[64] = "", terms[32] = "", gen_id[24], width_id[24];
    double need;

    if (!((egen > 0 && ogen <= 0) || (ewidth > 0 && owidth <= 0)))
        return 0;
    if (ogen > 0 || owidth > 0) {
        /* one term given (the caller judges it), the other not */
        topo_findings_unjudged(c->out, "%s/%s: %s.pcie.%s: the input does not give the link's %s",
                               c->host, subject, kind, ogen > 0 ? "width" : "gen",
                               ogen > 0 ? "width" : "generation");
        return 0;
    }
    need = topo_pci_link_gbytes(egen, ewidth);
    if (egen > 0)
        snprintf(terms, sizeof(terms), "Gen%d", egen);
    if (ewidth > 0)
        snprintf(terms + strlen(terms), sizeof(terms) - strlen(terms), "%sx%d", egen > 0 ? " " : "",
                 ewidth);
    if (need > 0)
        snprintf(want, sizeof(want), ", below the %.1f GB/s of %s", need, terms);
    if (l->cur_gbytes > 0 && need > 0 && l->cur_gbytes >= need * (1 - 1e-3)) {
        /* hwloc prints GB/s to six decimals: a link at Gen5 x16 reads 63.015385 */
        snprintf(gen_id, sizeof(gen_id), "%s.pcie.gen", kind);
        snprintf(width_id, sizeof(width_id), "%s.pcie.width", kind);
        snprintf(o, sizeof(o), "%.1f GB/s (the rate only)", l->cur_gbytes);
        snprintf(e, sizeof(e), "Gen%d", egen);
        add(c, TOPO_SEV_OK, gen_id, e, o, NULL, "%s", subject);
        snprintf(e, sizeof(e), "x%d", ewidth);
        add(c, TOPO_SEV_OK, width_id, e, o, NULL, "%s", subject);
        return 1;
    }
    if (l->cur_gbytes > 0)
        topo_findings_unjudged(c->out,
                               "%s/%s: %s.pcie.gen and .width: the input gives only the link's "
                               "rate (%.1f GB/s%s), not its generation and width%s: give sysfs, "
                               "NVML or a gather bundle",
                               c->host, subject, kind, l->cur_gbytes, want,
                               strcmp(kind, "gpu") ? "" : "; a GPU slows its link when idle");
    else
        topo_findings_unjudged(c->out,
                               "%s/%s: %s.pcie.gen and .width: the input says nothing of its "
                               "PCIe link (%s expected): give sysfs, hwloc, NVML or a gather "
                               "bundle",
                               c->host, subject, kind, terms);
    return 1;
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
            c->type && c->type->gpu_model ? topo_ref_gpu(c->type->gpu_model) : topo_ref_gpu_for(g);
        int egen, ewidth, ogen, owidth;
        char subj[32];

        check_gpu_kind(c, g);
        if (!ref && !(c->type && (c->type->pcie_gen > 0 || c->type->pcie_width > 0)))
            topo_findings_unjudged(c->out,
                                   "%s/gpu%d: no built-in reference for %s%s%s: its PCIe link is "
                                   "not judged (give gpus.pcie in the map)",
                                   c->host, g->index, g->model ? "'" : "",
                                   g->model ? g->model : "a GPU the input does not name",
                                   g->model ? "'" : "");
        /* The generation is judged on the link's maximum (NVML reports the most the device
         * and the system allow); the current one drops when the GPU idles. */
        egen = c->type && c->type->pcie_gen > 0 ? c->type->pcie_gen : ref ? ref->pcie_gen : 0;
        ogen = g->link.max_gen > 0 ? g->link.max_gen : g->link.cur_gen;
        snprintf(subj, sizeof(subj), "gpu%d", g->index);
        ewidth = c->type && c->type->pcie_width > 0 ? c->type->pcie_width
                 : ref                              ? ref->pcie_width
                                                    : 0;
        owidth = g->link.cur_width > 0 ? g->link.cur_width : g->link.max_width;
        if (pcie_unknown(c, "gpu", &g->link, egen, ogen, ewidth, owidth, subj)) {
            check_nvlink(c, i, ref);
            continue;
        }
        if (egen > 0 && ogen > 0)
            at_least(c, TOPO_SEV_FAIL, "gpu.pcie.gen", "Gen%d", egen, "", ogen,
                     "the slot trained below the expected generation: reseat the GPU or riser, "
                     "check the BIOS PCIe speed setting",
                     subj);
        if (ewidth > 0 && owidth > 0)
            at_least(c, TOPO_SEV_FAIL, "gpu.pcie.width", "x%d", ewidth, "", owidth,
                     "lanes are missing: reseat the GPU, riser or cable", subj);
        check_nvlink(c, i, ref);
    }
    check_driver(c);
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
    /* the rate of a port that is not up means nothing; one whose state the input does not say
     * (NCCL's topology lists only the ports its transport can use) is judged by its rate */
    if ((p->state >= 0 && p->state != 4) || p->rate_gbps < 0)
        return;
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

static int same_nic_kind(const struct topo_nic *a, const struct topo_nic *b)
{
    if (a->pci_device && b->pci_device)
        return a->pci_vendor == b->pci_vendor && a->pci_device == b->pci_device;
    return a->hca_type && b->hca_type && !strcmp(a->hca_type, b->hca_type);
}

static int nic_width(const struct topo_nic *n)
{
    return n->link.cur_width > 0 ? n->link.cur_width : n->link.max_width;
}

/* The width most RDMA NICs of nic's kind have (at least two of them), 0 when none */
static int sibling_width(const struct topo_node *node, const struct topo_nic *nic)
{
    int best = 0, bestn = 1;

    for (size_t i = 0; i < node->nnics; i++) {
        int w = nic_width(&node->nics[i]), n = 0;
        if (!node->nics[i].rdma || w <= 0 || !same_nic_kind(&node->nics[i], nic))
            continue;
        for (size_t j = 0; j < node->nnics; j++)
            n += node->nics[j].rdma && &node->nics[j] != nic && nic_width(&node->nics[j]) == w &&
                 same_nic_kind(&node->nics[j], nic);
        if (n > bestn || (n == bestn && w > best))
            best = w, bestn = n;
    }
    return best;
}

/* A NIC's link is judged like a GPU's: against the map (fail), else the width it can train to
 * and the width its siblings of the same kind have (fail), and the generation the part supports
 * (warn: an older platform gives less, which caps a fast port) */
static void check_nic_pcie(struct ctx *c, const struct topo_nic *nic, const struct map_nic *m)
{
    const struct topo_nic_ref *ref = topo_ref_nic_for(nic);
    int ewidth = 0, owidth = nic_width(nic), egen = 0, ogen, sib;
    enum topo_sev gsev = TOPO_SEV_FAIL;
    const char *why = "";
    char as[64] = "";

    if (ref && ref->virtual_fn) {
        /* said, never passed in silence */
        topo_findings_unjudged(c->out,
                               "%s/%s: nic.pcie.gen and .width: a virtual function (%s): its PCIe "
                               "link is the hypervisor's",
                               c->host, nic->name, ref->name);
        return;
    }
    if (!ref && !(m && (m->pcie_gen > 0 || m->pcie_width > 0))) {
        char what[96];
        if (nic->pci_vendor)
            snprintf(what, sizeof(what), "PCI %04x:%04x", nic->pci_vendor, nic->pci_device);
        else if (nic->hca_type)
            snprintf(what, sizeof(what), "hca_type %.40s", nic->hca_type);
        else
            snprintf(what, sizeof(what), "a NIC the input does not identify");
        topo_findings_unjudged(c->out,
                               "%s/%s: no built-in reference for %s: its PCIe generation is not "
                               "judged (give pcie in the map's NIC entry)",
                               c->host, nic->name, what);
    }
    if (m && m->pcie_width > 0)
        ewidth = m->pcie_width;
    else if (nic->link.cur_width > 0 && nic->link.max_width > nic->link.cur_width)
        ewidth = nic->link.max_width, why = " (what the NIC can train to)";
    else if ((sib = sibling_width(c->node, nic)) > 0)
        ewidth = sib, why = " (like the other NICs of this kind)";
    ogen = nic->link.cur_gen > 0 ? nic->link.cur_gen : nic->link.max_gen;
    if (m && m->pcie_gen > 0)
        egen = m->pcie_gen;
    else if (ref && ref->pcie_gen > 0) {
        egen = ref->pcie_gen, gsev = TOPO_SEV_WARN;
        snprintf(as, sizeof(as), ", as a %s", ref->name);
    }
    if (pcie_unknown(c, "nic", &nic->link, egen, ogen, ewidth, owidth, nic->name))
        return;
    if (ewidth > 0 && owidth > 0)
        at_least(c, TOPO_SEV_FAIL, "nic.pcie.width", "x%d", ewidth, why, owidth,
                 "lanes are missing: reseat the NIC or its riser, check the slot (an x8 slot, "
                 "or bifurcation set in the BIOS)",
                 nic->name);
    if (egen > 0 && ogen > 0)
        at_least(c, gsev, "nic.pcie.gen", "Gen%d", egen, as, ogen,
                 "the link runs below what the NIC supports: an older slot or platform, or a "
                 "link that trained down (reseat; check the BIOS PCIe speed)",
                 nic->name);
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
            if (!seen) {
                present++;
                check_nic_pcie(c, nic, m);
            }
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
        if (nic->rdma)
            check_nic_pcie(c, nic, NULL);
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
        if (m->rail >= 0 && (near = topo_node_nearest_rdma_nic(node, (size_t)m->near_gpu)) >= 0) {
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

/* ---- pcie.path: every link between a GPU or NIC and its root port ---- */

struct capped {
    double v;      /* GB/s of the bridge's link */
    double want;   /* the most any device below it can use */
    int fail;      /* a device below has its link in the map */
    int capable;   /* v is the link as it can train (a device's own link), not as trained */
    char who[200]; /* "gpu4, mlx5_4" */
    char gdr[200]; /* "gpu4<->mlx5_4" */
};

/* each name comes once: a device is capped at one bridge, and the two sides of a GPUDirect pair
 * lie below their common bridge on paths that share none */
static void append(char *buf, size_t len, const char *what)
{
    size_t n = strlen(buf);

    snprintf(buf + n, len - n, "%s%s", n ? ", " : "", what);
}

/* The bandwidth the device should get to the host: the map's generation and width (*fail set),
 * else what its own link can carry (GPUs slow their link when idle: never the trained one) */
static double device_want(const struct topo_pcie_link *own, int mgen, int mwidth, int gpu,
                          int *fail)
{
    double v;

    *fail = mgen > 0 || mwidth > 0;
    if (*fail) {
        v = topo_pci_link_gbytes(mgen > 0 ? mgen : own->max_gen, mwidth > 0 ? mwidth
                                                                 : own->max_width > 0
                                                                     ? own->max_width
                                                                     : own->cur_width);
        if (v > 0)
            return v;
        *fail = 0;
    }
    if ((v = topo_link_gbytes(own, 0)) > 0 || gpu)
        return v;
    return topo_link_gbytes(own, 1);
}

/* The narrowest bridge on the way up from loc (and its GB/s), -1 when none is known */
static int bottleneck(const struct topo_node *node, const struct topo_pciloc *loc, int stop,
                      double *v)
{
    int best = -1, hops = 0;

    *v = -1;
    for (int b = loc->up; b >= 0 && b != stop && (size_t)b < node->nbridges && hops < 64;
         b = node->bridges[b].up, hops++) {
        double x = topo_bridge_gbytes(node, b, b == loc->up);
        if (x > 0 && (*v < 0 || x < *v))
            *v = x, best = b;
    }
    return best;
}

static void cap(struct capped *cp, const struct topo_node *node, const struct topo_pciloc *loc,
                int b, double v, double want, int fail, const char *who)
{
    if (b < 0 || (size_t)b >= node->nbridges)
        return;
    cp[b].v = v;
    cp[b].capable = b == loc->up && node->bridges[b].faces_down;
    if (want > cp[b].want)
        cp[b].want = want;
    cp[b].fail |= fail;
    append(cp[b].who, sizeof(cp[b].who), who);
}

/* The lowest bridge both locations sit under, -1 when none */
static int common_bridge(const struct topo_node *node, const struct topo_pciloc *a,
                         const struct topo_pciloc *b)
{
    int ha = 0;

    for (int x = a->up; x >= 0 && (size_t)x < node->nbridges && ha < 64;
         x = node->bridges[x].up, ha++) {
        int hb = 0;
        for (int y = b->up; y >= 0 && (size_t)y < node->nbridges && hb < 64;
             y = node->bridges[y].up, hb++)
            if (x == y)
                return x;
    }
    return -1;
}

static void link_text(char *buf, size_t len, const struct topo_pcie_link *l, double v, int capable)
{
    int trained = !capable && l->cur_gen > 0 && l->cur_width > 0;
    int gen = trained ? l->cur_gen : l->max_gen;
    int width = trained ? l->cur_width : l->max_width;

    if (!capable && !trained && l->cur_gbytes > 0)
        gen = width = 0; /* only the rate is known (hwloc) */
    if (gen > 0 && width > 0)
        snprintf(buf, len, "%.1f GB/s (Gen%d x%d)", v, gen, width);
    else
        snprintf(buf, len, "%.1f GB/s", v);
}

static void check_pcie_path(struct ctx *c)
{
    const struct topo_node *node = c->node;
    struct capped *cp;
    char e[160], o[96], hint[700], name[64];

    if (!node->nbridges)
        return;
    cp = xcalloc(node->nbridges, sizeof(*cp));
    for (size_t i = 0; i < node->ngpus && node->gpus_listed; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        int fail, b;
        double want = device_want(&g->link, c->type ? c->type->pcie_gen : 0,
                                  c->type ? c->type->pcie_width : 0, 1, &fail),
               v;
        if (want <= 0 || (b = bottleneck(node, &g->loc, -1, &v)) < 0 || v >= 0.95 * want)
            continue;
        snprintf(name, sizeof(name), "gpu%d", g->index);
        cap(cp, node, &g->loc, b, v, want, fail, name);
    }
    for (size_t i = 0; i < node->nnics && node->nics_listed; i++) {
        const struct topo_nic *n = &node->nics[i];
        const struct topo_nic_ref *ref = topo_ref_nic_for(n);
        const struct map_nic *m = NULL;
        int fail, b;
        double want, v;
        if (!n->rdma || (ref && ref->virtual_fn) || ignored(c, n->name, -1))
            continue;
        for (size_t k = 0; c->type && k < c->type->nnics; k++)
            if (!strcmp(c->type->nics[k].name, n->name))
                m = &c->type->nics[k];
        want = device_want(&n->link, m ? m->pcie_gen : 0, m ? m->pcie_width : 0, 0, &fail);
        if (want <= 0 || (b = bottleneck(node, &n->loc, -1, &v)) < 0 || v >= 0.95 * want)
            continue;
        cap(cp, node, &n->loc, b, v, want, fail, n->name);
    }
    /* GPUDirect: the links between a GPU and its nearest NIC, below the bridge they share */
    for (size_t i = 0; i < node->ngpus && node->gpus_listed && node->nics_listed; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        int near = topo_node_nearest_nic(node, i), common, b, fail;
        double want, wn, v;
        const struct topo_pciloc *side[2];
        if (near < 0 || !node->nics[near].rdma)
            continue;
        common = common_bridge(node, &g->loc, &node->nics[near].loc);
        want = device_want(&g->link, 0, 0, 1, &fail);
        wn = device_want(&node->nics[near].link, 0, 0, 0, &fail);
        if (wn > 0 && (want <= 0 || wn < want))
            want = wn;
        side[0] = &g->loc;
        side[1] = &node->nics[near].loc;
        for (int k = 0; k < 2 && want > 0 && common >= 0; k++)
            if ((b = bottleneck(node, side[k], common, &v)) >= 0 && v < 0.95 * want &&
                cp[b].who[0]) {
                snprintf(name, sizeof(name), "gpu%d<->%s", g->index, node->nics[near].name);
                append(cp[b].gdr, sizeof(cp[b].gdr), name);
            }
    }
    for (size_t b = 0; b < node->nbridges; b++) {
        if (!cp[b].who[0])
            continue;
        snprintf(e, sizeof(e), ">= %.1f GB/s (what %s can use)", cp[b].want, cp[b].who);
        link_text(o, sizeof(o), &node->bridges[b].link, cp[b].v, cp[b].capable);
        snprintf(hint, sizeof(hint),
                 "the link of PCIe bridge %s caps the host bandwidth of %s%s%s: reseat the PCIe "
                 "switch board, riser or cable, check the BIOS PCIe speed%s",
                 node->bridges[b].busid, cp[b].who, cp[b].gdr[0] ? " and GPUDirect " : "",
                 cp[b].gdr,
                 cp[b].fail ? ""
                            : "; some platforms slow links down at idle: confirm under load "
                              "(lspci -vv: LnkSta) before acting");
        add(c, cp[b].fail ? TOPO_SEV_FAIL : TOPO_SEV_WARN, "pcie.path", e, o, hint, "%s",
            node->bridges[b].busid);
    }
    free(cp);
}

void topo_findings_compact(struct topo_findings *f)
{
    size_t kept = 0;

    f->nfail = f->nwarn = f->nok = 0;
    for (size_t i = 0; i < f->n; i++) {
        struct topo_finding *x = &f->v[i];
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

void topo_findings_override(struct topo_findings *f, const struct topo_map *map,
                            const struct map_node_type *type)
{
    for (size_t i = 0; i < f->n; i++) {
        struct topo_finding *x = &f->v[i];
        if (x->sev != TOPO_SEV_OK) {
            if (type)
                x->sev = override(type->severity, type->nseverity, x->check, x->sev);
            if (map)
                x->sev = override(map->severity, map->nseverity, x->check, x->sev);
        }
    }
    topo_findings_compact(f);
}

/* The node's inputs list its GPUs and NICs, and show no GPU, no RDMA device and nothing a
 * missing driver would hide (a GPU on the PCI bus is listed whatever its driver; a Mellanox or
 * NVIDIA networking device, or an InfiniBand controller, without its RDMA driver): nothing to
 * judge, which is healthy (railyard-check(1), NOT JUDGED). */
int topo_node_nothing_to_judge(const struct topo_node *node)
{
    if (!node->gpus_listed || !node->nics_listed || node->ngpus > 0 || node->nbw > 0)
        return 0;
    for (size_t i = 0; i < node->nnics; i++) {
        const struct topo_nic *n = &node->nics[i];
        if (n->rdma || n->pci_vendor == TOPO_PCI_VENDOR_MELLANOX || n->pci_class == 0x0207 ||
            n->pci_class == 0x0c06)
            return 0;
    }
    return 1;
}

int topo_compare(const struct topo_node *node, const char *host, const struct topo_map *map,
                 const struct map_node_type *type, struct topo_findings *out)
{
    struct ctx c = { node, host ? host : "node", map, type, out };

    if (node->gpus_listed)
        check_gpus(&c);
    if (node->nics_listed)
        check_nics(&c);
    check_pcie_path(&c);
    check_affinity(&c);
    if (node->nbw)
        topo_bw_judge(node, c.host, type ? &type->thresholds : NULL, out);
    /* the map's severity overrides, through the one mechanism railyard-fabric uses too */
    topo_findings_override(out, map, type);
    return 0;
}
