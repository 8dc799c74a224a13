#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/tap/tap.h"
#include "watch/events.h"

/* what the engine handed on: the phases and kinds in order, and the last event's figures */
struct seen {
    char log[2048];
    int n, opened, closed;
    struct watch_event last;
};

static void on_event(enum watch_phase ph, const struct watch_event *e, void *arg)
{
    struct seen *s = arg;
    size_t len = strlen(s->log);

    snprintf(s->log + len, sizeof(s->log) - len, "%s%s %s %s", len ? "; " : "",
             ph == WATCH_OPEN    ? "open"
             : ph == WATCH_CLOSE ? "close"
                                 : "update",
             watch_kind_name(e->kind), e->subject);
    s->n++;
    s->opened += ph == WATCH_OPEN;
    s->closed += ph == WATCH_CLOSE;
    s->last = *e;
}

static struct watch_sample at(double t, enum watch_state st)
{
    struct watch_sample x;

    memset(&x, 0, sizeof(x));
    x.t = t;
    x.state = st;
    for (int c = 0; c < WATCH_NCTR; c++)
        x.ctr[c] = -1;
    return x;
}

/* the port up at every second from t0 to t1 (exclusive), counters as given */
static void up_from(struct watch *w, const char *port, double t0, double t1, struct seen *s)
{
    for (double t = t0; t < t1; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        watch_feed(w, port, &x, on_event, s);
    }
}

static void feed(struct watch *w, const char *port, double t, enum watch_state st, struct seen *s)
{
    struct watch_sample x = at(t, st);
    watch_feed(w, port, &x, on_event, s);
}

/* an NVLink's sample at t: active or not, its CRC flit errors (-1 unread) */
static struct watch_sample nvl(double t, int active, long long crc)
{
    struct watch_sample x = at(t, active ? WATCH_UP : WATCH_DOWN);

    x.nvlink = 1;
    x.ctr[WATCH_NVL_CRC_FLIT] = crc;
    return x;
}

/* NVLinks: their own kinds (the node check's watch.nvlink.flapping, watch.nvlink.down and
 * watch.nvlink.errors); training after boot is not an event; a link that never trained is
 * down once the grace is over, where other NVLinks are active; none active anywhere (PCIe
 * cards without a bridge) is not a fault */
