#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "common/file.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "topo/compare.h"
#include "topo/iba.h"
#include "topo/map.h"

/* ---- parsing ---- */

struct parse {
    yaml_document_t doc;
    const char *name;
    ry_error_t *err;
    struct topo_map *map;
};

__attribute__((format(printf, 3, 4))) static int perr(struct parse *p, yaml_node_t *n,
                                                      const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    errno = EINVAL;
    if (n)
        return ry_errorf(p->err, "%s:%zu:%zu: %s", p->name, n->start_mark.line + 1,
                         n->start_mark.column + 1, msg);
    return ry_errorf(p->err, "%s: %s", p->name, msg);
}

static size_t levenshtein(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

    if (la >= 63 || lb >= 63)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1,
                   sub = prev[j - 1] +
                         (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            cur[j] = del < ins ? (del < sub ? del : sub) : (ins < sub ? ins : sub);
        }
        memcpy(prev, cur, sizeof(size_t) * (lb + 1));
    }
    return prev[lb];
}

/* "unknown key 'x' in <where> (did you mean 'y'?)" */
static int unknown_key(struct parse *p, yaml_node_t *k, const char *where, const char *const *valid)
{
    const char *key = (const char *)k->data.scalar.value, *best = NULL;
    size_t bestd = 99;
    char list[256] = "";

    for (size_t i = 0; valid[i]; i++) {
        size_t d = levenshtein(key, valid[i]);
        if (d < bestd) {
            bestd = d;
            best = valid[i];
        }
        if (strlen(list) + strlen(valid[i]) + 3 < sizeof(list)) {
            if (i)
                strcat(list, ", ");
            strcat(list, valid[i]);
        }
    }
    if (best && bestd <= 3 && bestd < strlen(key))
        return perr(p, k, "unknown key '%s' in %s (did you mean '%s'?)", key, where, best);
    return perr(p, k, "unknown key '%s' in %s (valid keys: %s)", key, where, list);
}

static int is_key(yaml_node_t *k, const char *name)
{
    return k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, name);
}

static const char *scalar(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int want(struct parse *p, yaml_node_t *n, yaml_node_type_t type, const char *what)
{
    static const char *const names[] = { "nothing", "a scalar", "a list", "a mapping" };

    if (n->type == type)
        return 0;
    return perr(p, n, "%s must be %s, not %s", what, names[type], names[n->type]);
}

static int get_str(struct parse *p, yaml_node_t *n, const char *what, char **out)
{
    if (want(p, n, YAML_SCALAR_NODE, what) < 0)
        return -1;
    free(*out);
    *out = xstrdup(scalar(n));
    return 0;
}

static int get_int(struct parse *p, yaml_node_t *n, const char *what, long min, long max, int *out)
{
    const char *s;
    char *end;
    long v;

    if (want(p, n, YAML_SCALAR_NODE, what) < 0)
        return -1;
    s = scalar(n);
    errno = 0;
    v = strtol(s, &end, 10);
    if (!*s || *end || errno)
        return perr(p, n, "%s must be an integer, not '%s'", what, s);
    if (v < min || v > max)
        return perr(p, n, "%s must be between %ld and %ld, not %ld", what, min, max, v);
    *out = (int)v;
    return 0;
}

/* "10de:2330": a PCI vendor and device id, four hex digits each */
static int get_pci_id(struct parse *p, yaml_node_t *n, unsigned *vendor, unsigned *device)
{
    const char *s;
    int good;

    if (want(p, n, YAML_SCALAR_NODE, "pci_id") < 0)
        return -1;
    s = scalar(n);
    good = strlen(s) == 9 && s[4] == ':';
    for (int i = 0; good && i < 9; i++)
        good = i == 4 || isxdigit((unsigned char)s[i]);
    if (good) {
        *vendor = (unsigned)strtoul(s, NULL, 16);
        *device = (unsigned)strtoul(s + 5, NULL, 16);
    }
    if (!good || *vendor == 0 || *device == 0)
        return perr(p, n,
                    "pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), "
                    "not '%s'",
                    s);
    return 0;
}

/* "9.0": a CUDA compute capability, MAJOR.MINOR (the minor one digit) */
static int get_capability(struct parse *p, yaml_node_t *n, int *sm)
{
    const char *s;
    size_t len;

    if (want(p, n, YAML_SCALAR_NODE, "compute_capability") < 0)
        return -1;
    s = scalar(n);
    len = strlen(s);
    if (len < 3 || len > 4 || s[len - 2] != '.' || !isdigit((unsigned char)s[0]) ||
        !isdigit((unsigned char)s[len - 1]) || (len == 4 && !isdigit((unsigned char)s[1])) ||
        s[0] == '0')
        return perr(p, n, "compute_capability must be MAJOR.MINOR (e.g. 9.0), not '%s'", s);
    *sm = atoi(s) * 10 + (s[len - 1] - '0');
    return 0;
}

/* a number, 0 and up; with positive, above 0 */
static int get_double(struct parse *p, yaml_node_t *n, const char *what, int positive, double *out)
{
    const char *s;
    char *end;
    double v;

    if (want(p, n, YAML_SCALAR_NODE, what) < 0)
        return -1;
    s = scalar(n);
    v = strtod(s, &end);
    if (!*s || *end || v < 0 || v != v || (positive && v == 0))
        return perr(p, n, "%s must be a %s number, not '%s'", what,
                    positive ? "positive" : "non-negative", s);
    *out = v;
    return 0;
}

static int get_strlist(struct parse *p, yaml_node_t *n, const char *what, char ***out,
                       size_t *count)
{
    if (n->type == YAML_SCALAR_NODE) {
        *out = xrealloc(*out, (*count + 1) * sizeof(**out));
        (*out)[(*count)++] = xstrdup(scalar(n));
        return 0;
    }
    if (want(p, n, YAML_SEQUENCE_NODE, what) < 0)
        return -1;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
        yaml_node_t *item = yaml_document_get_node(&p->doc, *i);
        if (want(p, item, YAML_SCALAR_NODE, what) < 0)
            return -1;
        *out = xrealloc(*out, (*count + 1) * sizeof(**out));
        (*out)[(*count)++] = xstrdup(scalar(item));
    }
    return 0;
}

