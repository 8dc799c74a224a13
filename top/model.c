#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/xmalloc.h"
#include "reports/out.h"
#include "top/top.h"

void top_model_init(struct top_model *m)
{
    memset(m, 0, sizeof(*m));
}

void top_model_free(struct top_model *m)
{
    free(m->slot);
    free(m->p);
    free(m->nv);
    free(m->f);
    free(m->ev);
    free(m->order);
    free(m->by_name);
    free(m->mnames);
    free(m->matrix);
    memset(m, 0, sizeof(*m));
}

static void port_init(struct top_port *p, const char *node, const char *dev, int port)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->node, sizeof(p->node), "%s", node);
    snprintf(p->dev, sizeof(p->dev), "%s", dev);
    p->port = port;
    p->rail = p->peer_rail = -1;
    p->rate_gbps = p->expect_gbps = NAN;
    p->tx_gbps = p->rx_gbps = p->err_per_s = NAN;
    p->src = -1;
}

void top_model_clear_ports(struct top_model *m)
{
    m->n = m->hint = m->ranked = 0;
    if (m->slot)
        memset(m->slot, 0, m->nslot * sizeof(*m->slot));
    free(m->order);
    m->order = NULL;
    m->nshown = m->selected = 0;
}

static size_t port_hash(const char *node, const char *dev, int port)
{
    size_t h = ry_hash_byte(ry_hash_str(RY_HASH_INIT, node), 0x1f);
    return (ry_hash_str(h, dev) ^ (size_t)port) * (size_t)1099511628211ULL;
}

static void slot_put(struct top_model *m, size_t i)
{
    size_t k = port_hash(m->p[i].node, m->p[i].dev, m->p[i].port) & (m->nslot - 1);
    while (m->slot[k])
        k = (k + 1) & (m->nslot - 1);
    m->slot[k] = i + 1;
}

struct top_port *top_model_port(struct top_model *m, const char *node, const char *dev, int port)
{
    struct top_port *p;
    char n[TOP_NAME], d[64];
    size_t k;

    /* each refresh asks for the ports in the order of the last one: the one after the last
     * found is tried first; else the hash (a fabric of thousands of ports is added in one
     * refresh: a scan per port would be quadratic) */
    if (m->hint < m->n && m->p[m->hint].port == port && !strcmp(m->p[m->hint].node, node) &&
        !strcmp(m->p[m->hint].dev, dev))
        return &m->p[m->hint++];
    /* stored cut to the fields' sizes: looked up the same way */
    snprintf(n, sizeof(n), "%s", node);
    snprintf(d, sizeof(d), "%s", dev);
    if (m->nslot)
        for (k = port_hash(n, d, port) & (m->nslot - 1); m->slot[k]; k = (k + 1) & (m->nslot - 1)) {
            p = &m->p[m->slot[k] - 1];
            if (p->port == port && !strcmp(p->node, n) && !strcmp(p->dev, d)) {
                m->hint = m->slot[k];
                return p;
            }
        }
    xgrow((void **)&m->p, &m->alloc, m->n + 1, sizeof(*m->p));
    p = &m->p[m->n++];
    port_init(p, n, d, port);
    if ((m->n + 1) * 2 > m->nslot) {
        free(m->slot);
        m->nslot = m->nslot ? m->nslot * 2 : 256;
        while ((m->n + 1) * 2 > m->nslot)
            m->nslot *= 2;
        m->slot = xcalloc(m->nslot, sizeof(*m->slot));
        for (size_t i = 0; i < m->n; i++)
            slot_put(m, i);
    } else
        slot_put(m, m->n - 1);
    m->hint = m->n;
    return p;
}

struct top_port *top_model_nvlink(struct top_model *m, const char *gpu, int link)
{
    char dev[32];

    snprintf(dev, sizeof(dev), "nvlink%d", link);
    for (size_t i = 0; i < m->nnv; i++)
        if (!strcmp(m->nv[i].node, gpu) && !strcmp(m->nv[i].dev, dev))
            return &m->nv[i];
    xgrow((void **)&m->nv, &m->nvalloc, m->nnv + 1, sizeof(*m->nv));
    port_init(&m->nv[m->nnv], gpu, dev, link);
    return &m->nv[m->nnv++];
}

