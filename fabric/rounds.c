#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "fabric/host.h"
#include "fabric/port_counters.h"
#include "fabric/run.h"

/* The rounds of the links phase (fabric/run.h): each rank's part of a round, and what rank 0
 * makes of the results: the links, with what each end saw, and the retest rounds. No MPI: rank
 * 0's messages are fabric/protocol.c's. */

int fabric_run_carrier(const char *netdev)
{
    char buf[32];
    int v;

    if (ry_sysfs_read_int(NULL, &v, NULL, "class/net/%s/carrier", netdev) == 0)
        return v ? 1 : 0;
    if (ry_sysfs_read(NULL, buf, sizeof(buf), NULL, "class/net/%s/operstate", netdev) == 0)
        return !strcmp(buf, "up") ? 1 : !strcmp(buf, "down") ? 0 : -1;
    return -1;
}

static long long read_errors(const char *netdev)
{
    static const char *const c[] = { "rx_errors", "tx_errors", "rx_dropped", "tx_dropped" };
    long long total = 0;
    uint64_t v;

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        if (ry_sysfs_read_u64(NULL, &v, NULL, "class/net/%s/statistics/%s", netdev, c[i]) < 0)
            return -1;
        total += (long long)v;
    }
    return total;
}

/* rank 0: world rank k's part of round `round` into g */
void fabric_run_task_of(const struct fabric_run *r, size_t round, int k, struct fabric_go *g)
{
    const struct fabric_round *rd = &r->sched.rounds[round];
    int node = -1, rail = r->info[k].local_rank;

    memset(g, 0, sizeof(*g));
    g->round = (int32_t)round;
    g->lat_only = r->lat_only[round];
    g->role = FABRIC_ROLE_IDLE;
    g->peer = -1;
    for (int n = 0; n < r->nodes; n++)
        if (r->rank_of[n * r->rails + rail] == k)
            node = n;
    for (size_t i = 0; node >= 0 && i < rd->n; i++)
        if (rd->pairs[i].a == node || rd->pairs[i].b == node) {
            int peer = rd->pairs[i].a == node ? rd->pairs[i].b : rd->pairs[i].a;
            int pk = r->rank_of[peer * r->rails + rail];
            /* an end unreached over MPI or lost earlier: failed unmeasured, its partner idles */
            if (!fabric_pair_measured(r->unreached, r->rank_lost, k, pk))
                break;
            g->role = rd->pairs[i].a == node ? FABRIC_ROLE_SEND : FABRIC_ROLE_RECV;
            g->peer = peer;
            g->pep = r->info[pk].ep;
            break;
        }
}

/* This rank's part of a round: send, receive or stay idle, then its result. */
void fabric_run_round(const struct fabric_run *r, const struct fabric_go *g,
                      struct fabric_result *res)
{
    const struct fabric_run_opts *o = &r->o;
    const struct fabric_transport *t = r->t;
    const struct fabric_endpoint *pe = &g->pep;
    const char *netdev = r->netdev;
    void *ts = r->ts;
    double start = fabric_now(), deadline = start + o->round_timeout,
           connect_by = start + o->connect_timeout;
    struct fabric_stats st;
    ry_error_t err = { "" };
    long long e0 = read_errors(netdev), e1;
    struct fabric_hwc h0, h1;
    struct fabric_host_sample s0, s1;
    char rdev[64];
    int rc = 0, rport, hwc;