/* iterate over the (key, value) pairs of a mapping node; it names the iterator */
#define FOR_PAIRS(p, node, it, k, v)                                                               \
    for (yaml_node_pair_t *it = (node)->data.mapping.pairs.start;                                  \
         it < (node)->data.mapping.pairs.top &&                                                    \
         ((k) = yaml_document_get_node(&(p)->doc, it->key)) &&                                     \
         ((v) = yaml_document_get_node(&(p)->doc, it->value));                                     \
         it++)

static int key_scalar(struct parse *p, yaml_node_t *k)
{
    return want(p, k, YAML_SCALAR_NODE, "a key");
}

static int parse_severity(struct parse *p, yaml_node_t *n, struct map_severity **out, size_t *count)
{
    yaml_node_t *k, *v;

    if (want(p, n, YAML_MAPPING_NODE, "severity") < 0)
        return -1;
    FOR_PAIRS(p, n, it, k, v)
    {
        const char *id, *s;
        enum topo_sev sev;
        if (key_scalar(p, k) < 0 || want(p, v, YAML_SCALAR_NODE, "a severity") < 0)
            return -1;
        id = scalar(k);
        s = scalar(v);
        if (!topo_check_id_known(id))
            return perr(p, k, "unknown check id '%s' (see railyard-check(1))", id);
        if (!strcmp(s, "warn"))
            sev = TOPO_SEV_WARN;
        else if (!strcmp(s, "fail"))
            sev = TOPO_SEV_FAIL;
        else if (!strcmp(s, "ignore"))
            sev = TOPO_SEV_IGNORE;
        else
            return perr(p, v, "severity of '%s' must be warn, fail or ignore, not '%s'", id, s);
        *out = xrealloc(*out, (*count + 1) * sizeof(**out));
        (*out)[*count].check = xstrdup(id);
        (*out)[(*count)++].sev = sev;
    }
    return 0;
}

