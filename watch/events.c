#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "topo/map.h"
#include "watch/events.h"

#define FLAPS_KEPT 64 /* the flaps a port remembers: more than any limit needs */

static const char *const ctr_names[WATCH_NCTR] = {
    [WATCH_CARRIER_CHANGES] = "carrier_changes",
    [WATCH_LINK_DOWNED] = "LinkDownedCounter",
    [WATCH_LINK_RECOVERY] = "LinkErrorRecoveryCounter",
    [WATCH_SYMBOL_ERRORS] = "SymbolErrorCounter",
    [WATCH_RCV_ERRORS] = "PortRcvErrors",
    [WATCH_LOCAL_INTEGRITY] = "LocalLinkIntegrityErrors",
    [WATCH_BUFFER_OVERRUN] = "ExcessiveBufferOverrunErrors",
    [WATCH_OUT_OF_SEQUENCE] = "out_of_sequence",
    [WATCH_SEQ_ERR] = "packet_seq_err",
    [WATCH_CNP_SENT] = "np_cnp_sent",
    [WATCH_CNP_HANDLED] = "rp_cnp_handled",
    [WATCH_ECN_MARKED] = "np_ecn_marked_roce_packets",
    [WATCH_NVL_REPLAY] = "nvlink_replay_errors",
    [WATCH_NVL_RECOVERY] = "nvlink_recovery_errors",
    [WATCH_NVL_CRC_FLIT] = "nvlink_crc_flit_errors",
    [WATCH_NVL_CRC_DATA] = "nvlink_crc_data_errors",
};

const char *watch_ctr_name(enum watch_ctr c)
{
    return c < WATCH_NCTR ? ctr_names[c] : "?";
}

int watch_ctr_is_error(enum watch_ctr c)
{
    return (c >= WATCH_LINK_RECOVERY && c <= WATCH_SEQ_ERR) ||
           (c >= WATCH_NVL_REPLAY && c <= WATCH_NVL_CRC_DATA);
}

int watch_ctr_is_congestion(enum watch_ctr c)
{
    return c >= WATCH_CNP_SENT && c <= WATCH_ECN_MARKED;
}

const char *watch_kind_name(enum watch_kind k)
{
    static const char *const names[WATCH_NKIND] = {
        "port.flapping",   "port.down",   "port.errors.burst", "port.congestion",
        "nvlink.flapping", "nvlink.down", "nvlink.errors",
    };
    return k < WATCH_NKIND ? names[k] : "?";
}

int watch_kind_has_counter(enum watch_kind k)
{
    return k == WATCH_EV_BURST || k == WATCH_EV_CONGESTION || k == WATCH_EV_NVL_ERRORS;
}

int watch_kind_is_nvlink(enum watch_kind k)
{
    return k >= WATCH_EV_NVL_FLAPPING && k < WATCH_NKIND;
}

int watch_limits_from_map(struct watch_limits *l, double *interval, const struct map_watch *mw,
                          const char *map_path, ry_error_t *err)
{
    if (!mw->present)
        return 0;
    if (mw->interval >= 0)
        *interval = mw->interval;
    if (mw->flap_count > 0)
        l->flap_count = mw->flap_count;
    if (mw->flap_window >= 0)
        l->flap_window = mw->flap_window;
    if (mw->grace >= 0)
        l->grace = mw->grace;
    if (mw->down_after >= 0)
        l->down_after = mw->down_after;
    if (mw->hold >= 0)
        l->hold = mw->hold;
    for (size_t i = 0; i < mw->nlimits; i++) {
        int c = 0;
        while (c < WATCH_NCTR && strcmp(ctr_names[c], mw->limits[i].name))
            c++;
        if (c == WATCH_NCTR || c == WATCH_CARRIER_CHANGES || c == WATCH_LINK_DOWNED)
            return ry_errorf(err,
                             "%s:%d:%d: watch: limits: '%s' is not a counter the watch judges by "
                             "its rate (SymbolErrorCounter, PortRcvErrors, "
                             "LinkErrorRecoveryCounter, np_cnp_sent, nvlink_crc_flit_errors, ...)",
                             map_path, mw->limits[i].line, mw->limits[i].col, mw->limits[i].name);
        l->burst_per_s[c] = mw->limits[i].per_s;
    }
    return 0;
}