void top_port_sample(struct top_port *p, double t, uint64_t tx, uint64_t rx, uint64_t err,
                     const char *err_names)
{
    if (p->nsamples > 0) { /* the newest becomes the older */
        p->t[0] = p->t[1];
        p->tx[0] = p->tx[1];
        p->rx[0] = p->rx[1];
        p->err[0] = p->err[1];
        memcpy(p->err_names[0], p->err_names[1], sizeof(p->err_names[0]));
    }
    p->t[1] = t;
    p->tx[1] = tx;
    p->rx[1] = rx;
    p->err[1] = err;
    snprintf(p->err_names[1], sizeof(p->err_names[1]), "%s", err_names ? err_names : "");
    if (p->nsamples < 2)
        p->nsamples++;
    if (p->nsamples == 1) { /* a single sample: both slots hold it */
        p->t[0] = t;
        p->tx[0] = tx;
        p->rx[0] = rx;
        p->err[0] = err;
        memcpy(p->err_names[0], p->err_names[1], sizeof(p->err_names[0]));
    }
}

void top_model_add_event(struct top_model *m, const struct top_event *e)
{
    if (!m->ev)
        m->ev = xcalloc(TOP_EVENTS, sizeof(*m->ev));
    if (m->nev < TOP_EVENTS)
        m->nev++;
    memmove(&m->ev[1], &m->ev[0], (m->nev - 1) * sizeof(*m->ev));
    m->ev[0] = *e;
}

void top_model_add_finding(struct top_model *m, enum top_sev sev, const char *check,
                           const char *subject, const char *text)
{
    struct top_finding *f;

    xgrow((void **)&m->f, &m->falloc, m->nf + 1, sizeof(*m->f));
    f = &m->f[m->nf++];
    f->sev = sev;
    snprintf(f->check, sizeof(f->check), "%s", check ? check : "");
    snprintf(f->subject, sizeof(f->subject), "%s", subject ? subject : "");
    snprintf(f->text, sizeof(f->text), "%s", text ? text : "");
}

void top_model_clear_findings(struct top_model *m)
{
    m->nf = 0;
}