    memset(res, 0, sizeof(*res));
    fabric_stats_clear(&st);
    res->wire_bytes = res->wire_bytes2 = res->retrans2 = -1;
    res->rx_pkts = res->rx_wasted = res->rx_marked = res->tx_pkts = -1;
    res->ce_frac = res->ce_frac2 = -1;
    res->round = g->round;
    res->role = g->role;
    res->peer = g->peer;
    res->carrier = fabric_run_carrier(netdev);
    res->retrans = -1;
    /* the RDMA port's error and congestion counters (RoCE, IPoIB, any verbs run) */
    hwc = fabric_rdma_port(NULL, netdev, rdev, sizeof(rdev), &rport) == 0 &&
          fabric_hwc_sample(NULL, rdev, rport, &h0) == 0;
    /* the rank's own host over the round: a starved rank measures its host, not its link */
    fabric_host_sample(&s0);
    if (res->role != FABRIC_ROLE_IDLE) {
        if (!r->me.ep.ok)
            rc = ry_errorf(&err, "%s", r->me.ep.error);
        else if (!pe->ok)
            rc = ry_errorf(&err, "peer: %s", pe->error);
        else if (g->lat_only) {
            if (res->role == FABRIC_ROLE_SEND)
                rc = t->ping(ts, pe, o->iters, deadline, &st, &err);
            else if (o->iters > 0)
                rc = t->pong(ts, pe, deadline, &err);
        } else if (res->role == FABRIC_ROLE_SEND) {
            rc = t->send(ts, pe, o->duration, o->streams, connect_by, deadline, &st, &err);
            if (rc == 0)
                rc = t->ping(ts, pe, o->iters, deadline, &st, &err);
        } else {
            rc = t->recv(ts, pe, o->streams, connect_by, deadline, &st, &err);
            if (rc == 0 && o->iters > 0)
                rc = t->pong(ts, pe, deadline, &err);
        }
    }
    /* the reverse direction: the receiver sends, the sender receives */
    if (o->bidir && !g->lat_only && res->role != FABRIC_ROLE_IDLE && rc == 0) {
        struct fabric_stats st2;
        ry_error_t err2 = { "" };
        double start2 = fabric_now(), connect2 = start2 + o->connect_timeout;
        int rc2 = res->role == FABRIC_ROLE_RECV
                      ? t->send(ts, pe, o->duration, o->streams, connect2, deadline, &st2, &err2)
                      : t->recv(ts, pe, o->streams, connect2, deadline, &st2, &err2);
        res->ok2 = rc2 == 0;
        res->bw2_gbps = rc2 == 0 ? st2.bw_gbps : 0;
        res->bytes2 = rc2 == 0 ? st2.bytes : 0;
        res->wire_bytes2 = rc2 == 0 ? st2.wire_bytes : -1;
        res->retrans2 = rc2 == 0 ? st2.retrans : -1;
        res->ce_frac2 = rc2 == 0 ? st2.ce_frac : -1;
        snprintf(res->error2, sizeof(res->error2), "%s", rc2 == 0 ? "" : err2.text);
    }
    fabric_host_sample(&s1);
    fabric_host_load(&s0, &s1, &res->cpu_frac, &res->wait_frac, &res->pressure_frac);
    if (t->polls)
        res->cpu_frac = -1; /* busy-polling: a full CPU by design */
    e1 = read_errors(netdev);
    res->ok = rc == 0;
    snprintf(res->error, sizeof(res->error), "%s", rc == 0 ? "" : err.text);
    res->bw_gbps = st.bw_gbps;
    res->lat_p50_us = st.lat_p50_us;
    res->lat_p99_us = st.lat_p99_us;
    res->retrans = st.retrans;
    res->bytes = st.bytes;
    res->wire_bytes = st.wire_bytes;
    res->ce_frac = st.ce_frac;
    res->errors = e0 >= 0 && e1 >= 0 ? e1 - e0 : -1;
    if (hwc && fabric_hwc_sample(NULL, rdev, rport, &h1) == 0) {
        long long d = fabric_hwc_delta(&h0, &h1, res->counters, sizeof(res->counters));
        struct fabric_hwc_rx rx;
        res->errors = (res->errors > 0 ? res->errors : 0) + d;
        if (fabric_hwc_received(&h0, &h1, &rx) == 0) {
            res->rx_pkts = rx.pkts;
            res->rx_wasted = rx.wasted;
            res->rx_marked = rx.marked;
        }
        res->tx_pkts = rx.sent;
    }
    snprintf(res->mem, sizeof(res->mem), "%.95s", st.mem);
}