void watch_limits_default(struct watch_limits *l)
{
    memset(l, 0, sizeof(*l));
    l->flap_count = 2;
    l->flap_window = 300;
    l->grace = 120;
    l->down_after = 7;
    l->hold = 60;
    for (int c = 0; c < WATCH_NCTR; c++)
        l->burst_per_s[c] = -1;
    /* errors a second, over a sampling interval: a link within its bit error rate (1e-12 after
     * FEC: a few symbol errors an hour at 400 Gb/s) stays far under them */
    l->burst_per_s[WATCH_SYMBOL_ERRORS] = 1;
    l->burst_per_s[WATCH_RCV_ERRORS] = 1;
    l->burst_per_s[WATCH_LINK_RECOVERY] = 0.1;
    l->burst_per_s[WATCH_LOCAL_INTEGRITY] = 0.1;
    l->burst_per_s[WATCH_BUFFER_OVERRUN] = 0.1;
    l->burst_per_s[WATCH_OUT_OF_SEQUENCE] = 100;
    l->burst_per_s[WATCH_SEQ_ERR] = 10;
    /* congestion: notifications a second that a loaded RoCE fabric with working ECN still sends
     * now and then, sustained they mean a congested path */
    l->burst_per_s[WATCH_CNP_SENT] = 5000;
    l->burst_per_s[WATCH_CNP_HANDLED] = 5000;
    l->burst_per_s[WATCH_ECN_MARKED] = 5000;
    /* NVLink, DCGM's limits: CRC errors matter from 100 a second (the driver's advice), a replay
     * or a recovery a second is a link in trouble */
    l->burst_per_s[WATCH_NVL_CRC_FLIT] = 100;
    l->burst_per_s[WATCH_NVL_CRC_DATA] = 100;
    l->burst_per_s[WATCH_NVL_REPLAY] = 1;
    l->burst_per_s[WATCH_NVL_RECOVERY] = 1;
}

struct slot { /* one event of a port: open or not */
    int open;
    double last_above; /* BURST, CONGESTION: when the rate was last over the limit */
    struct watch_event e;
};

struct port {
    char *subject;
    int nvlink;
    double first_seen;
    int have_prev;
    struct watch_sample prev;
    double down_since;        /* an open down episode: when it began (-1: the link is not down) */
    int down_counts;          /* ... and it began after the grace */
    int down_from_start;      /* ... and it was down at the first sample */
    double flaps[FLAPS_KEPT]; /* when the counted flaps ended, oldest first */
    int nflaps;
    struct slot flapping, down, rate[WATCH_NCTR];
};

struct watch {
    struct watch_limits l;
    int nvlink_active; /* an NVLink of the node has been seen active */
    struct port *p;
    size_t n, alloc;
};

struct watch *watch_new(const struct watch_limits *l)
{
    struct watch *w = xcalloc(1, sizeof(*w));

    w->l = *l;
    return w;
}

void watch_free(struct watch *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        free(w->p[i].subject);
    free(w->p);
    free(w);
}

static void slot_init(struct slot *s, const struct port *p, enum watch_kind k, enum watch_ctr c)
{
    memset(s, 0, sizeof(*s));
    s->e.kind = k;
    s->e.subject = p->subject;
    s->e.ctr = c;
}

static struct port *port_of(struct watch *w, const char *subject, double t, int nvlink)
{
    struct port *p;

    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->p[i].subject, subject))
            return &w->p[i];
    xgrow(&w->p, &w->alloc, w->n + 1, sizeof(*w->p));
    /* the slots point at their port's subject: moved with the array, so they are set again */
    for (size_t i = 0; i < w->n; i++) {
        struct port *q = &w->p[i];
        q->flapping.e.subject = q->down.e.subject = q->subject;
        for (int c = 0; c < WATCH_NCTR; c++)
            q->rate[c].e.subject = q->subject;
    }
    p = &w->p[w->n++];
    memset(p, 0, sizeof(*p));
    p->subject = xstrdup(subject);
    p->nvlink = nvlink;
    p->first_seen = t;
    p->down_since = -1;
    slot_init(&p->flapping, p, nvlink ? WATCH_EV_NVL_FLAPPING : WATCH_EV_FLAPPING, WATCH_NCTR);
    slot_init(&p->down, p, nvlink ? WATCH_EV_NVL_DOWN : WATCH_EV_DOWN, WATCH_NCTR);
    for (int c = 0; c < WATCH_NCTR; c++)
        slot_init(&p->rate[c], p,
                  nvlink                                       ? WATCH_EV_NVL_ERRORS
                  : watch_ctr_is_congestion((enum watch_ctr)c) ? WATCH_EV_CONGESTION
                                                               : WATCH_EV_BURST,
                  (enum watch_ctr)c);
    return p;
}

static void emit(struct slot *s, enum watch_phase ph, watch_event_fn fn, void *arg)
{
    if (ph == WATCH_OPEN)
        s->open = 1;
    else if (ph == WATCH_CLOSE)
        s->open = 0;
    if (fn)
        fn(ph, &s->e, arg);
}