static void nvlinks(void)
{
    struct watch_limits l;
    struct watch *w;
    struct seen s;
    char name[32];

    watch_limits_default(&l);
    ok(l.burst_per_s[WATCH_NVL_CRC_FLIT] == 100 && l.burst_per_s[WATCH_NVL_CRC_DATA] == 100 &&
           l.burst_per_s[WATCH_NVL_REPLAY] == 1 && l.burst_per_s[WATCH_NVL_RECOVERY] == 1,
       "NVLink limits: CRC 100/s, replay and recovery 1/s");
    ok(watch_ctr_is_error(WATCH_NVL_CRC_DATA) && !watch_ctr_is_congestion(WATCH_NVL_REPLAY) &&
           watch_kind_is_nvlink(WATCH_EV_NVL_ERRORS) && !watch_kind_is_nvlink(WATCH_EV_DOWN) &&
           watch_kind_has_counter(WATCH_EV_NVL_ERRORS) &&
           !watch_kind_has_counter(WATCH_EV_NVL_DOWN),
       "NVLink counters are errors; their kinds are NVLink kinds");

    /* boot: 18 links of 2 GPUs inactive, trained one by one up to 119 s (grace 120): nothing;
     * then an hour active */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 3600; t++)
        for (int g = 0; g < 2; g++)
            for (int k = 0; k < 18; k++) {
                struct watch_sample x = nvl(t, t >= 60 + k * 3 + g, 0);
                snprintf(name, sizeof(name), "GPU%d/nvlink%d", g, k);
                watch_feed(w, name, &x, on_event, &s);
            }
    is_int(s.n, 0, "36 NVLinks training for up to 119 s after boot, then an hour: no event (%s)",
           s.log);
    watch_free(w);

    /* no NVLink active anywhere for an hour (PCIe GPUs without a bridge): nothing */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 3600; t += 10)
        for (int k = 0; k < 12; k++) {
            struct watch_sample x = nvl(t, 0, -1);
            snprintf(name, sizeof(name), "GPU0/nvlink%d", k);
            watch_feed(w, name, &x, on_event, &s);
        }
    is_int(s.n, 0, "no NVLink ever active (no bridge): no event in an hour (%s)", s.log);
    watch_free(w);

    /* one link never trains while the other is active: the grace binding (120 s > 7 s) ... */
    for (int which = 0; which < 2; which++) {
        struct watch_limits m = l;
        double opens = which ? 31 : 120;
        if (which) { /* ... then the limit binding: grace 5 s, down after 30 s */
            m.grace = 5;
            m.down_after = 30;
        }
        memset(&s, 0, sizeof(s));
        w = watch_new(&m);
        for (int t = 0; t < opens; t++) {
            struct watch_sample a = nvl(t, 1, 0), b = nvl(t, 0, 0);
            watch_feed(w, "GPU6/nvlink0", &a, on_event, &s);
            watch_feed(w, "GPU6/nvlink1", &b, on_event, &s);
        }
        is_int(s.n, 0, "never-trained link, %s binding: nothing at %.0f s (%s)",
               which ? "its down limit" : "the grace", opens - 1, s.log);
        {
            struct watch_sample a = nvl(opens, 1, 0), b = nvl(opens, 0, 0);
            watch_feed(w, "GPU6/nvlink0", &a, on_event, &s);
            watch_feed(w, "GPU6/nvlink1", &b, on_event, &s);
        }
        is_str(s.log, "open nvlink.down GPU6/nvlink1", "...nvlink.down at %.0f s", opens);
        ok(s.last.first == 0 && strstr(s.last.figures, "never active") &&
               strstr(s.last.figures, "inactive"),
           "...since its first sample, never active: %s", s.last.figures);
        watch_free(w);
    }

    /* a link that was active goes inactive after the grace: down past 7 s, then active again */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 400; t++) {
        struct watch_sample x = nvl(t, !(t >= 200 && t < 210), 0);
        watch_feed(w, "GPU2/nvlink4", &x, on_event, &s);
        if (t == 207)
            is_int(s.n, 0, "inactive 7 s: nothing yet (%s)", s.log);
        if (t == 208)
            is_str(s.log, "open nvlink.down GPU2/nvlink4", "inactive 8 s: nvlink.down");
    }
    ok(s.closed == 1 && strstr(s.last.figures, "active again") && s.last.kind == WATCH_EV_NVL_DOWN,
       "...closed when active again: %s", s.last.figures);
    watch_free(w);

    /* flaps: inactive for a sample, twice after the grace */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 300; t++) {
        struct watch_sample x = nvl(t, t != 200 && t != 250, 0);
        watch_feed(w, "GPU3/nvlink17", &x, on_event, &s);
    }
    is_str(s.log, "open nvlink.flapping GPU3/nvlink17", "two flaps: nvlink.flapping");
    watch_free(w);

    /* CRC flit errors: 100/s is the limit itself, 101/s above it */
    for (int rate = 100; rate <= 101; rate++) {
        memset(&s, 0, sizeof(s));
        w = watch_new(&l);
        for (int t = 0; t < 200; t++) {
            struct watch_sample x = nvl(t, 1, t >= 150 ? (long long)(t - 150) * rate : 0);
            watch_feed(w, "GPU1/nvlink2", &x, on_event, &s);
        }
        if (rate == 100)
            is_int(s.n, 0, "CRC flit errors at 100/s: nothing (%s)", s.log);
        else
            ok(!strcmp(s.log, "open nvlink.errors GPU1/nvlink2") &&
                   s.last.ctr == WATCH_NVL_CRC_FLIT && strstr(s.last.figures, "nvlink_crc_flit"),
               "at 101/s: nvlink.errors naming the counter (%s: %s)", s.log, s.last.figures);
        watch_free(w);
    }
    /* replays: 2/s past their limit of 1, 1/s not */
    for (int rate = 1; rate <= 2; rate++) {
        memset(&s, 0, sizeof(s));
        w = watch_new(&l);
        for (int t = 0; t < 200; t++) {
            struct watch_sample x = nvl(t, 1, -1);
            x.ctr[WATCH_NVL_REPLAY] = t >= 150 ? (long long)(t - 150) * rate : 0;
            watch_feed(w, "GPU1/nvlink2", &x, on_event, &s);
        }
        is_int(s.opened, rate - 1, "replays at %d/s: %s", rate, s.log[0] ? s.log : "nothing");
        watch_free(w);
    }

    /* the never-trained rule is the NVLinks' own: a port first seen down, beside active
     * NVLinks, is an empty port */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 400; t++) {
        struct watch_sample a = nvl(t, 1, 0), b = at(t, WATCH_DOWN);
        watch_feed(w, "GPU0/nvlink0", &a, on_event, &s);
        watch_feed(w, "mlx5_7/1", &b, on_event, &s);
    }
    is_int(s.n, 0, "a port down from its first sample beside active NVLinks: nothing (%s)", s.log);
    watch_free(w);
}