/* A link whose sender counted no wire bytes (verbs): its wire from the RDMA ports over the round,
 * the bytes that arrived scaled by the packets the sender's port sent (the receiver's received,
 * when the sender's count is unknown or lower) against those the receiver could use (received,
 * less those thrown away out of sequence): what was lost never arrived, what followed it was
 * thrown away. The ports' counters hold all their traffic: what else ran on them counts too. */
static void wire_from_port(struct fabric_link *l, const struct fabric_result *tx,
                           const struct fabric_result *rx)
{
    long long used = rx->rx_pkts - rx->rx_wasted,
              wire = tx->tx_pkts > rx->rx_pkts ? tx->tx_pkts : rx->rx_pkts;

    if (rx->bytes > l->bytes)
        l->bytes = rx->bytes;
    if (l->bytes <= 0 || rx->rx_pkts <= 0 || rx->rx_wasted < 0 || used <= 0)
        return;
    l->wire_bytes = (long long)((double)l->bytes * (double)wire / (double)used + 0.5);
    if (rx->rx_marked >= 0)
        l->ce_frac = (double)rx->rx_marked / (double)rx->rx_pkts;
}

void fabric_run_add_links(struct fabric_run *r, int round, const struct fabric_result *res,
                          const int *got)
{
    const struct fabric_round *rd = &r->sched.rounds[round];

    for (size_t i = 0; i < rd->n; i++)
        for (int rail = 0; rail < r->rails; rail++) {
            int a = rd->pairs[i].a, b = rd->pairs[i].b;
            int ra = r->rank_of[a * r->rails + rail], rb = r->rank_of[b * r->rails + rail];
            struct fabric_link *l;
            if (r->lat_only[round]) {
                xgrow(&r->lat_links, &r->lat_alloc, r->nlat + 1, sizeof(*r->lat_links));
                l = &r->lat_links[r->nlat++];
            } else {
                xgrow(&r->links, &r->links_alloc, r->nlinks + 1, sizeof(*r->links));
                l = &r->links[r->nlinks++];
            }
            memset(l, 0, sizeof(*l));
            l->round = round;
            l->rail = rail;
            l->a = a;
            l->b = b;
            l->retrans = l->wire_bytes = -1;
            l->ce_frac = -1;
            l->errors_a = l->errors_b = -1;
            l->lat_p50_us = l->lat_p99_us = -1;
            l->cpu_a = l->wait_a = l->cpu_b = l->wait_b = -1;
            l->pressure_a = l->pressure_b = -1;
            if (r->unreached && (r->unreached[ra] || r->unreached[rb])) {
                int u = r->unreached[ra] ? ra : rb;
                snprintf(l->error, sizeof(l->error),
                         "not measured: rank %d (%s, rail %d) reaches no rank over MPI", u,
                         r->info[u].host, rail);
                continue;
            }
            if (!got[ra] || !got[rb] || r->rank_lost[ra] || r->rank_lost[rb]) {
                l->rank_failed = 1;
                snprintf(l->error, sizeof(l->error), "rank lost");
                continue;
            }
            l->ok = res[ra].ok && res[rb].ok;
            snprintf(l->error, sizeof(l->error), "%s",
                     fabric_link_error(res[ra].ok, res[ra].error, res[rb].ok, res[rb].error));
            /* the receiver measured the goodput; the sender measured the latency */
            l->bw_gbps = res[rb].bw_gbps;
            l->lat_p50_us = res[ra].lat_p50_us > 0 ? res[ra].lat_p50_us : -1;
            l->lat_p99_us = res[ra].lat_p99_us > 0 ? res[ra].lat_p99_us : -1;
            l->retrans = res[ra].retrans;
            /* the sender's TCP counters (or RDMA port's): its wire beside what arrived */
            l->bytes = res[ra].bytes;
            l->wire_bytes = res[ra].wire_bytes;
            l->ce_frac = res[ra].ce_frac;
            if (l->wire_bytes < 0)
                wire_from_port(l, &res[ra], &res[rb]);
            l->errors_a = res[ra].errors;
            l->errors_b = res[rb].errors;
            snprintf(l->counters_a, sizeof(l->counters_a), "%s", res[ra].counters);
            snprintf(l->counters_b, sizeof(l->counters_b), "%s", res[rb].counters);
            snprintf(l->mem_a, sizeof(l->mem_a), "%s", res[ra].mem);
            snprintf(l->mem_b, sizeof(l->mem_b), "%s", res[rb].mem);
            l->cpu_a = res[ra].cpu_frac;
            l->wait_a = res[ra].wait_frac;
            l->cpu_b = res[rb].cpu_frac;
            l->wait_b = res[rb].wait_frac;
            l->pressure_a = res[ra].pressure_frac;
            l->pressure_b = res[rb].pressure_frac;
            if (r->o.bidir && l->ok && !r->lat_only[round]) {
                /* the reverse link: b sent, a measured */
                struct fabric_link rev = *l;
                rev.a = b;
                rev.b = a;
                rev.ok = res[ra].ok2 && res[rb].ok2;
                snprintf(
                    rev.error, sizeof(rev.error), "%s",
                    fabric_link_error(res[rb].ok2, res[rb].error2, res[ra].ok2, res[ra].error2));
                rev.bw_gbps = res[ra].bw2_gbps;
                rev.lat_p50_us = rev.lat_p99_us = -1;
                rev.cpu_a = l->cpu_b, rev.wait_a = l->wait_b;
                rev.cpu_b = l->cpu_a, rev.wait_b = l->wait_a;
                rev.pressure_a = l->pressure_b, rev.pressure_b = l->pressure_a;
                rev.retrans = res[rb].retrans2;
                rev.bytes = res[rb].bytes2;
                rev.wire_bytes = res[rb].wire_bytes2;
                rev.ce_frac = res[rb].ce_frac2;
                xgrow(&r->links, &r->links_alloc, r->nlinks + 1, sizeof(*r->links));
                r->links[r->nlinks++] = rev;
            }
        }
}