/* a flap that ended at t, begun at start: counted unless it began within the grace */
static void flap(struct watch *w, struct port *p, double start, double t)
{
    if (start < p->first_seen + w->l.grace)
        return; /* the link training after the port appeared */
    if (p->nflaps == FLAPS_KEPT) {
        memmove(p->flaps, p->flaps + 1, (FLAPS_KEPT - 1) * sizeof(*p->flaps));
        p->nflaps--;
    }
    p->flaps[p->nflaps++] = t;
}

static void judge_flapping(struct watch *w, struct port *p, double t, watch_event_fn fn, void *arg)
{
    struct slot *s = &p->flapping;
    int before = (int)s->e.value, drop = 0;

    while (drop < p->nflaps && p->flaps[drop] < t - w->l.flap_window)
        drop++;
    if (drop) {
        memmove(p->flaps, p->flaps + drop, (size_t)(p->nflaps - drop) * sizeof(*p->flaps));
        p->nflaps -= drop;
    }
    if (p->nflaps >= w->l.flap_count && w->l.flap_count > 0) {
        s->e.value = p->nflaps;
        s->e.limit = w->l.flap_count;
        s->e.last = p->flaps[p->nflaps - 1];
        if (!s->open)
            s->e.first = p->flaps[0];
        snprintf(s->e.figures, sizeof(s->e.figures), "%d flaps in %.0f s (limit %d in %.0f s)",
                 p->nflaps, s->e.last - p->flaps[0], w->l.flap_count, w->l.flap_window);
        if (!s->open)
            emit(s, WATCH_OPEN, fn, arg);
        else if (p->nflaps > before)
            emit(s, WATCH_UPDATE, fn, arg);
    } else if (s->open) {
        s->e.value = p->nflaps;
        emit(s, WATCH_CLOSE, fn, arg);
    }
}

/* the down episode counts: it began after the grace, or (an NVLink) the link never trained and
 * the grace is over while other NVLinks of the node are active */
static int down_counts(const struct watch *w, const struct port *p, double t)
{
    if (p->down_counts)
        return 1;
    return p->nvlink && p->down_from_start && w->nvlink_active && t >= p->first_seen + w->l.grace;
}

static void judge_down(struct watch *w, struct port *p, double t, watch_event_fn fn, void *arg)
{
    struct slot *s = &p->down;
    const char *word = p->nvlink ? "inactive" : "down";

    if (p->down_since >= 0 && down_counts(w, p, t) && t - p->down_since > w->l.down_after) {
        s->e.value = t - p->down_since;
        s->e.limit = w->l.down_after;
        s->e.last = t;
        snprintf(s->e.figures, sizeof(s->e.figures), "%s %.0f s%s (limit %.0f s)", word, s->e.value,
                 p->down_from_start ? " since first seen, never active" : "", w->l.down_after);
        if (!s->open) {
            s->e.first = p->down_since;
            emit(s, WATCH_OPEN, fn, arg);
        }
    } else if (s->open && p->down_since < 0) {
        s->e.last = t;
        snprintf(s->e.figures, sizeof(s->e.figures), "%s %.0f s, %s again", word, t - s->e.first,
                 p->nvlink ? "active" : "up");
        emit(s, WATCH_CLOSE, fn, arg);
    }
}

static void judge_rates(struct watch *w, struct port *p, const struct watch_sample *s,
                        watch_event_fn fn, void *arg)
{
    double dt = s->t - p->prev.t;

    for (int c = 0; c < WATCH_NCTR; c++) {
        struct slot *r = &p->rate[c];
        double lim = w->l.burst_per_s[c], rate;
        long long a = p->prev.ctr[c], b = s->ctr[c];
        if (lim < 0 || c == WATCH_CARRIER_CHANGES || c == WATCH_LINK_DOWNED)
            continue;
        if (a < 0 || b < 0 || b < a || dt <= 0) { /* not read, or reset: no rate */
            if (r->open && s->t - r->last_above >= w->l.hold)
                emit(r, WATCH_CLOSE, fn, arg);
            continue;
        }
        rate = (double)(b - a) / dt;
        if (rate > lim) {
            int higher = rate > r->e.value;
            r->last_above = s->t;
            r->e.last = s->t;
            r->e.limit = lim;
            if (!r->open || higher) {
                r->e.value = r->open ? fmax(r->e.value, rate) : rate;
                snprintf(r->e.figures, sizeof(r->e.figures),
                         "%s +%lld in %.1f s: %.3g/s (limit %g/s)",
                         watch_ctr_name((enum watch_ctr)c), b - a, dt, rate, lim);
            }
            if (!r->open) {
                r->e.first = p->prev.t;
                emit(r, WATCH_OPEN, fn, arg);
            } else if (higher)
                emit(r, WATCH_UPDATE, fn, arg);
        } else if (r->open && s->t - r->last_above >= w->l.hold)
            emit(r, WATCH_CLOSE, fn, arg);
    }
}