int main(void)
{
    struct watch_limits l;
    struct watch *w;
    struct seen s;

    watch_limits_default(&l);
    is_int(l.flap_count, 2, "default: 2 flaps ...");
    ok(l.flap_window == 300 && l.grace == 120 && l.down_after == 7,
       "... within 300 s; grace 120 s; down after 7 s");

    /* a quiet hour: up at every second, a symbol error every 10 s (under 1/s), nothing */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 3600; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_SYMBOL_ERRORS] = t / 10;
        x.ctr[WATCH_LINK_DOWNED] = 3;                /* downs before the watch started: not flaps */
        x.ctr[WATCH_CNP_SENT] = (long long)t * 4000; /* under the congestion limit */
        watch_feed(w, "mlx5_0/1", &x, on_event, &s);
    }
    is_int(s.n, 0, "a quiet hour at 1 Hz: no event (%s)", s.log);
    watch_free(w);

    /* boot: first seen down, training up and down within the grace: no event */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    feed(w, "mlx5_0/1", 0, WATCH_DOWN, &s);
    feed(w, "mlx5_0/1", 5, WATCH_UP, &s);
    feed(w, "mlx5_0/1", 8, WATCH_DOWN, &s);
    feed(w, "mlx5_0/1", 60, WATCH_DOWN, &s); /* down 52 s, within the grace */
    feed(w, "mlx5_0/1", 61, WATCH_UP, &s);
    up_from(w, "mlx5_0/1", 62, 400, &s);
    is_int(s.n, 0, "training within the 120 s grace: no flap, no down (%s)", s.log);

    /* past the grace: two flaps 20 s apart open port.flapping at the sample of the second */
    feed(w, "mlx5_0/1", 400, WATCH_DOWN, &s);
    feed(w, "mlx5_0/1", 401, WATCH_UP, &s);
    up_from(w, "mlx5_0/1", 402, 420, &s);
    is_int(s.n, 0, "one flap: no event");
    feed(w, "mlx5_0/1", 420, WATCH_DOWN, &s);
    feed(w, "mlx5_0/1", 421, WATCH_UP, &s);
    is_str(s.log, "open port.flapping mlx5_0/1", "the second flap: port.flapping opens");
    ok(s.last.first == 401 && s.last.last == 421 && s.last.value == 2,
       "... from the first flap's end (401) to the second's (421), 2 flaps");
    is_str(s.last.figures, "2 flaps in 20 s (limit 2 in 300 s)", "... its figures");
    feed(w, "mlx5_0/1", 430, WATCH_DOWN, &s);
    feed(w, "mlx5_0/1", 431, WATCH_UP, &s);
    is_int(s.n, 2, "a third flap: updated (%s)", s.log);
    ok(s.last.value == 3 && s.last.first == 401, "... 3 flaps, still from 401");
    /* the window drains: 300 s after the last flap it closes, not before */
    up_from(w, "mlx5_0/1", 432, 720, &s);
    is_int(s.closed, 0, "still open while two flaps are within 300 s");
    up_from(w, "mlx5_0/1", 720, 735, &s);
    is_int(s.closed, 1, "closed once fewer than 2 flaps are within the window (%s)", s.log);
    watch_free(w);

    /* the window's edge: flaps 300 s apart flap, 301 s apart do not */
    for (int gap = 300; gap <= 301; gap++) {
        memset(&s, 0, sizeof(s));
        w = watch_new(&l);
        up_from(w, "p", 0, 200, &s);
        feed(w, "p", 200, WATCH_DOWN, &s);
        feed(w, "p", 201, WATCH_UP, &s);
        up_from(w, "p", 202, 200 + gap, &s);
        feed(w, "p", 200 + gap, WATCH_DOWN, &s);
        feed(w, "p", 201 + gap, WATCH_UP, &s);
        is_int(s.opened, gap == 300, "two flaps %d s apart: %s", gap,
               gap == 300 ? "flapping (within 300 s)" : "not flapping");
        watch_free(w);
    }
    /* a limit of 3 flaps: two are not enough */
    l.flap_count = 3;
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    up_from(w, "p", 0, 200, &s);
    for (int k = 0; k < 3; k++) {
        feed(w, "p", 200 + 10 * k, WATCH_DOWN, &s);
        feed(w, "p", 201 + 10 * k, WATCH_UP, &s);
        is_int(s.opened, k == 2, "limit 3: after flap %d, %s", k + 1,
               k == 2 ? "flapping" : "not yet");
    }
    watch_free(w);
    l.flap_count = 2;

    /* flaps between samples: the down counter, else the carrier's edges */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 300; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_LINK_DOWNED] = t < 250 ? 7 : 9; /* two downs and ups within one second */
        watch_feed(w, "mlx5_1/1", &x, on_event, &s);
    }
    is_str(s.log, "open port.flapping mlx5_1/1",
           "LinkDownedCounter +2 between two samples up: flapping");
    watch_free(w);
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 300; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_CARRIER_CHANGES] = t < 250 ? 1 : t < 260 ? 3 : 5; /* two downs and ups */
        watch_feed(w, "eth2", &x, on_event, &s);
    }
    is_str(s.log, "open port.flapping eth2", "carrier_changes +2 twice, 10 s apart: flapping");
    ok(s.last.first == 250 && s.last.last == 260, "... from 250 to 260");
    watch_free(w);
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 300; t++) {
        struct watch_sample x = at(t, t == 250 ? WATCH_DOWN : WATCH_UP);
        x.ctr[WATCH_CARRIER_CHANGES] = t < 250 ? 1 : t == 250 ? 2 : 3; /* the one seen */
        watch_feed(w, "eth3", &x, on_event, &s);
    }
    is_int(s.n, 0, "a down and up seen in the states, its carrier edges not counted twice (%s)",
           s.log);
    watch_free(w);
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 300; t++) {
        struct watch_sample x = at(t, t == 250 ? WATCH_DOWN : WATCH_UP);
        x.ctr[WATCH_LINK_DOWNED] = t < 250 ? 4 : 5; /* the down seen in the states */
        watch_feed(w, "mlx5_7/1", &x, on_event, &s);
    }
    is_int(s.n, 0, "a down seen in the states and in LinkDownedCounter: one flap, not two (%s)",
           s.log);
    watch_free(w);

    /* port.down: down longer than 7 s, past the grace */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    up_from(w, "mlx5_2/1", 0, 200, &s);
    for (int t = 200; t <= 207; t++)
        feed(w, "mlx5_2/1", t, WATCH_DOWN, &s);
    is_int(s.n, 0, "down 7 s: not yet port.down");
    feed(w, "mlx5_2/1", 208, WATCH_DOWN, &s);
    is_str(s.log, "open port.down mlx5_2/1", "down 8 s: port.down");
    ok(s.last.first == 200, "... since 200 (%g)", s.last.first);
    for (int t = 209; t < 215; t++)
        feed(w, "mlx5_2/1", t, WATCH_DOWN, &s);
    is_int(s.n, 1, "still down: no event again each second");
    feed(w, "mlx5_2/1", 215, WATCH_UP, &s);
    is_str(s.log, "open port.down mlx5_2/1; close port.down mlx5_2/1", "up again: closed");
    is_str(s.last.figures, "down 15 s, up again", "... after 15 s down");
    watch_free(w);
    /* first seen down and never up: not port.down (it never came up; the health check judges
     * its state) */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 600; t++)
        feed(w, "mlx5_3/1", t, WATCH_DOWN, &s);
    is_int(s.n, 0, "a port never up: no port.down");
    watch_free(w);

    /* bursts: a counter's rate above its limit, at both edges */
    l.burst_per_s[WATCH_SYMBOL_ERRORS] = 5;
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 10; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_SYMBOL_ERRORS] = 100 + 5LL * t; /* exactly 5/s: not above */
        watch_feed(w, "mlx5_4/1", &x, on_event, &s);
    }
    is_int(s.n, 0, "SymbolErrorCounter at its limit (5/s): no burst");
    for (int t = 10; t < 13; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_SYMBOL_ERRORS] = 145 + 6LL * (t - 9); /* 6/s */
        watch_feed(w, "mlx5_4/1", &x, on_event, &s);
    }
    is_str(s.log, "open port.errors.burst mlx5_4/1",
           "6/s over a limit of 5/s: a burst, opened once while it lasts");
    ok(s.last.ctr == WATCH_SYMBOL_ERRORS && s.last.limit == 5 && s.last.first == 9,
       "... of SymbolErrorCounter, limit 5, from the sample before (9)");
    is_str(s.last.figures, "SymbolErrorCounter +6 in 1.0 s: 6/s (limit 5/s)", "... its figures");
    {
        struct watch_sample x = at(13, WATCH_UP);
        x.ctr[WATCH_SYMBOL_ERRORS] = 173; /* +10 */
        watch_feed(w, "mlx5_4/1", &x, on_event, &s);
    }
    is_str(s.last.figures, "SymbolErrorCounter +10 in 1.0 s: 10/s (limit 5/s)",
           "a higher rate: updated to the highest (%s)", s.log);
    for (int t = 14; t < 74; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_SYMBOL_ERRORS] = 173; /* stopped */
        watch_feed(w, "mlx5_4/1", &x, on_event, &s);
        if (t == 72)
            is_int(s.closed, 0, "59 s below the limit: still open (hold 60 s)");
    }
    is_int(s.closed, 1, "60 s below the limit: closed (%s)", s.log);
    watch_free(w);
    l.burst_per_s[WATCH_SYMBOL_ERRORS] = 1;
    /* a counter reset (cleared) is not a rate */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 10; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_RCV_ERRORS] = t < 5 ? 5000 : 0;
        watch_feed(w, "mlx5_5/1", &x, on_event, &s);
    }
    is_int(s.n, 0, "a counter cleared (5000 -> 0): no burst");
    watch_free(w);
    /* congestion: CNPs above 5000/s */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 5; t++) {
        struct watch_sample x = at(t, WATCH_UP);
        x.ctr[WATCH_CNP_HANDLED] = 6000LL * t;
        watch_feed(w, "mlx5_6/1", &x, on_event, &s);
    }
    is_str(s.log, "open port.congestion mlx5_6/1", "rp_cnp_handled at 6000/s: port.congestion");
    watch_free(w);

    /* two ports: each its own; the open events; a port removed and back is in its grace */
    memset(&s, 0, sizeof(s));
    w = watch_new(&l);
    for (int t = 0; t < 260; t++) {
        struct watch_sample a = at(t, WATCH_UP),
                            b = at(t, (t == 200 || t == 230) ? WATCH_DOWN : WATCH_UP);
        watch_feed(w, "mlx5_0/1", &a, on_event, &s);
        watch_feed(w, "mlx5_1/1", &b, on_event, &s);
    }
    {
        const struct watch_event *v[8];
        size_t n = watch_open_events(w, v, 8);
        ok(n == 1 && !strcmp(v[0]->subject, "mlx5_1/1") && v[0]->kind == WATCH_EV_FLAPPING,
           "two ports: only the flapping one has an open event (%s)", s.log);
        watch_forget(w, "mlx5_1/1", 260, on_event, &s);
        ok(s.closed == 1 && watch_open_events(w, v, 8) == 0, "the port removed: its event closed");
    }
    for (int t = 260; t < 300; t++) {
        struct watch_sample b = at(t, t % 10 == 0 ? WATCH_DOWN : WATCH_UP);
        watch_feed(w, "mlx5_1/1", &b, on_event, &s);
    }
    is_int(s.opened, 1, "back again: in its grace, its training flaps are not events (%s)", s.log);
    {
        struct watch_sample old = at(100, WATCH_UP);
        is_int(watch_feed(w, "mlx5_1/1", &old, on_event, &s), -1,
               "a sample older than the last: refused");
    }
    watch_free(w);
    nvlinks();
    return done_testing();
}