static int parse_link_layer(struct parse *p, yaml_node_t *v, enum topo_link_layer *ll)
{
    const char *s;

    if (want(p, v, YAML_SCALAR_NODE, "link_layer") < 0)
        return -1;
    s = scalar(v);
    if (!strcasecmp(s, "InfiniBand") || !strcasecmp(s, "IB"))
        *ll = TOPO_LL_INFINIBAND;
    else if (!strcasecmp(s, "Ethernet") || !strcasecmp(s, "RoCE"))
        *ll = TOPO_LL_ETHERNET;
    else
        return perr(p, v, "link_layer must be InfiniBand or Ethernet, not '%s'", s);
    return 0;
}

/* pcie: {gen: 5, width: 16}, the link a device should have to the host */
static int parse_pcie(struct parse *p, yaml_node_t *v, const char *what, int *gen, int *width)
{
    static const char *const pkeys[] = { "gen", "width", NULL };
    yaml_node_t *k2, *v2;

    if (want(p, v, YAML_MAPPING_NODE, what) < 0)
        return -1;
    FOR_PAIRS(p, v, it2, k2, v2)
    {
        int rc;
        if (key_scalar(p, k2) < 0)
            return -1;
        if (is_key(k2, "gen"))
            rc = get_int(p, v2, "gen", 1, 7, gen);
        else if (is_key(k2, "width"))
            rc = get_int(p, v2, "width", 1, 32, width);
        else
            rc = unknown_key(p, k2, what, pkeys);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int parse_nic(struct parse *p, yaml_node_t *n, struct map_nic *nic)
{
    static const char *const keys[] = { "name",       "netdev",    "rail",     "port",
                                        "link_layer", "rate_gbps", "near_gpu", "path",
                                        "numa",       "pcie",      NULL };
    yaml_node_t *k, *v;

    memset(nic, 0, sizeof(*nic));
    nic->rail = nic->near_gpu = nic->numa = -1;
    nic->port = 1;
    nic->rate_gbps = -1;
    nic->line = (int)n->start_mark.line + 1;
    nic->col = (int)n->start_mark.column + 1;
    if (want(p, n, YAML_MAPPING_NODE, "a NIC entry") < 0)
        return -1;
    FOR_PAIRS(p, n, it, k, v)
    {
        int rc;
        if (key_scalar(p, k) < 0)
            return -1;
        if (is_key(k, "name"))
            rc = get_str(p, v, "name", &nic->name);
        else if (is_key(k, "netdev"))
            rc = get_str(p, v, "netdev", &nic->netdev);
        else if (is_key(k, "rail"))
            rc = get_int(p, v, "rail", 0, TOPO_MAP_RAILS - 1, &nic->rail);
        else if (is_key(k, "port"))
            rc = get_int(p, v, "port", 1, 255, &nic->port);
        else if (is_key(k, "link_layer"))
            rc = parse_link_layer(p, v, &nic->link_layer);
        else if (is_key(k, "rate_gbps")) /* 0 would pass any port, a link down included */
            rc = get_double(p, v, "rate_gbps", 1, &nic->rate_gbps);
        else if (is_key(k, "near_gpu"))
            rc = get_int(p, v, "near_gpu", 0, 1023, &nic->near_gpu);
        else if (is_key(k, "numa"))
            rc = get_int(p, v, "numa", 0, 4095, &nic->numa);
        else if (is_key(k, "pcie"))
            rc = parse_pcie(p, v, "pcie", &nic->pcie_gen, &nic->pcie_width);
        else if (is_key(k, "path")) {
            rc = want(p, v, YAML_SCALAR_NODE, "path");
            if (rc == 0 && ((nic->path = topo_path_parse(scalar(v))) == TOPO_PATH_UNKNOWN ||
                            nic->path == TOPO_PATH_SELF))
                rc = perr(p, v, "path must be one of PIX, PXB, PHB, NODE, SYS, NV#, not '%s'",
                          scalar(v));
        } else
            rc = unknown_key(p, k, "a NIC entry", keys);
        if (rc < 0)
            return -1;
    }
    if (!nic->name)
        return perr(p, n, "a NIC entry needs a name");
    return 0;
}

static int parse_gpus(struct parse *p, yaml_node_t *n, struct map_node_type *t)
{
    static const char *const keys[] = { "count", "model",  "pci_id", "compute_capability",
                                        "pcie",  "nvlink", NULL };
    static const char *const nkeys[] = { "links", NULL };
    yaml_node_t *k, *v, *k2, *v2;

    if (want(p, n, YAML_MAPPING_NODE, "gpus") < 0)
        return -1;
    FOR_PAIRS(p, n, it, k, v)
    {
        int rc = 0;
        if (key_scalar(p, k) < 0)
            return -1;
        if (is_key(k, "count"))
            rc = get_int(p, v, "count", 0, 1024, &t->gpu_count);
        else if (is_key(k, "model"))
            rc = get_str(p, v, "model", &t->gpu_model);
        else if (is_key(k, "pci_id"))
            rc = get_pci_id(p, v, &t->gpu_pci_vendor, &t->gpu_pci_device);
        else if (is_key(k, "compute_capability"))
            rc = get_capability(p, v, &t->gpu_sm);
        else if (is_key(k, "pcie"))
            rc = parse_pcie(p, v, "gpus.pcie", &t->pcie_gen, &t->pcie_width);
        else if (is_key(k, "nvlink")) {
            if (want(p, v, YAML_MAPPING_NODE, "nvlink") < 0)
                return -1;
            FOR_PAIRS(p, v, it2, k2, v2)
            {
                if (key_scalar(p, k2) < 0)
                    return -1;
                if (is_key(k2, "links"))
                    rc = get_int(p, v2, "links", 0, 64, &t->nvlink_links);
                else
                    rc = unknown_key(p, k2, "gpus.nvlink", nkeys);
                if (rc < 0)
                    return -1;
            }
        } else
            rc = unknown_key(p, k, "gpus", keys);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int parse_thresholds(struct parse *p, yaml_node_t *n, struct map_thresholds *th)
{
    const char *keys[32];
    yaml_node_t *k, *v;

    for (size_t i = 0; i < map_nthreshold_keys && i < 31; i++)
        keys[i] = map_threshold_keys[i].name;
    keys[map_nthreshold_keys < 31 ? map_nthreshold_keys : 31] = NULL;
    if (want(p, n, YAML_MAPPING_NODE, "thresholds") < 0)
        return -1;
    FOR_PAIRS(p, n, it, k, v)
    {
        double *dst;
        if (key_scalar(p, k) < 0)
            return -1;
        if (!(dst = topo_map_threshold(th, scalar(k))))
            return unknown_key(p, k, "thresholds", keys);
        if (get_double(p, v, scalar(k), 0, dst) < 0)
            return -1;
        if (*dst > 1 && topo_map_threshold_is_share(scalar(k)))
            return perr(p, v, "%s is a share of the traffic, from 0 to 1, not '%s'", scalar(k),
                        scalar(v));
    }
    return 0;
}

static int parse_type(struct parse *p, yaml_node_t *name, yaml_node_t *n, struct map_node_type *t)
{
    static const char *const keys[] = { "gpus", "nics", "ignore", "severity", "thresholds", NULL };
    yaml_node_t *k, *v;

    memset(t, 0, sizeof(*t));
    t->name = xstrdup(scalar(name));
    t->line = (int)name->start_mark.line + 1;
    t->col = (int)name->start_mark.column + 1;
    t->gpu_count = t->nvlink_links = t->gpu_sm = -1;
    topo_map_thresholds_unset(&t->thresholds);
    if (want(p, n, YAML_MAPPING_NODE, "a node type") < 0)
        return -1;
    FOR_PAIRS(p, n, it, k, v)
    {
        int rc;
        if (key_scalar(p, k) < 0)
            return -1;
        if (is_key(k, "gpus"))
            rc = parse_gpus(p, v, t);
        else if (is_key(k, "nics")) {
            rc = want(p, v, YAML_SEQUENCE_NODE, "nics");
            for (yaml_node_item_t *i = v->data.sequence.items.start;
                 rc == 0 && i < v->data.sequence.items.top; i++) {
                yaml_node_t *item = yaml_document_get_node(&p->doc, *i);
                t->nics = xrealloc(t->nics, (t->nnics + 1) * sizeof(*t->nics));
                rc = parse_nic(p, item, &t->nics[t->nnics]);
                t->nnics++;
                for (size_t j = 0; rc == 0 && j + 1 < t->nnics; j++)
                    if (!strcmp(t->nics[j].name, t->nics[t->nnics - 1].name) &&
                        t->nics[j].port == t->nics[t->nnics - 1].port)
                        rc = perr(p, item, "NIC %s port %d is listed twice in node type '%s'",
                                  t->nics[j].name, t->nics[j].port, t->name);
            }
        } else if (is_key(k, "ignore"))
            rc = get_strlist(p, v, "ignore", &t->ignore, &t->nignore);
        else if (is_key(k, "severity"))
            rc = parse_severity(p, v, &t->severity, &t->nseverity);
        else if (is_key(k, "thresholds"))
            rc = parse_thresholds(p, v, &t->thresholds);
        else
            rc = unknown_key(p, k, "a node type", keys);
        if (rc < 0)
            return -1;
    }
    for (size_t i = 0; i < t->nnics; i++)
        if (t->gpu_count >= 0 && t->nics[i].near_gpu >= t->gpu_count) {
            errno = EINVAL;
            return ry_errorf(p->err, "%s:%d:%d: NIC %s: near_gpu %d but the type has %d GPUs",
                             p->name, t->nics[i].line, t->nics[i].col, t->nics[i].name,
                             t->nics[i].near_gpu, t->gpu_count);
        }
    return 0;
}

static int parse_rails(struct parse *p, yaml_node_t *n)
{
    static const char *const keys[] = { "switches", NULL };
    struct topo_map *m = p->map;
    yaml_node_t *k, *v, *k2, *v2;

    if (want(p, n, YAML_MAPPING_NODE, "rails") < 0)
        return -1;
    FOR_PAIRS(p, n, it, k, v)
    {
        struct map_rail *r;
        if (key_scalar(p, k) < 0)
            return -1;
        m->rails = xrealloc(m->rails, (m->nrails + 1) * sizeof(*m->rails));
        r = &m->rails[m->nrails++];
        memset(r, 0, sizeof(*r));
        r->line = (int)k->start_mark.line + 1;
        r->col = (int)k->start_mark.column + 1;
        if (get_int(p, k, "a rail id", 0, TOPO_MAP_RAILS - 1, &r->id) < 0)
            return -1;
        for (size_t i = 0; i + 1 < m->nrails; i++)
            if (m->rails[i].id == r->id)
                return perr(p, k, "rail %d is declared twice", r->id);
        if (v->type == YAML_SCALAR_NODE && !*scalar(v))
            continue; /* "3:" with nothing: a rail without switch names */
        if (want(p, v, YAML_MAPPING_NODE, "a rail") < 0)
            return -1;
        FOR_PAIRS(p, v, it2, k2, v2)
        {
            if (key_scalar(p, k2) < 0)
                return -1;
            if (!is_key(k2, "switches"))
                return unknown_key(p, k2, "a rail", keys);
            if (get_strlist(p, v2, "switches", &r->switches, &r->nswitches) < 0)
                return -1;
        }
    }
    return 0;
}

/* A file named by the map: relative paths are relative to the map's directory. */
static char *map_relative(const struct parse *p, const char *file)
{
    const char *slash = strrchr(p->name, '/');

    if (file[0] == '/' || !slash)
        return xstrdup(file);
    return xasprintf("%.*s/%s", (int)(slash - p->name), p->name, file);
}

static int parse_counters(struct parse *p, yaml_node_t *n, struct map_fabric *fb)
{
    static const char *const keys[] = { "total", "rising", NULL };
    yaml_node_t *k, *v, *k2, *v2;

    if (want(p, n, YAML_MAPPING_NODE, "counters") < 0)
        return -1;
    FOR_PAIRS(p, n, it, k, v)
    {
        struct map_counter_limit *c;
        int idx;
        if (key_scalar(p, k) < 0)
            return -1;
        idx = ibf_ctr_parse(scalar(k));
        if (idx < 0 || idx >= IBF_NERRCTR)
            return perr(p, k,
                        "'%s' is not a PMA error counter (SymbolErrorCounter, "
                        "LinkErrorRecoveryCounter, LinkDownedCounter, PortRcvErrors, ...)",
                        scalar(k));
        fb->counters = xrealloc(fb->counters, (fb->ncounters + 1) * sizeof(*fb->counters));
        c = &fb->counters[fb->ncounters++];
        c->name = xstrdup(scalar(k));
        c->total = c->rising = -1;
        c->line = (int)k->start_mark.line + 1;
        c->col = (int)k->start_mark.column + 1;
        if (want(p, v, YAML_MAPPING_NODE, "a counter's limits") < 0)
            return -1;
        FOR_PAIRS(p, v, it2, k2, v2)
        {
            int val;
            if (key_scalar(p, k2) < 0)
                return -1;
            if (!is_key(k2, "total") && !is_key(k2, "rising"))
                return unknown_key(p, k2, "a counter", keys);
            if (get_int(p, v2, scalar(k2), 0, 2000000000, &val) < 0)
                return -1;
            if (is_key(k2, "total"))
                c->total = val;
            else
                c->rising = val;
        }
    }
    return 0;
}

static int parse_fabric(struct parse *p, yaml_node_t *n)
{
    static const char *const keys[] = { "speed",    "width",    "expect", "node_name_map",
                                        "interval", "counters", NULL };
    struct map_fabric *fb = &p->map->fabric;
    yaml_node_t *k, *v;

    if (want(p, n, YAML_MAPPING_NODE, "fabric") < 0)
        return -1;
    fb->present = 1;
    fb->line = (int)n->start_mark.line + 1;
    fb->col = (int)n->start_mark.column + 1;
    FOR_PAIRS(p, n, it, k, v)
    {
        char *str = NULL;
        int rc = 0;
        if (key_scalar(p, k) < 0)
            return -1;
        if (is_key(k, "speed")) {
            if (get_str(p, v, "speed", &str) < 0)
                return -1;
            fb->speed = ibf_speed_parse(str);
            free(str);
            if (!fb->speed)
                return perr(p, v, "speed must be SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR");
        } else if (is_key(k, "width")) {
            char *end;
            long w;
            if (get_str(p, v, "width", &str) < 0)
                return -1;
            w = strtol(str, &end, 10);
            if (*end == 'x' || *end == 'X')
                end++;
            rc = end == str || *end || (w != 1 && w != 2 && w != 4 && w != 8 && w != 12);
            free(str);
            if (rc)
                return perr(p, v, "width must be 1x, 2x, 4x, 8x or 12x");
            fb->width = (int)w;
        } else if (is_key(k, "expect") || is_key(k, "node_name_map")) {
            if (get_str(p, v, scalar(k), &str) < 0)
                return -1;
            /* a fabric section given twice: the last one counts */
            if (is_key(k, "expect")) {
                free(fb->expect);
                fb->expect = map_relative(p, str);
            } else {
                free(fb->node_name_map);
                fb->node_name_map = map_relative(p, str);
            }
            free(str);
        } else if (is_key(k, "interval")) {
            if (get_double(p, v, "interval", 0, &fb->interval) < 0)
                return -1;
            if (fb->interval <= 0 || fb->interval > 3600)
                return perr(p, v, "interval takes seconds (0 < s <= 3600)");
        } else if (is_key(k, "counters"))
            rc = parse_counters(p, v, fb);
        else
            rc = unknown_key(p, k, "fabric", keys);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int parse_watch(struct parse *p, yaml_node_t *n)
{
    static const char *const keys[] = { "interval",   "flap_count", "flap_window", "grace",
                                        "down_after", "hold",       "limits",      NULL };
    struct map_watch *w = &p->map->watch;
    yaml_node_t *k, *v, *k2, *v2;

    if (want(p, n, YAML_MAPPING_NODE, "watch") < 0)
        return -1;
    w->present = 1;
    w->line = (int)n->start_mark.line + 1;
    w->col = (int)n->start_mark.column + 1;
    FOR_PAIRS(p, n, it, k, v)
    {
        double *d = NULL;
        if (key_scalar(p, k) < 0)
            return -1;
        if (is_key(k, "flap_count")) {
            if (get_int(p, v, "flap_count", 1, 64, &w->flap_count) < 0)
                return -1;
            continue;
        }
        if (is_key(k, "limits")) {
            if (want(p, v, YAML_MAPPING_NODE, "limits") < 0)
                return -1;
            FOR_PAIRS(p, v, it2, k2, v2)
            {
                struct map_watch_limit *l;
                if (key_scalar(p, k2) < 0)
                    return -1;
                w->limits = xrealloc(w->limits, (w->nlimits + 1) * sizeof(*w->limits));
                l = &w->limits[w->nlimits++];
                l->name = xstrdup(scalar(k2));
                l->line = (int)k2->start_mark.line + 1;
                l->col = (int)k2->start_mark.column + 1;
                if (get_double(p, v2, "a counter's limit a second", 0, &l->per_s) < 0)
                    return -1;
            }
            continue;
        }
        d = is_key(k, "interval")      ? &w->interval
            : is_key(k, "flap_window") ? &w->flap_window
            : is_key(k, "grace")       ? &w->grace
            : is_key(k, "down_after")  ? &w->down_after
            : is_key(k, "hold")        ? &w->hold
                                       : NULL;
        if (!d)
            return unknown_key(p, k, "watch", keys);
        if (get_double(p, v, scalar(k), 0, d) < 0)
            return -1;
        if (*d > 86400 || (d == &w->interval && (*d < 0.05 || *d > 3600)) ||
            (d == &w->flap_window && *d < 1))
            return perr(p, v, "%s takes seconds (%s), not %s", scalar(k),
                        d == &w->interval      ? "0.05 to 3600"
                        : d == &w->flap_window ? "1 to 86400"
                                               : "0 to 86400",
                        scalar(v));
    }
    return 0;
}

static int parse_root(struct parse *p, yaml_node_t *root)
{
    static const char *const keys[] = { "cluster",  "node_types", "nodes", "rails", "fabric",
                                        "severity", "ignore",     "watch", NULL };
    struct topo_map *m = p->map;
    yaml_node_t *k, *v, *k2, *v2;

    if (!root)
        return perr(p, NULL, "empty map");
    if (want(p, root, YAML_MAPPING_NODE, "the map") < 0)
        return -1;
    FOR_PAIRS(p, root, it, k, v)
    {
        int rc = 0;
        if (key_scalar(p, k) < 0)
            return -1;
        if (is_key(k, "cluster"))
            rc = get_str(p, v, "cluster", &m->cluster);
        else if (is_key(k, "node_types")) {
            if (want(p, v, YAML_MAPPING_NODE, "node_types") < 0)
                return -1;
            FOR_PAIRS(p, v, it2, k2, v2)
            {
                if (key_scalar(p, k2) < 0)
                    return -1;
                for (size_t i = 0; i < m->ntypes; i++)
                    if (!strcmp(m->types[i].name, scalar(k2)))
                        return perr(p, k2, "node type '%s' is defined twice", scalar(k2));
                m->types = xrealloc(m->types, (m->ntypes + 1) * sizeof(*m->types));
                rc = parse_type(p, k2, v2, &m->types[m->ntypes]);
                m->ntypes++;
                if (rc < 0)
                    return -1;
            }
        } else if (is_key(k, "nodes")) {
            if (want(p, v, YAML_MAPPING_NODE, "nodes") < 0)
                return -1;
            FOR_PAIRS(p, v, it2, k2, v2)
            {
                struct map_nodes *e;
                ry_error_t herr;
                if (key_scalar(p, k2) < 0 || want(p, v2, YAML_SCALAR_NODE, "a node type name") < 0)
                    return -1;
                if (ry_hostlist_validate(scalar(k2), &herr) < 0)
                    return perr(p, k2, "bad host list '%s': %s", scalar(k2), herr.text);
                m->nodes = xrealloc(m->nodes, (m->nnodes + 1) * sizeof(*m->nodes));
                e = &m->nodes[m->nnodes++];
                e->hostlist = xstrdup(scalar(k2));
                e->type = xstrdup(scalar(v2));
                e->line = (int)v2->start_mark.line + 1;
                e->col = (int)v2->start_mark.column + 1;
            }
        } else if (is_key(k, "rails"))
            rc = parse_rails(p, v);
        else if (is_key(k, "fabric"))
            rc = parse_fabric(p, v);
        else if (is_key(k, "watch"))
            rc = parse_watch(p, v);
        else if (is_key(k, "severity"))
            rc = parse_severity(p, v, &m->severity, &m->nseverity);
        else if (is_key(k, "ignore"))
            rc = get_strlist(p, v, "ignore", &m->ignore, &m->nignore);
        else
            rc = unknown_key(p, k, "the map", keys);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Cross-references: node types named by nodes exist; rails and NICs agree. */
static int validate(struct parse *p)
{
    struct topo_map *m = p->map;

    if (m->ntypes == 0)
        return perr(p, NULL, "no node_types: a map describes at least one node type");
    for (size_t i = 0; i < m->nnodes; i++)
        if (!topo_map_type_by_name(m, m->nodes[i].type)) {
            errno = EINVAL;
            return ry_errorf(p->err, "%s:%d:%d: node type '%s' is not defined in node_types",
                             p->name, m->nodes[i].line, m->nodes[i].col, m->nodes[i].type);
        }
    for (size_t r = 0; r < m->nrails; r++) {
        int used = 0;
        for (size_t t = 0; t < m->ntypes; t++)
            for (size_t n = 0; n < m->types[t].nnics; n++)
                used |= m->types[t].nics[n].rail == m->rails[r].id;
        if (!used) {
            errno = EINVAL;
            return ry_errorf(p->err, "%s:%d:%d: rail %d has no NIC (no node type's nics use it)",
                             p->name, m->rails[r].line, m->rails[r].col, m->rails[r].id);
        }
    }
    if (m->nrails)
        for (size_t t = 0; t < m->ntypes; t++)
            for (size_t n = 0; n < m->types[t].nnics; n++) {
                const struct map_nic *nic = &m->types[t].nics[n];
                int declared = nic->rail < 0;
                for (size_t r = 0; r < m->nrails && !declared; r++)
                    declared = m->rails[r].id == nic->rail;
                if (!declared) {
                    errno = EINVAL;
                    return ry_errorf(p->err,
                                     "%s:%d:%d: NIC %s is on rail %d, which rails: "
                                     "does not declare",
                                     p->name, nic->line, nic->col, nic->name, nic->rail);
                }
            }
    return 0;
}

struct topo_map *topo_map_load_buffer(const char *buf, size_t len, const char *name,
                                      ry_error_t *err)
{
    struct parse p = { .name = name, .err = err };
    yaml_parser_t parser;
    int loaded;

    p.map = xcalloc(1, sizeof(*p.map));
    p.map->path = xstrdup(name);
    p.map->fabric.interval = -1;
    p.map->watch.interval = p.map->watch.flap_window = p.map->watch.grace = -1;
    p.map->watch.down_after = p.map->watch.hold = -1;
    if (!yaml_parser_initialize(&parser)) {
        topo_map_destroy(p.map);
        ry_errorf(err, "%s: cannot initialise the YAML parser", name);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    loaded = yaml_parser_load(&parser, &p.doc);
    if (!loaded) {
        errno = EINVAL;
        ry_errorf(err, "%s:%zu:%zu: malformed YAML: %s%s%s", name, parser.problem_mark.line + 1,
                  parser.problem_mark.column + 1, parser.problem ? parser.problem : "error",
                  parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        topo_map_destroy(p.map);
        return NULL;
    }
    yaml_parser_delete(&parser);
    if (parse_root(&p, yaml_document_get_root_node(&p.doc)) < 0 || validate(&p) < 0) {
        yaml_document_delete(&p.doc);
        topo_map_destroy(p.map);
        return NULL;
    }
    yaml_document_delete(&p.doc);
    return p.map;
}

struct topo_map *topo_map_load(const char *path, ry_error_t *err)
{
    struct topo_map *m;
    char *buf;
    size_t len;

    if (ry_read_file(path, &buf, &len, err) < 0)
        return NULL;
    m = topo_map_load_buffer(buf, len, path, err);
    free(buf);
    return m;
}