/* the counters of "a=1 b=2" in now that are higher than in before: "a +3" */
static void rising(const char *before, const char *now, char *out, size_t len)
{
    char name[64];
    unsigned long long v, w;
    int used;
    size_t n = 0;

    out[0] = '\0';
    for (const char *s = now; sscanf(s, " %63[^= ]=%llu%n", name, &v, &used) == 2; s += used) {
        const char *b = before;
        char bn[64];
        int bused;
        w = 0;
        while (b && sscanf(b, " %63[^= ]=%llu%n", bn, &w, &bused) == 2 && strcmp(bn, name)) {
            b += bused;
            w = 0;
        }
        if (v > w && n + 1 < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s +%llu", n ? ", " : "", name, v - w);
        if (n >= len)
            n = len - 1;
    }
}

static void derive_port(struct top_port *p)
{
    double dt = p->t[1] - p->t[0];

    p->tx_gbps = p->rx_gbps = p->err_per_s = NAN;
    p->rising[0] = '\0';
    if (p->nsamples == 2 && dt > 0) {
        if (p->tx[1] >= p->tx[0])
            p->tx_gbps = (double)(p->tx[1] - p->tx[0]) * 8 / dt / 1e9;
        if (p->rx[1] >= p->rx[0])
            p->rx_gbps = (double)(p->rx[1] - p->rx[0]) * 8 / dt / 1e9;
        p->err_per_s = p->err[1] >= p->err[0] ? (double)(p->err[1] - p->err[0]) / dt : 0;
        rising(p->err_names[0], p->err_names[1], p->rising, sizeof(p->rising));
    }
    p->sev = TOP_OK;
    p->why[0] = '\0';
    if (p->state == TOP_STATE_DOWN) {
        p->sev = TOP_FAIL;
        snprintf(p->why, sizeof(p->why), "link %s", p->state_text[0] ? p->state_text : "down");
    } else if (p->err_per_s > 0) {
        p->sev = TOP_FAIL;
        snprintf(p->why, sizeof(p->why), "errors rising: %.140s",
                 p->rising[0] ? p->rising : "error counters");
    } else if (p->rail >= 0 && p->peer_rail >= 0 && p->rail != p->peer_rail) {
        p->sev = TOP_FAIL;
        snprintf(p->why, sizeof(p->why), "rail %d port cabled to %s, a leaf of rail %d", p->rail,
                 p->peer, p->peer_rail);
    } else if (!isnan(p->expect_gbps) && !isnan(p->rate_gbps) &&
               p->rate_gbps < p->expect_gbps * 0.99) {
        p->sev = TOP_WARN;
        snprintf(p->why, sizeof(p->why), "rate %.0f Gb/s, the map expects %.0f", p->rate_gbps,
                 p->expect_gbps);
    }
    if (p->unread[0] && p->sev == TOP_OK) {
        p->sev = TOP_WARN;
        snprintf(p->why, sizeof(p->why), "counters not read: %.130s", p->unread);
    }
    /* railyard watch saw it flap or stay down, between refreshes too: marked whatever it shows
     * now (a port up again may be flapping) */
    if (p->watch[0] && (p->sev != TOP_FAIL || p->state == TOP_STATE_DOWN)) {
        p->sev = TOP_FAIL;
        snprintf(p->why, sizeof(p->why), "watch: %.150s", p->watch);
    }
}

void top_model_derive(struct top_model *m)
{
    for (size_t i = 0; i < m->n; i++)
        derive_port(&m->p[i]);
    for (size_t i = 0; i < m->nnv; i++)
        derive_port(&m->nv[i]);
}

/* ---- filter and sort ---- */

static const struct top_model *sort_model; /* qsort has no context argument */

/* highest first (unknown values are kept last by cmp_port) */
static int cmp_desc(double a, double b)
{
    if (isnan(a) || isnan(b))
        return 0;
    return a > b ? -1 : a < b;
}

static double sort_value(const struct top_port *p, enum top_sort s)
{
    return s == TOP_SORT_TX ? p->tx_gbps : s == TOP_SORT_RX ? p->rx_gbps : p->err_per_s;
}

static int cmp_natural(const char *a, const char *b)
{
    return strverscmp(a, b);
}

static int cmp_port(const void *x, const void *y)
{
    const struct top_model *m = sort_model;
    const struct top_port *a = &m->p[*(const size_t *)x], *b = &m->p[*(const size_t *)y];
    int c = 0;

    switch (m->sort) {
    case TOP_SORT_RAIL:
        if ((a->rail < 0) != (b->rail < 0))
            return (a->rail < 0) - (b->rail < 0); /* no rail: last */
        c = (a->rail > b->rail) - (a->rail < b->rail);
        break;
    case TOP_SORT_TX:
    case TOP_SORT_RX:
    case TOP_SORT_ERRORS: {
        double va = sort_value(a, m->sort), vb = sort_value(b, m->sort);
        if (isnan(va) != isnan(vb))
            return isnan(va) - isnan(vb); /* unknown: last */
        c = cmp_desc(va, vb);
        break;
    }
    case TOP_SORT_STATE: c = (int)b->sev - (int)a->sev; break;
    default: break;
    }
    if (m->reverse)
        c = -c;
    return c ? c : (a->name_rank > b->name_rank) - (a->name_rank < b->name_rank);
}

static int cmp_name(const void *x, const void *y)
{
    const struct top_port *a = &sort_model->p[*(const size_t *)x],
                          *b = &sort_model->p[*(const size_t *)y];
    int c = cmp_natural(a->node, b->node);

    if (!c)
        c = cmp_natural(a->dev, b->dev);
    return c ? c : a->port - b->port;
}

/* Rank the ports by name once: a port's name never changes, and ports are only added (or all
 * forgotten), so the natural-order comparisons of 17,000 fabric ports are not made again at
 * every refresh (they were the console's largest cost after the counter reads) */
static void rank_names(struct top_model *m)
{
    size_t *idx;

    if (m->ranked == m->n)
        return;
    idx = m->by_name = xrealloc(m->by_name, (m->n ? m->n : 1) * sizeof(*idx));
    for (size_t i = 0; i < m->n; i++)
        idx[i] = i;
    qsort(idx, m->n, sizeof(*idx), cmp_name);
    for (size_t i = 0; i < m->n; i++)
        m->p[idx[i]].name_rank = i;
    m->ranked = m->n;
}

static int matches(const struct top_port *p, const char *filter)
{
    char rail[16];

    if (!filter[0])
        return 1;
    snprintf(rail, sizeof(rail), "rail%d", p->rail);
    return strstr(p->node, filter) || strstr(p->dev, filter) || strstr(p->peer, filter) ||
           (p->rail >= 0 && !strcmp(rail, filter)) || strstr(p->state_text, filter);
}

void top_model_view(struct top_model *m)
{
    m->order = xrealloc(m->order, (m->n ? m->n : 1) * sizeof(*m->order));
    m->nshown = 0;
    sort_model = m;
    rank_names(m);
    if (m->sort == TOP_SORT_NODE) { /* the name order is the ranking: no sort at each refresh */
        for (size_t k = 0; k < m->n; k++)
            if (matches(&m->p[m->by_name[k]], m->filter))
                m->order[m->nshown++] = m->by_name[k];
    } else {
        for (size_t i = 0; i < m->n; i++)
            if (matches(&m->p[i], m->filter))
                m->order[m->nshown++] = i;
        qsort(m->order, m->nshown, sizeof(*m->order), cmp_port);
    }
    sort_model = NULL;
    if (m->selected >= m->nshown)
        m->selected = m->nshown ? m->nshown - 1 : 0;
}

int top_view_parse(const char *s, enum top_view *v)
{
    static const char *const names[] = {
        "ports", "rails", "nvlink", "findings", "matrix", "events"
    };
    for (int i = 0; i < (int)(sizeof(names) / sizeof(*names)); i++)
        if (!strcmp(s, names[i])) {
            *v = (enum top_view)i;
            return 0;
        }
    return -1;
}

int top_sort_parse(const char *s, enum top_sort *v)
{
    static const char *const names[TOP_NSORT] = { "node", "rail", "tx", "rx", "errors", "state" };
    for (int i = 0; i < TOP_NSORT; i++)
        if (!strcmp(s, names[i])) {
            *v = (enum top_sort)i;
            return 0;
        }
    return -1;
}

const char *top_sort_name(enum top_sort s)
{
    static const char *const names[TOP_NSORT] = { "node", "rail", "TX", "RX", "errors", "state" };
    return s < TOP_NSORT ? names[s] : "node";
}

/* ---- layout ---- */

const char *top_fmt_gbps(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else if (v < 10)
        snprintf(buf, len, "%.2f", v);
    else if (v < 100)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.0f", v);
    return buf;
}

/* s made inert (control characters as \xHH) and cut to width columns */
static void line_set(struct top_line *l, int width, enum top_sev sev, const char *s)
{
    char buf[1024];
    size_t w = width > 0 ? (size_t)width : 0;

    out_inert(s, buf, sizeof(buf));
    if (w >= sizeof(l->text))
        w = sizeof(l->text) - 1;
    snprintf(l->text, sizeof(l->text), "%.*s", (int)w, buf);
    l->sev = sev;
    l->selected = 0;
    l->header = 0;
}

void top_layout_header(const struct top_model *m, int width, struct top_line out[2])
{
    size_t up = 0, known = 0, fail = 0, warn = 0;
    double err = 0, tx = 0;
    int any_err = 0, any_tx = 0;
    char a[512], e[32], t[32];

    for (size_t i = 0; i < m->n; i++) {
        const struct top_port *p = &m->p[i];
        known += p->state != TOP_STATE_UNKNOWN;
        up += p->state == TOP_STATE_UP;
        fail += !m->source_findings && p->sev == TOP_FAIL;
        warn += !m->source_findings && p->sev == TOP_WARN;
        if (!isnan(p->err_per_s))
            err += p->err_per_s, any_err = 1;
        if (!isnan(p->tx_gbps))
            tx += p->tx_gbps, any_tx = 1;
    }
    for (size_t i = 0; i < m->nf; i++) {
        fail += m->f[i].sev == TOP_FAIL;
        warn += m->f[i].sev == TOP_WARN;
    }
    if (any_err)
        snprintf(e, sizeof(e), "%.1f/s", err);
    else
        snprintf(e, sizeof(e), "n/a");
    snprintf(a, sizeof(a), "railyard top  %s  ports up %zu/%zu%s  errors %s  traffic %s Gb/s",
             m->source, up, m->n, known < m->n ? " (some n/a)" : "", e,
             any_tx ? top_fmt_gbps(tx, t, sizeof(t)) : "n/a");
    line_set(&out[0], width, TOP_OK, a);
    snprintf(a, sizeof(a), "findings: %zu fail, %zu warn   refresh %d   sort %s%s%s%s%s%.200s",
             fail, warn, m->refreshes, top_sort_name(m->sort), m->reverse ? " (reversed)" : "",
             m->filter[0] ? "   filter: " : "", m->filter,
             m->source_error[0] ? "   SOURCE NOT READ: " : "", m->source_error);
    line_set(&out[1], width, fail || m->source_error[0] ? TOP_FAIL : warn ? TOP_WARN : TOP_OK, a);
}

void top_layout_status(const struct top_model *m, int width, struct top_line *out)
{
    line_set(out, width, m->status_sev, m->status);
}

void top_layout_footer(const struct top_model *m, int width, struct top_line *out)
{
    static const char *const views[] = {
        "ports", "rails", "NVLink", "findings", "matrix", "events"
    };
    char a[512];

    snprintf(a, sizeof(a),
             "[%s] p ports  r rails  n NVLink  f findings  e events%s  s sort  S reverse  / "
             "filter  %s  q quit",
             views[m->view], m->matrix ? "  m matrix" : "",
             m->view == TOP_VIEW_NVLINK ? "P peer-probe the GPU pair" : "t test the port");
    line_set(out, width, TOP_OK, a);
    out->header = 1;
}

static size_t view_ports(const struct top_model *m, int width, struct top_line *out, size_t max)
{
    char a[1024], rate[16], tx[16], rx[16], er[32], rail[16];
    size_t n = 0;

    if (!max)
        return 0;
    snprintf(a, sizeof(a), "%-16s %-12s %-4s %-8s %6s %8s %8s %9s  %s", "NODE", "HCA:PORT", "RAIL",
             "STATE", "RATE", "TX Gb/s", "RX Gb/s", "ERR/s", "PEER / WHY");
    line_set(&out[n], width, TOP_OK, a);
    out[n++].header = 1;
    if (!m->n || !m->nshown) {
        if (n < max)
            line_set(&out[n++], width, TOP_OK,
                     !m->n ? (m->empty_why[0] ? m->empty_why : "no port")
                           : "no port matches the filter (/ to change it)");
        return n;
    }
    for (size_t k = 0; k < m->nshown && n < max; k++) {
        const struct top_port *p = &m->p[m->order[k]];
        char hp[96];
        if (p->port > 0)
            snprintf(hp, sizeof(hp), "%s%s%d", p->dev, p->dev[0] ? ":" : "", p->port);
        else
            snprintf(hp, sizeof(hp), "%s", p->dev);
        if (p->rail >= 0)
            snprintf(rail, sizeof(rail), "%d", p->rail);
        else
            snprintf(rail, sizeof(rail), "-");
        if (isnan(p->err_per_s))
            snprintf(er, sizeof(er), "n/a");
        else
            snprintf(er, sizeof(er), "%.1f", p->err_per_s);
        snprintf(a, sizeof(a), "%-16.16s %-12.12s %-4s %-8.8s %6s %8s %8s %9s  %s", p->node, hp,
                 rail, p->state_text[0] ? p->state_text : "n/a",
                 top_fmt_gbps(p->rate_gbps, rate, sizeof(rate)),
                 top_fmt_gbps(p->tx_gbps, tx, sizeof(tx)), top_fmt_gbps(p->rx_gbps, rx, sizeof(rx)),
                 er, p->why[0] ? p->why : p->peer);
        line_set(&out[n], width, p->sev, a);
        out[n++].selected = k == m->selected;
    }
    return n;
}

/* nodes x rails: each port UP, DOWN, ERR (errors rising), X>rN (cabled to rail N's leaf) */
static size_t view_rails(const struct top_model *m, int width, struct top_line *out, size_t max)
{
    int rails = 0;
    size_t n = 0, nodes = 0;
    const char **names = NULL;
    char a[1024];

    for (size_t i = 0; i < m->n; i++)
        if (m->p[i].rail >= 0 && m->p[i].rail < 64 && m->p[i].rail + 1 > rails)
            rails = m->p[i].rail + 1;
    for (size_t k = 0; k < m->nshown; k++) { /* the nodes shown, in the view's order */
        const struct top_port *p = &m->p[m->order[k]];
        size_t j;
        if (p->rail < 0)
            continue;
        for (j = 0; j < nodes && strcmp(names[j], p->node); j++)
            ;
        if (j == nodes) {
            names = xrealloc(names, (nodes + 1) * sizeof(*names));
            names[nodes++] = p->node;
        }
    }
    if (!max) {
        free(names);
        return 0;
    }
    {
        size_t w = (size_t)snprintf(a, sizeof(a), "%-16s", "NODE");
        for (int r = 0; r < rails && w + 10 < sizeof(a); r++)
            w += (size_t)snprintf(a + w, sizeof(a) - w, " rail%-4d", r);
    }
    line_set(&out[n], width, TOP_OK, a);
    out[n++].header = 1;
    if (!nodes) {
        if (n < max)
            line_set(&out[n++], width, TOP_OK,
                     m->n ? "no port with a rail: give the map (--map) that assigns them"
                          : (m->empty_why[0] ? m->empty_why : "no port"));
        free(names);
        return n;
    }
    for (size_t j = 0; j < nodes && n < max; j++) {
        enum top_sev worst = TOP_OK;
        size_t w = (size_t)snprintf(a, sizeof(a), "%-16.16s", names[j]);
        for (int r = 0; r < rails && w + 10 < sizeof(a); r++) {
            const struct top_port *q = NULL;
            char cell[16];
            for (size_t i = 0; i < m->n && !q; i++)
                if (m->p[i].rail == r && !strcmp(m->p[i].node, names[j]))
                    q = &m->p[i];
            if (!q)
                snprintf(cell, sizeof(cell), "-");
            else if (q->peer_rail >= 0 && q->peer_rail != r)
                snprintf(cell, sizeof(cell), "X>r%d", q->peer_rail);
            else if (q->state == TOP_STATE_DOWN)
                snprintf(cell, sizeof(cell), "DOWN");
            else if (q->sev == TOP_FAIL)
                snprintf(cell, sizeof(cell), "ERR");
            else if (q->state == TOP_STATE_UP)
                snprintf(cell, sizeof(cell), q->sev == TOP_WARN && !q->unread[0] ? "SLOW" : "up");
            else
                snprintf(cell, sizeof(cell), "n/a");
            if (q && q->sev > worst)
                worst = q->sev;
            w += (size_t)snprintf(a + w, sizeof(a) - w, " %-8s", cell);
        }
        line_set(&out[n], width, worst, a);
        n++;
    }
    free(names);
    return n;
}

static size_t view_findings(const struct top_model *m, int width, struct top_line *out, size_t max)
{
    size_t n = 0;
    char a[1024];

    if (!max)
        return 0;
    snprintf(a, sizeof(a), "%-5s %-22s %-28s %s", "SEV", "CHECK", "SUBJECT", "OBSERVED");
    line_set(&out[n], width, TOP_OK, a);
    out[n++].header = 1;
    for (int sev = TOP_FAIL; sev >= TOP_WARN; sev--) {
        for (size_t i = 0; i < m->nf && n < max; i++)
            if ((int)m->f[i].sev == sev) {
                snprintf(a, sizeof(a), "%-5s %-22.22s %-28.28s %s",
                         sev == TOP_FAIL ? "FAIL" : "WARN", m->f[i].check, m->f[i].subject,
                         m->f[i].text);
                line_set(&out[n++], width, m->f[i].sev, a);
            }
        for (size_t k = 0; k < m->nshown && n < max && !m->source_findings; k++) {
            const struct top_port *p = &m->p[m->order[k]];
            char subj[200];
            if ((int)p->sev != sev)
                continue;
            snprintf(subj, sizeof(subj), "%s/%s%s%.0d", p->node, p->dev, p->port ? ":" : "",
                     p->port);
            snprintf(a, sizeof(a), "%-5s %-22s %-28.28s %s", sev == TOP_FAIL ? "FAIL" : "WARN",
                     "port", subj, p->why);
            line_set(&out[n++], width, p->sev, a);
        }
    }
    if (n == 1 && n < max)
        line_set(&out[n++], width, TOP_OK,
                 m->n ? "no finding: every port is up, error-free and as the map says"
                      : (m->empty_why[0] ? m->empty_why : "no port"));
    return n;
}

static size_t view_nvlink(const struct top_model *m, int width, struct top_line *out, size_t max)
{
    char a[1024], tx[16], rx[16], er[32];
    size_t n = 0;

    if (!max)
        return 0;
    snprintf(a, sizeof(a), "%-24s %-8s %-6s %8s %8s %9s  %s", "GPU", "LINK", "STATE", "TX Gb/s",
             "RX Gb/s", "ERR/s", "PEER / WHY");
    line_set(&out[n], width, TOP_OK, a);
    out[n++].header = 1;
    if (!m->nnv) {
        if (n < max)
            line_set(&out[n++], width, TOP_OK,
                     m->nvlink_why[0] ? m->nvlink_why : "no NVLink information");
        return n;
    }
    for (size_t k = 0; k < m->nnv && n < max; k++) {
        const struct top_port *p = &m->nv[k];
        if (isnan(p->err_per_s))
            snprintf(er, sizeof(er), "n/a");
        else
            snprintf(er, sizeof(er), "%.1f", p->err_per_s);
        snprintf(a, sizeof(a), "%-24.24s %-8.8s %-6.6s %8s %8s %9s  %s", p->node, p->dev,
                 p->state_text[0] ? p->state_text : "n/a", top_fmt_gbps(p->tx_gbps, tx, sizeof(tx)),
                 top_fmt_gbps(p->rx_gbps, rx, sizeof(rx)), er, p->why[0] ? p->why : p->peer);
        line_set(&out[n], width, p->sev, a);
        out[n++].selected = k == m->nv_selected;
    }
    return n;
}

static unsigned char cell(const struct top_model *m, int r, int i, int j)
{
    return m->matrix[((size_t)r * (size_t)m->mnodes + (size_t)i) * (size_t)m->mnodes + (size_t)j];
}

/* per rail, nodes x nodes: # good, + fair, - low, X failed, . not measured (yet). Rows carry the
 * node's index and name, columns the index, written downwards above them (a ruler). */
static size_t view_matrix(const struct top_model *m, int width, struct top_line *out, size_t max)
{
    static const char mark[] = ".#+-X";
    size_t n = 0;
    char a[1024];
    int digits = 1, oneway = 0, twoway = 0;

    if (!max)
        return 0;
    line_set(&out[n], width, TOP_OK,
             m->progress[0] ? m->progress : "no pair matrix (railyard top --follow RUN_DIR)");
    out[n++].header = 1;
    if (!m->mnodes || !m->mrails || !m->matrix) {
        if (n < max)
            line_set(&out[n++], width, TOP_OK,
                     m->empty_why[0] ? m->empty_why : "no link measured yet");
        return n;
    }
    for (int k = m->mnodes - 1; k >= 10; k /= 10)
        digits++;
    /* a schedule that measures one direction of each pair (all-pairs) leaves the other "." */
    for (int r = 0; r < m->mrails; r++)
        for (int i = 0; i < m->mnodes; i++)
            for (int j = i + 1; j < m->mnodes; j++) {
                int x = cell(m, r, i, j) != TOP_CELL_NONE, y = cell(m, r, j, i) != TOP_CELL_NONE;
                oneway += x != y;
                twoway += x && y;
            }
    if (n < max)
        line_set(&out[n++], width, TOP_OK,
                 "sender by row, receiver by column: # >= 90% of the rail's reference, + >= 50%, "
                 "- below, X failed");
    if (n < max) {
        snprintf(a, sizeof(a), ". %s",
                 !m->mcomplete       ? "not yet"
                 : oneway && !twoway ? "not measured: this run measured one direction of each pair"
                                     : "not measured in this run");
        line_set(&out[n++], width, TOP_OK, a);
    }
    for (int r = 0; r < m->mrails && n < max; r++) {
        snprintf(a, sizeof(a), "rail %d", r);
        line_set(&out[n], width, TOP_OK, a);
        out[n++].header = 1;
        /* the column indexes, one line per digit, the highest first */
        for (int d = digits - 1; d >= 0 && n < max; d--) {
            size_t w = (size_t)snprintf(a, sizeof(a), "%*s", digits + 18, "");
            int div = 1;
            for (int k = 0; k < d; k++)
                div *= 10;
            for (int j = 0; j < m->mnodes && w + 2 < sizeof(a); j++)
                a[w++] = j >= div || d == 0 ? (char)('0' + (j / div) % 10) : ' ';
            a[w] = '\0';
            line_set(&out[n++], width, TOP_OK, a);
        }
        for (int i = 0; i < m->mnodes && n < max; i++) {
            size_t w = (size_t)snprintf(a, sizeof(a), "%*d %-16.16s ", digits, i, m->mnames[i]);
            enum top_sev worst = TOP_OK;
            for (int j = 0; j < m->mnodes && w + 2 < sizeof(a); j++) {
                unsigned char c = cell(m, r, i, j);
                a[w++] = i == j ? ' ' : mark[c < 5 ? c : 0];
                if (c == TOP_CELL_FAILED || c == TOP_CELL_LOW)
                    worst = TOP_FAIL;
                else if (c == TOP_CELL_FAIR && worst == TOP_OK)
                    worst = TOP_WARN;
            }
            a[w] = '\0';
            line_set(&out[n++], width, worst, a);
        }
    }
    return n;
}

/* railyard watch's events, newest first; the watch's status first */
static size_t view_events(const struct top_model *m, int width, struct top_line *out, size_t max)
{
    char a[1024];
    size_t n = 0;

    if (max < 2)
        return 0;
    snprintf(a, sizeof(a), "%-20s  %-18s %-6s %-16s %s", "LAST", "EVENT", "PHASE", "PORT",
             "FIGURES");
    line_set(&out[n], width, TOP_OK, a);
    out[n++].header = 1;
    line_set(&out[n++], width, m->nev || strstr(m->watch_why, "watching") ? TOP_OK : TOP_WARN,
             m->watch_why[0] ? m->watch_why : "railyard watch: not read");
    for (size_t i = 0; i < m->nev && n < max; i++) {
        const struct top_event *e = &m->ev[i];
        char port[160];
        snprintf(port, sizeof(port), "%s%s%s%s", e->subject, e->counter[0] ? " (" : "", e->counter,
                 e->counter[0] ? ")" : "");
        snprintf(a, sizeof(a), "%-20.20s  %-18.18s %-6.6s %-16s %s", e->when, e->kind, e->phase,
                 port, e->figures);
        line_set(&out[n++], width, e->sev, a);
    }
    return n;
}

size_t top_layout_view(const struct top_model *m, int width, struct top_line *out, size_t max)
{
    switch (m->view) {
    case TOP_VIEW_EVENTS: return view_events(m, width, out, max);
    case TOP_VIEW_MATRIX: return view_matrix(m, width, out, max);
    case TOP_VIEW_RAILS: return view_rails(m, width, out, max);
    case TOP_VIEW_NVLINK: return view_nvlink(m, width, out, max);
    case TOP_VIEW_FINDINGS: return view_findings(m, width, out, max);
    default: return view_ports(m, width, out, max);
    }
}

/* the PCI address of a row's GPU or peer: "GPU3 0000:5d:00.0..." -> "0000:5d:00.0"; 0 or -1 */
static int gpu_busid(const char *s, char *out, size_t len)
{
    const char *sp;

    if (strncmp(s, "GPU", 3) || !(sp = strchr(s, ' ')))
        return -1;
    snprintf(out, len, "%.*s", (int)strcspn(sp + 1, " ;"), sp + 1);
    return out[0] ? 0 : -1;
}

int top_p2p_select(struct top_model *m, char *a, char *b, size_t len)
{
    const struct top_port *p;

    m->status_sev = TOP_WARN;
    if (m->view != TOP_VIEW_NVLINK) {
        snprintf(m->status, sizeof(m->status), "P: the peer probe runs from the NVLink view (n)");
        return 0;
    }
    if (!m->nnv) {
        snprintf(m->status, sizeof(m->status), "P: no GPU to select: %.500s",
                 m->nvlink_why[0] ? m->nvlink_why : "no NVLink information");
        return 0;
    }
    if (m->nv_selected >= m->nnv)
        m->nv_selected = m->nnv - 1;
    p = &m->nv[m->nv_selected];
    if (gpu_busid(p->node, a, len) < 0) {
        snprintf(m->status, sizeof(m->status), "P: %.80s is not a GPU's row", p->node);
        return 0;
    }
    if (gpu_busid(p->peer, b, len) == 0 && strcmp(a, b)) {
        m->p2p_mark[0] = '\0';
        return 1;
    }
    if (m->p2p_mark[0] && gpu_busid(m->p2p_mark, b, len) == 0 && strcmp(a, b)) {
        m->p2p_mark[0] = '\0';
        return 1;
    }
    snprintf(m->p2p_mark, sizeof(m->p2p_mark), "%.60s", p->node);
    m->status_sev = TOP_OK;
    snprintf(m->status, sizeof(m->status),
             "P: %.60s marked; select a link of the other GPU and press P again", p->node);
    return 0;
}