/* rank 0: the rounds of extra after the schedule's (extra's pair lists move over), latency
 * only or not */
void fabric_run_append_rounds(struct fabric_run *r, struct fabric_schedule *extra, int lat_only)
{
    r->sched.rounds = xrealloc(r->sched.rounds, (r->sched.n + extra->n) * sizeof(*r->sched.rounds));
    memcpy(r->sched.rounds + r->sched.n, extra->rounds, extra->n * sizeof(*extra->rounds));
    r->lat_only = xrealloc(r->lat_only, r->sched.n + extra->n);
    memset(r->lat_only + r->sched.n, lat_only, extra->n);
    r->sched.n += extra->n;
    free(extra->rounds);
    extra->rounds = NULL;
}

/* --retest (rank 0): the rounds of the retest's pass (fabric_retest_schedule: doubtful pairs
 * measured again, suspects against known-good nodes) appended to the schedule; the other ranks
 * learn their parts round by round. */
void fabric_run_retest(struct fabric_run *r, int pass)
{
    struct fabric_schedule extra;
    struct fabric_port *ports;
    struct fabric_input in;
    size_t ns, np;
    ry_error_t err;
    int rc;

    fabric_run_input(r, &in, &ports);
    rc = fabric_retest_schedule(&in, pass, &extra, &ns, &np, &err);
    free((void *)in.failed_nodes);
    free(ports);
    if (extra.n > 0) {
        size_t n = extra.n;
        fabric_run_append_rounds(r, &extra, 0);
        fabric_run_log(r, "retesting %zu suspect node%s and %zu pair%s in %zu round%s",
                       rc == 0 ? ns : 0, rc == 0 && ns == 1 ? "" : "s", np, np == 1 ? "" : "s", n,
                       n == 1 ? "" : "s");
    } else
        fabric_schedule_free(&extra);
    if (rc < 0)
        fabric_run_log(r, "no retest of %zu suspect node%s: %s", ns, ns == 1 ? "" : "s", err.text);
}