int watch_feed(struct watch *w, const char *subject, const struct watch_sample *s,
               watch_event_fn fn, void *arg)
{
    struct port *p = port_of(w, subject, s->t, s->nvlink);

    if (p->have_prev && s->t <= p->prev.t)
        return -1;
    if (p->nvlink && s->state == WATCH_UP)
        w->nvlink_active = 1;
    if (p->have_prev) {
        const struct watch_sample *q = &p->prev;
        int went_down = q->state == WATCH_UP && s->state == WATCH_DOWN;
        int came_up = q->state == WATCH_DOWN && s->state == WATCH_UP;
        long long hidden = 0;

        /* flaps between the two samples, which the states alone do not show: each down counted
         * (LinkDownedCounter) but the one the states show; else the carrier's edges, two for each
         * down and up between the samples (an edge the states show makes the count odd, and the
         * half rounded down leaves it out) */
        if (q->ctr[WATCH_LINK_DOWNED] >= 0 &&
            s->ctr[WATCH_LINK_DOWNED] >= q->ctr[WATCH_LINK_DOWNED])
            hidden = s->ctr[WATCH_LINK_DOWNED] - q->ctr[WATCH_LINK_DOWNED] - went_down;
        else if (q->ctr[WATCH_CARRIER_CHANGES] >= 0 &&
                 s->ctr[WATCH_CARRIER_CHANGES] >= q->ctr[WATCH_CARRIER_CHANGES])
            hidden = (s->ctr[WATCH_CARRIER_CHANGES] - q->ctr[WATCH_CARRIER_CHANGES]) / 2;
        if (came_up && p->down_since >= 0) {
            flap(w, p, p->down_since, s->t);
            p->down_since = -1;
        }
        for (long long k = 0; k < hidden && k < FLAPS_KEPT; k++)
            flap(w, p, q->t, s->t);
        if (went_down) {
            p->down_since = s->t;
            p->down_counts = s->t >= p->first_seen + w->l.grace;
            p->down_from_start = 0;
        }
        if (s->state == WATCH_UP) {
            p->down_since = -1;
            p->down_from_start = 0;
        }
        judge_rates(w, p, s, fn, arg);
    } else if (s->state == WATCH_DOWN) { /* first seen down: its training, or never up */
        p->down_since = s->t;
        p->down_counts = 0;
        p->down_from_start = 1;
    }
    judge_flapping(w, p, s->t, fn, arg);
    judge_down(w, p, s->t, fn, arg);
    p->prev = *s;
    p->have_prev = 1;
    return 0;
}

void watch_forget(struct watch *w, const char *subject, double t, watch_event_fn fn, void *arg)
{
    for (size_t i = 0; i < w->n; i++) {
        struct port *p = &w->p[i];
        if (strcmp(p->subject, subject))
            continue;
        if (p->flapping.open) {
            p->flapping.e.last = t;
            emit(&p->flapping, WATCH_CLOSE, fn, arg);
        }
        if (p->down.open) {
            p->down.e.last = t;
            emit(&p->down, WATCH_CLOSE, fn, arg);
        }
        for (int c = 0; c < WATCH_NCTR; c++)
            if (p->rate[c].open)
                emit(&p->rate[c], WATCH_CLOSE, fn, arg);
        free(p->subject);
        memmove(p, p + 1, (w->n - i - 1) * sizeof(*p));
        w->n--;
        for (size_t k = i; k < w->n; k++) { /* moved: their slots point at their subjects again */
            struct port *q = &w->p[k];
            q->flapping.e.subject = q->down.e.subject = q->subject;
            for (int c = 0; c < WATCH_NCTR; c++)
                q->rate[c].e.subject = q->subject;
        }
        return;
    }
}

size_t watch_open_events(const struct watch *w, const struct watch_event **v, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < w->n; i++) {
        const struct port *p = &w->p[i];
        if (p->flapping.open && n < max)
            v[n++] = &p->flapping.e;
        if (p->down.open && n < max)
            v[n++] = &p->down.e;
        for (int c = 0; c < WATCH_NCTR; c++)
            if (p->rate[c].open && n < max)
                v[n++] = &p->rate[c].e;
    }
    return n;
}
