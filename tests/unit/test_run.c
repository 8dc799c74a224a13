#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "fabric/run.h"
#include "tests/tap/tap.h"

/* railyard-fabric's engine without MPI (fabric/run.h): a run of made-up nodes and ranks, the
 * results every rank would have sent, and the collective phase over a model of the fabric in
 * place of MPI (r->coll_step). */

static int near(double a, double b)
{
    return fabs(a - b) < 1e-6 * fmax(1, fabs(b));
}

/* nodes n0..n(N-1), one rank per (node, rail): world rank node * rails + rail */
static void mk_run(struct fabric_run *r, int nodes, int rails)
{
    ry_error_t err;

    memset(r, 0, sizeof(*r));
    r->nodes = nodes;
    r->rails = rails;
    r->size = nodes * rails;
    snprintf(r->host, sizeof(r->host), "n0");
    r->names = xcalloc((size_t)nodes, sizeof(*r->names));
    for (int n = 0; n < nodes; n++) {
        char name[16];
        snprintf(name, sizeof(name), "n%d", n);
        r->names[n] = xstrdup(name);
    }
    r->info = xcalloc((size_t)r->size, sizeof(*r->info));
    r->rank_of = xcalloc((size_t)r->size, sizeof(*r->rank_of));
    for (int k = 0; k < r->size; k++) {
        snprintf(r->info[k].host, sizeof(r->info[k].host), "n%d", k / rails);
        r->info[k].local_rank = k % rails;
        r->info[k].local_size = rails;
        r->info[k].carrier = 1;
        r->info[k].gpu = -1;
        r->info[k].ep.ok = 1;
        r->info[k].ep.rank = k;
        r->rank_of[k] = k;
    }
    r->rank_lost = xcalloc((size_t)r->size, sizeof(*r->rank_lost));
    r->gos = xcalloc((size_t)r->size, sizeof(*r->gos));
    r->res = xcalloc((size_t)r->size, sizeof(*r->res));
    r->got = xcalloc((size_t)r->size, sizeof(*r->got));
    r->expect = xcalloc((size_t)rails, sizeof(*r->expect));
    for (int k = 0; k < rails; k++)
        r->expect[k] = 90;
    r->coll_ratio = -1;
    r->o.round_timeout = 12;
    r->o.coll_duration = 2;
    r->o.coll_lib = "mpi";
    r->o.coll_groups = 3;
    r->o.coll_mask = 1u << FABRIC_COLL_ALLREDUCE;
    r->o.coll_sizes[0] = 16u << 20;
    r->o.ncoll_sizes = 1;
    if (fabric_schedule_neighbor(nodes, &r->sched, &err) < 0)
        diag("schedule: %s", err.text);
    r->lat_only = xcalloc(r->sched.n + 1, 1);
}

static void free_run(struct fabric_run *r)
{
    for (int n = 0; n < r->nodes; n++)
        free(r->names[n]);
    for (size_t i = 0; i < r->ncoll; i++)
        free(r->coll[i].nodes);
    free(r->names);
    free(r->info);
    free(r->rank_of);
    free(r->rank_lost);
    free(r->unreached);
    free(r->gos);
    free(r->res);
    free(r->got);
    free(r->expect);
    free(r->links);
    free(r->lat_links);
    free(r->lat_only);
    free(r->failed);
    free(r->coll);
    free(r->coll_bound);
    free(r->coll_slowest);
    fabric_schedule_free(&r->sched);
    topo_findings_free(&r->coll_f);
}

/* every rank's result of a healthy round: the sender's latency and TCP figures, the receiver's
 * goodput (gbps), each end's host */
static void healthy_results(struct fabric_run *r, double gbps)
{
    for (int k = 0; k < r->size; k++) {
        struct fabric_result *m = &r->res[k];
        memset(m, 0, sizeof(*m));
        m->ok = m->ok2 = 1;
        m->bw_gbps = gbps;
        m->bw2_gbps = gbps / 2;
        m->lat_p50_us = 10 + k;
        m->lat_p99_us = 20 + k;
        m->retrans = k;
        m->retrans2 = 100 + k;
        m->bytes = 1000000 + k;
        m->bytes2 = 2000000 + k;
        m->wire_bytes = 1100000 + k;
        m->wire_bytes2 = 2200000 + k;
        m->ce_frac = 0.01 * k;
        m->ce_frac2 = 0.02 * k;
        m->errors = k;
        m->cpu_frac = 0.1;
        m->wait_frac = 0.001 * k;
        m->pressure_frac = 0.002 * k;
        m->rx_pkts = m->rx_wasted = m->rx_marked = m->tx_pkts = -1;
        snprintf(m->counters, sizeof(m->counters), "c%d", k);
        snprintf(m->mem, sizeof(m->mem), "m%d", k);
        r->got[k] = 1;
    }
}

static const struct fabric_link *link_of(const struct fabric_run *r, int a, int b, int rail)
{
    for (size_t i = 0; i < r->nlinks; i++)
        if (r->links[i].a == a && r->links[i].b == b && r->links[i].rail == rail)
            return &r->links[i];
    return NULL;
}

static void test_task_of(void)
{
    struct fabric_run r;
    struct fabric_go g;

    mk_run(&r, 4, 2); /* neighbor: round 0 (0,1) (2,3); round 1 (1,2) (3,0) */
    r.lat_only[1] = 1;
    fabric_run_task_of(&r, 0, 1, &g); /* n0 rail 1 */
    ok(g.round == 0 && g.role == FABRIC_ROLE_SEND && g.peer == 1 && g.pep.rank == 3 && !g.lat_only,
       "task_of: n0 rail 1 sends to n1 rail 1 (rank 3) in round 1");
    fabric_run_task_of(&r, 0, 3, &g);
    ok(g.role == FABRIC_ROLE_RECV && g.peer == 0 && g.pep.rank == 1,
       "task_of: ...and n1 rail 1 receives from n0 rail 1 (rank 1)");
    fabric_run_task_of(&r, 1, 0, &g);
    ok(g.round == 1 && g.role == FABRIC_ROLE_RECV && g.peer == 3 && g.pep.rank == 6 && g.lat_only,
       "task_of: round 2 (a sweep round): n0 rail 0 receives from n3 (the pair's second end)");
    r.rank_lost[2] = 1; /* n1 rail 0 lost */
    fabric_run_task_of(&r, 0, 0, &g);
    ok(g.role == FABRIC_ROLE_IDLE && g.peer == -1, "task_of: the partner of a lost rank idles");
    fabric_run_task_of(&r, 0, 1, &g);
    ok(g.role == FABRIC_ROLE_SEND, "task_of: ...its other rail still runs");
    r.unreached = xcalloc((size_t)r.size, 1);
    r.unreached[7] = 1; /* n3 rail 1 */
    fabric_run_task_of(&r, 0, 5, &g);
    ok(g.role == FABRIC_ROLE_IDLE && g.peer == -1,
       "task_of: the partner of a rank MPI cannot reach idles");
    fabric_run_task_of(&r, 0, 4, &g);
    ok(g.role == FABRIC_ROLE_SEND && g.peer == 3, "task_of: ...and the same node's rail 0 sends");
    free_run(&r);

    mk_run(&r, 3, 1); /* three nodes: round 0 (0,1), n2 out */
    fabric_run_task_of(&r, 0, 2, &g);
    ok(g.role == FABRIC_ROLE_IDLE && g.peer == -1, "task_of: a node in no pair of the round idles");
    free_run(&r);
}

static void test_add_links(void)
{
    struct fabric_run r;
    const struct fabric_link *l;

    mk_run(&r, 4, 2);
    healthy_results(&r, 95);
    fabric_run_add_links(&r, 0, r.res, r.got);
    is_int((long long)r.nlinks, 4, "add_links: a link per pair and rail (2 pairs x 2 rails)");
    l = link_of(&r, 0, 1, 1); /* ranks 1 (sender) -> 3 (receiver) */
    ok(l && l->ok && l->round == 0 && !l->error[0], "add_links: n0 -> n1 rail 1 measured");
    ok(l && near(l->bw_gbps, 95) && near(l->lat_p50_us, 11) && near(l->lat_p99_us, 21),
       "add_links: goodput from the receiver, latency from the sender");
    ok(l && l->retrans == 1 && l->bytes == 1000001 && l->wire_bytes == 1100001 &&
           near(l->ce_frac, 0.01),
       "add_links: the sender's wire figures");
    ok(l && l->errors_a == 1 && l->errors_b == 3 && !strcmp(l->counters_a, "c1") &&
           !strcmp(l->counters_b, "c3") && !strcmp(l->mem_a, "m1") && !strcmp(l->mem_b, "m3"),
       "add_links: each end's errors, counters and memory");
    ok(l && near(l->wait_a, 0.001) && near(l->wait_b, 0.003) && near(l->pressure_a, 0.002) &&
           near(l->pressure_b, 0.006) && near(l->cpu_a, 0.1),
       "add_links: each end's host");
    ok(link_of(&r, 2, 3, 0) && !link_of(&r, 1, 0, 1), "add_links: no reverse link without --bidir");
    r.nlinks = 0;
    r.res[0].lat_p50_us = 0.5; /* n0 rail 0 sends: a latency under a microsecond, and none */
    r.res[0].lat_p99_us = 0;
    r.res[4].lat_p50_us = 0; /* n2 rail 0 */
    r.res[4].lat_p99_us = 0.7;
    fabric_run_add_links(&r, 0, r.res, r.got);
    l = link_of(&r, 0, 1, 0);
    ok(l && near(l->lat_p50_us, 0.5) && l->lat_p99_us == -1,
       "add_links: 0.5 us kept, a latency of 0 unknown");
    l = link_of(&r, 2, 3, 0);
    ok(l && l->lat_p50_us == -1 && near(l->lat_p99_us, 0.7), "add_links: ...either percentile");
    r.nlinks = 4;

    /* round 1: one end failed, one result missing, one rank lost, one unreached */
    healthy_results(&r, 95);
    r.res[2].ok = 0; /* n1 rail 0 sends to n2 rail 0 (rank 4) */
    snprintf(r.res[2].error, sizeof(r.res[2].error), "connect: refused");
    r.got[5] = 0;       /* n2 rail 1: no result */
    r.rank_lost[6] = 1; /* n3 rail 0 */
    r.unreached = xcalloc((size_t)r.size, 1);
    r.unreached[7] = 1; /* n3 rail 1 */
    r.lat_only[1] = 0;
    fabric_run_add_links(&r, 1, r.res, r.got);
    is_int((long long)r.nlinks, 8, "add_links: round 2 adds its four");
    l = link_of(&r, 1, 2, 0);
    ok(l && !l->ok && !l->rank_failed && strstr(l->error, "connect: refused"),
       "add_links: an end's error fails the link with it");
    l = link_of(&r, 1, 2, 1);
    ok(l && !l->ok && l->rank_failed && !strcmp(l->error, "rank lost"),
       "add_links: a missing result is a lost rank, not a link fault");
    l = link_of(&r, 3, 0, 0);
    ok(l && !l->ok && l->rank_failed, "add_links: ...and so is a rank lost earlier");
    l = link_of(&r, 3, 0, 1);
    ok(l && !l->ok && !l->rank_failed &&
           !strcmp(l->error, "not measured: rank 7 (n3, rail 1) reaches no rank over MPI"),
       "add_links: an unreached end fails the link unmeasured, named: %s", l ? l->error : "-");
    ok(l && l->bw_gbps == 0 && l->wire_bytes == -1 && l->lat_p50_us == -1 && l->cpu_a == -1,
       "add_links: ...with every figure unknown");
    free_run(&r);

    /* --bidir: the reverse link from the same ranks, none for a failed link or a sweep round */
    mk_run(&r, 2, 1);
    r.o.bidir = 1;
    healthy_results(&r, 80);
    fabric_run_add_links(&r, 0, r.res, r.got);
    l = link_of(&r, 1, 0, 0);
    ok(r.nlinks == 2 && l && l->ok && near(l->bw_gbps, 40) && l->retrans == 101 &&
           l->bytes == 2000001 && l->wire_bytes == 2200001 && near(l->ce_frac, 0.02),
       "add_links --bidir: the reverse link, measured by the first end, the second's wire");
    ok(l && l->lat_p50_us == -1 && near(l->wait_a, 0.001) && near(l->wait_b, 0) &&
           near(l->pressure_a, 0.002),
       "add_links --bidir: ...no latency, the hosts swapped");
    r.res[0].ok2 = 0;
    snprintf(r.res[0].error2, sizeof(r.res[0].error2), "reverse: timed out");
    fabric_run_add_links(&r, 0, r.res, r.got);
    l = &r.links[3];
    ok(r.nlinks == 4 && l->a == 1 && !l->ok && strstr(l->error, "reverse: timed out"),
       "add_links --bidir: a reverse direction that failed, with its own error");
    r.res[0].ok = 0;
    fabric_run_add_links(&r, 0, r.res, r.got);
    is_int((long long)r.nlinks, 5, "add_links --bidir: no reverse link of a failed link");
    healthy_results(&r, 80);
    r.lat_only[0] = 1;
    fabric_run_add_links(&r, 0, r.res, r.got);
    ok(r.nlinks == 5 && r.nlat == 1 && r.lat_links[0].ok && near(r.lat_links[0].lat_p50_us, 10),
       "add_links: a sweep round's link goes to the sweep's, without a reverse");
    free_run(&r);
}

/* a verbs link: no wire bytes from the sender, its RDMA ports' packets instead */
static void test_wire_from_port(void)
{
    struct fabric_run r;
    const struct fabric_link *l;
    struct {
        long long tx, rx, wasted, marked, bytes_rx, want_wire;
        double want_ce;
        const char *what;
    } c[] = {
        { 1000, 900, 100, 90, 0, 1250000, 0.1, "the sender's packets over the usable received" },
        { 800, 900, 100, -1, 0, 1125000, -1, "the receiver's count where it is higher" },
        { 1000, 900, 100, 9, 2000000, 2500000, 0.01, "the receiver's bytes where higher" },
        { 1000, 900, -1, 9, 0, -1, -1, "unknown discards: no wire" },
        { 1000, 0, 0, 0, 0, -1, -1, "nothing received: no wire" },
        { 1000, 100, 100, 0, 0, -1, -1, "all received thrown away: no wire" },
        { 1000, 1000, 0, 0, 0, 1000000, 0, "nothing thrown away, nothing marked: the bytes, CE 0" },
        { 1000, 1000, 40, -1, 0, 1041667, -1, "rounded to the nearest byte" },
        { 1000, 900, 0, 9, -1, -1, -1, "no byte delivered: no wire" },
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        mk_run(&r, 2, 1);
        healthy_results(&r, 50);
        r.res[0].wire_bytes = -1;
        r.res[0].ce_frac = -1;
        r.res[0].bytes = c[i].bytes_rx < 0 ? 0 : 1000000;
        r.res[0].tx_pkts = c[i].tx;
        r.res[1].rx_pkts = c[i].rx;
        r.res[1].rx_wasted = c[i].wasted;
        r.res[1].rx_marked = c[i].marked;
        r.res[1].bytes = c[i].bytes_rx < 0 ? 0 : c[i].bytes_rx;
        fabric_run_add_links(&r, 0, r.res, r.got);
        l = link_of(&r, 0, 1, 0);
        ok(l && l->wire_bytes == c[i].want_wire &&
               (c[i].want_ce < 0 ? l->ce_frac < 0 : near(l->ce_frac, c[i].want_ce)),
           "wire from the ports: %s (wire %lld, CE %.3f)", c[i].what, l ? l->wire_bytes : -2,
           l ? l->ce_frac : -2);
        free_run(&r);
    }
    /* one byte in one packet of two sent: the smallest figures still count */
    mk_run(&r, 2, 1);
    healthy_results(&r, 50);
    r.res[0].wire_bytes = -1;
    r.res[0].bytes = 1;
    r.res[0].tx_pkts = 2;
    r.res[1].rx_pkts = 1;
    r.res[1].rx_wasted = 0;
    r.res[1].rx_marked = 1;
    r.res[1].bytes = 0;
    fabric_run_add_links(&r, 0, r.res, r.got);
    ok(r.links[0].wire_bytes == 2 && near(r.links[0].ce_frac, 1),
       "wire from the ports: one byte, one packet of two sent: wire 2 (%lld)",
       r.links[0].wire_bytes);
    free_run(&r);
    /* a sender that counted no wire at all (0): its own figure stands */
    mk_run(&r, 2, 1);
    healthy_results(&r, 50);
    r.res[0].wire_bytes = 0;
    r.res[0].tx_pkts = 1000;
    r.res[1].rx_pkts = 900;
    r.res[1].rx_wasted = 0;
    r.res[1].bytes = 5000000;
    fabric_run_add_links(&r, 0, r.res, r.got);
    ok(r.links[0].wire_bytes == 0 && r.links[0].bytes == 1000000,
       "wire from the ports: not where the sender counted 0 on the wire");
    free_run(&r);
    mk_run(&r, 2, 1);
    healthy_results(&r, 50);
    r.res[0].tx_pkts = 1000;
    r.res[1].rx_pkts = 500;
    r.res[1].rx_wasted = 0;
    fabric_run_add_links(&r, 0, r.res, r.got);
    ok(r.links[0].wire_bytes == 1100000,
       "wire from the ports: not where the sender counted its own");
    free_run(&r);
}

/* ---- a rank's part of a round, over a transport that records its calls ---- */

static struct fake {
    char log[256];
    int fail; /* 1 the first send or receive fails, 2 the reverse one */
    int calls;
} F;

static int f_send(void *s, const struct fabric_endpoint *p, double duration, int streams,
                  double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err)
{
    (void)s, (void)connect_by, (void)deadline;
    ry_appendf(F.log, sizeof(F.log), "send(%d,%g,%d) ", p->rank, duration, streams);
    if (F.fail == ++F.calls)
        return ry_errorf(err, "send: connection reset");
    fabric_stats_clear(out);
    out->bw_gbps = 42;
    out->bytes = 1000;
    out->wire_bytes = 1200;
    out->retrans = 3;
    out->ce_frac = 0.25;
    snprintf(out->mem, sizeof(out->mem), "host (NUMA node 1)");
    return 0;
}

static int f_recv(void *s, const struct fabric_endpoint *p, int streams, double connect_by,
                  double deadline, struct fabric_stats *out, ry_error_t *err)
{
    (void)s, (void)connect_by, (void)deadline;
    ry_appendf(F.log, sizeof(F.log), "recv(%d,%d) ", p->rank, streams);
    if (F.fail == ++F.calls)
        return ry_errorf(err, "recv: no data before the deadline");
    fabric_stats_clear(out);
    out->bw_gbps = 40;
    out->bytes = 900;
    return 0;
}

static int f_ping(void *s, const struct fabric_endpoint *p, int iters, double deadline,
                  struct fabric_stats *out, ry_error_t *err)
{
    (void)s, (void)deadline, (void)err;
    ry_appendf(F.log, sizeof(F.log), "ping(%d,%d) ", p->rank, iters);
    out->lat_p50_us = 5;
    out->lat_p99_us = 9;
    return 0;
}

static int f_pong(void *s, const struct fabric_endpoint *p, double deadline, ry_error_t *err)
{
    (void)s, (void)deadline, (void)err;
    ry_appendf(F.log, sizeof(F.log), "pong(%d) ", p->rank);
    return 0;
}

static const struct fabric_transport fake = {
    "fake", 0, NULL, f_send, f_recv, f_ping, f_pong, NULL
};
static const struct fabric_transport fake_polls = { "fake", 1,      NULL,   f_send,
                                                    f_recv, f_ping, f_pong, NULL };

/* rank 1's part of round 0 (n0 rail 1 sends to n1 rail 1, rank 3), or rank 3's */
static void one_round(struct fabric_run *r, int k, struct fabric_result *res)
{
    struct fabric_go g;

    memset(&F, 0, sizeof(F));
    fabric_run_task_of(r, 0, k, &g);
    fabric_run_round(r, &g, res);
}

static void test_round(void)
{
    struct fabric_run r;
    struct fabric_result res;
    struct fabric_go g;

    mk_run(&r, 4, 2);
    r.t = &fake;
    r.me.ep.ok = 1;
    r.o.duration = 2;
    r.o.streams = 1;
    r.o.iters = 200;
    r.o.round_timeout = 12;
    r.o.connect_timeout = 5;

    memset(&g, 0, sizeof(g));
    g.round = 4;
    g.role = FABRIC_ROLE_IDLE;
    g.peer = -1;
    memset(&F, 0, sizeof(F));
    fabric_run_round(&r, &g, &res);
    ok(!F.log[0] && res.ok && res.round == 4 && res.role == FABRIC_ROLE_IDLE && res.peer == -1,
       "round: an idle rank calls nothing and is fine");
    ok(res.carrier == -1 && res.errors == -1 && res.retrans == -1 && res.wire_bytes == -1 &&
           res.rx_pkts == -1 && res.tx_pkts == -1 && res.ce_frac < 0,
       "round: no netdev: carrier, errors and counters unknown");
    ok(res.cpu_frac >= 0 && res.cpu_frac <= 1.5 && res.wait_frac >= 0,
       "round: the rank's host sampled (cpu %.2f, wait %.2f)", res.cpu_frac, res.wait_frac);

    one_round(&r, 1, &res);
    is_str(F.log, "send(3,2,1) ping(3,200) ", "round: the sender sends, then pings");
    ok(res.ok && res.role == FABRIC_ROLE_SEND && res.peer == 1 && near(res.bw_gbps, 42) &&
           near(res.lat_p50_us, 5) && near(res.lat_p99_us, 9) && res.retrans == 3 &&
           res.bytes == 1000 && res.wire_bytes == 1200 && near(res.ce_frac, 0.25) &&
           !strcmp(res.mem, "host (NUMA node 1)"),
       "round: ...with the figures of both");
    one_round(&r, 3, &res);
    is_str(F.log, "recv(1,1) pong(1) ", "round: the receiver receives, then pongs");
    ok(res.ok && near(res.bw_gbps, 40) && res.bytes == 900, "round: ...its goodput");
    r.o.iters = 1;
    one_round(&r, 3, &res);
    is_str(F.log, "recv(1,1) pong(1) ", "round: one latency iteration: a pong");
    r.o.iters = 0;
    one_round(&r, 3, &res);
    is_str(F.log, "recv(1,1) ", "round: no latency iterations: no pong");
    r.o.iters = 200;
    r.lat_only[0] = 1;
    one_round(&r, 1, &res);
    is_str(F.log, "ping(3,200) ", "round: a sweep round: the sender only pings");
    one_round(&r, 3, &res);
    is_str(F.log, "pong(1) ", "round: ...the receiver only pongs");
    r.o.iters = 1;
    one_round(&r, 3, &res);
    is_str(F.log, "pong(1) ", "round: ...for one iteration too");
    r.o.iters = 0;
    one_round(&r, 3, &res);
    is_str(F.log, "", "round: ...not at all without iterations");
    r.o.iters = 200;
    r.lat_only[0] = 0;

    /* --bidir: the reverse direction after the first, none after a failure */
    r.o.bidir = 1;
    one_round(&r, 1, &res);
    is_str(F.log, "send(3,2,1) ping(3,200) recv(3,1) ", "round --bidir: the sender then receives");
    ok(res.ok && res.ok2 && near(res.bw2_gbps, 40) && res.bytes2 == 900 && res.wire_bytes2 == -1 &&
           !res.error2[0],
       "round --bidir: ...the reverse figures");
    one_round(&r, 3, &res);
    is_str(F.log, "recv(1,1) pong(1) send(1,2,1) ", "round --bidir: the receiver then sends");
    ok(res.ok2 && near(res.bw2_gbps, 42) && res.wire_bytes2 == 1200 && res.retrans2 == 3 &&
           near(res.ce_frac2, 0.25),
       "round --bidir: ...with the sender's wire");
    memset(&F, 0, sizeof(F));
    F.fail = 1;
    fabric_run_task_of(&r, 0, 1, &g);
    fabric_run_round(&r, &g, &res);
    ok(!res.ok && !strcmp(res.error, "send: connection reset") && !strcmp(F.log, "send(3,2,1) ") &&
           !res.ok2,
       "round --bidir: a failed send: the error, no ping, no reverse (%s)", F.log);
    memset(&F, 0, sizeof(F));
    F.fail = 2;
    fabric_run_task_of(&r, 0, 3, &g);
    fabric_run_round(&r, &g, &res);
    ok(res.ok && !res.ok2 && !strcmp(res.error2, "send: connection reset") && res.bw2_gbps == 0 &&
           res.wire_bytes2 == -1 && res.retrans2 == -1 && res.ce_frac2 < 0,
       "round --bidir: a failed reverse direction: its own error, its figures unknown");
    r.o.bidir = 0;

    /* the ends that cannot test */
    r.me.ep.ok = 0;
    snprintf(r.me.ep.error, sizeof(r.me.ep.error), "rail1: no such device");
    one_round(&r, 1, &res);
    ok(!res.ok && !strcmp(res.error, "rail1: no such device") && !F.log[0],
       "round: this end not set up: its reason, nothing called");
    r.me.ep.ok = 1;
    r.info[3].ep.ok = 0;
    snprintf(r.info[3].ep.error, sizeof(r.info[3].ep.error), "no carrier");
    one_round(&r, 1, &res);
    ok(!res.ok && !strcmp(res.error, "peer: no carrier") && !F.log[0],
       "round: the peer not set up: 'peer: ' and its reason");
    r.info[3].ep.ok = 1;

    /* a transport that busy-polls: its CPU time says nothing */
    r.t = &fake_polls;
    one_round(&r, 1, &res);
    ok(res.ok && res.cpu_frac == -1 && res.wait_frac >= 0,
       "round: a polling transport: CPU share unknown, the wait kept");

    /* a netdev the host has: its carrier and counters read */
    snprintf(r.netdev, sizeof(r.netdev), "lo");
    one_round(&r, 1, &res);
    ok(res.carrier == 1 && res.errors >= 0, "round: lo: carrier up, errors counted (%lld)",
       (long long)res.errors);
    is_int(fabric_run_carrier("lo"), 1, "carrier: lo is up");
    is_int(fabric_run_carrier("no-such-netdev0"), -1, "carrier: a netdev that is not there");
    free_run(&r);
}

/* the rounds of a 6-node neighbor schedule with rail 0 of one node slow */
static void slow_node_rounds(struct fabric_run *r, int slow)
{
    for (size_t round = 0; round < r->sched.n; round++) {
        healthy_results(r, 95);
        for (int k = 0; k < r->size; k++) { /* nothing lost, nothing marked */
            r->res[k].wire_bytes = r->res[k].bytes;
            r->res[k].ce_frac = 0;
            if (k / r->rails == slow)
                r->res[k].bw_gbps = 30;
        }
        /* a link's goodput is its receiver's: the slow node's partners as receivers too */
        for (size_t i = 0; i < r->sched.rounds[round].n; i++) {
            const struct fabric_pair *p = &r->sched.rounds[round].pairs[i];
            if (p->a == slow)
                for (int rail = 0; rail < r->rails; rail++)
                    r->res[p->b * r->rails + rail].bw_gbps = 30;
        }
        fabric_run_add_links(r, (int)round, r->res, r->got);
    }
}

static void test_retest(void)
{
    struct fabric_run r;
    size_t n0;
    int paired = 0, others = 0;

    mk_run(&r, 6, 1);
    slow_node_rounds(&r, 6); /* no node slow */
    n0 = r.sched.n;
    fabric_run_retest(&r, 0);
    is_int((long long)r.sched.n, (long long)n0, "retest: nothing suspect, no round added");
    free_run(&r);

    mk_run(&r, 6, 1);
    slow_node_rounds(&r, 2);
    n0 = r.sched.n;
    fabric_run_retest(&r, 0);
    ok(r.sched.n > n0, "retest: n2 slow with both partners: rounds added (%zu -> %zu)", n0,
       r.sched.n);
    for (size_t i = n0; i < r.sched.n; i++) {
        ok(!r.lat_only[i], "retest: round %zu measures goodput", i + 1);
        for (size_t j = 0; j < r.sched.rounds[i].n; j++) {
            const struct fabric_pair *p = &r.sched.rounds[i].pairs[j];
            int other = p->a == 2 ? p->b : p->b == 2 ? p->a : -1;
            if (other >= 0)
                paired += other != 1 && other != 3;
            else
                others++;
        }
    }
    ok(paired == 1 && others == 0,
       "retest: n2 beside a node it was not tested with, and no other pair (%d, %d)", paired,
       others);
    free_run(&r);
}

/* every link slow: every node suspect, none known good to retest beside */
static void test_retest_no_good(void)
{
    struct fabric_run r;
    size_t n0;

    mk_run(&r, 4, 1);
    for (size_t round = 0; round < r.sched.n; round++) {
        healthy_results(&r, 20);
        for (int k = 0; k < r.size; k++)
            r.res[k].wire_bytes = r.res[k].bytes, r.res[k].ce_frac = 0;
        fabric_run_add_links(&r, (int)round, r.res, r.got);
    }
    n0 = r.sched.n;
    fabric_run_retest(&r, 0);
    is_int((long long)r.sched.n, (long long)n0, "retest: no node known good: no round added");
    free_run(&r);
}

static void test_append_rounds(void)
{
    struct fabric_run r;
    struct fabric_schedule extra;
    ry_error_t err;

    mk_run(&r, 6, 1);
    if (fabric_schedule_ring(6, 2, &extra, &err) < 0)
        diag("%s", err.text);
    {
        size_t n0 = r.sched.n, ne = extra.n;
        fabric_run_append_rounds(&r, &extra, 1);
        ok(r.sched.n == n0 + ne && ne > 0 && extra.rounds == NULL && r.lat_only[n0] &&
               r.lat_only[r.sched.n - 1] && !r.lat_only[n0 - 1],
           "append_rounds: a sweep's rounds after the schedule's, marked latency only");
    }
    free_run(&r);
}

/* ---- the collective phase over a model of the fabric ---- */

/* a node's speed on a rail (1 the bound), a fault between halves, a first step that is slow,
 * a step that loses a rank, a host that waits for CPU */
static struct model {
    double speed[8][2];
    int between;       /* rail 1's groups that span both halves of the rail: 0.4 */
    int flaky_steps;   /* rail 1's first steps this many are slow */
    int lose_at;       /* the step that loses a rank (0 none) */
    int fail_rail;     /* the ranks of this rail (1 + rail; 0 none) fail in the phase's steps */
    int pairs_fine;    /* a node is slow but beside one good node (the last step) */
    double half_speed; /* a slow node's speed in the halves (0: its own) */
    int waits;         /* every rank waits for a CPU half the time */
    int steps;         /* steps run */
    int groups_of_two; /* pairs timed */
} M;

static int model_step(struct fabric_run *r, struct fabric_coll_entry *e, int n)
{
    fabric_run_coll_gos(r, e, n, 7);
    r->coll_steps++;
    M.steps++;
    for (int i = 0; i < n; i++)
        M.groups_of_two += e[i].nnodes == 2;
    for (int k = 0; k < r->size; k++) {
        struct fabric_result *m = &r->res[k];
        int c = r->gos[k].coll_color, node = k / r->rails, rail = k % r->rails;
        double speed = M.speed[node][rail], bound;
        memset(m, 0, sizeof(*m));
        m->ok = 1;
        m->coll_sec = -1;
        m->cpu_frac = -1;
        m->wait_frac = M.waits ? 0.5 : -1;
        m->pressure_frac = -1;
        r->got[k] = 1;
        if (c < 0)
            continue;
        if (M.between && rail == 1) {
            int lo = 0, hi = 0;
            for (int j = 0; j < e[c].nnodes; j++)
                e[c].nodes[j] < r->nodes / 2 ? lo++ : hi++;
            if (lo && hi && e[c].rail == 1)
                speed = fmin(speed, 0.4);
        }
        if (M.flaky_steps >= M.steps && e[c].rail == 1)
            speed = fmin(speed, 0.3);
        if (M.pairs_fine && e[c].purpose == FABRIC_CP_PAIR)
            speed = 1;
        if (M.half_speed > 0 && e[c].purpose == FABRIC_CP_HALF && speed < 1)
            speed = M.half_speed;
        if (M.fail_rail == rail + 1 && e[c].purpose == FABRIC_CP_PHASE) {
            m->ok = 0;
            snprintf(m->error, sizeof(m->error), "NCCL: timeout");
            continue;
        }
        /* a group's bound as the phase takes it (every rail's lowest for all ranks); 90 Gb/s
         * where none was measured, the figure still made */
        bound = e[c].rail >= 0 ? r->coll_bound[e[c].rail] : -1;
        for (int j = 0; e[c].rail < 0 && j < r->rails; j++)
            if (r->coll_bound[j] > 0 && (bound < 0 || r->coll_bound[j] < bound))
                bound = r->coll_bound[j];
        if (bound <= 0)
            bound = 90;
        m->coll_iters = 10;
        m->coll_sec = (double)e[c].size * 8 / 1e9 * fabric_coll_bus_factor(e[c].op, e[c].ranks) /
                      (bound * speed);
    }
    if (M.lose_at == M.steps) {
        r->got[r->size - 1] = 0;
        r->rank_lost[r->size - 1] = 1;
        r->failed = xrealloc(r->failed, (r->nfailed + 1) * sizeof(*r->failed));
        r->failed[r->nfailed++] = r->nodes - 1;
        fabric_run_coll_results(r, e, n);
        return -1;
    }
    fabric_run_coll_results(r, e, n);
    return 0;
}

/* a run of n nodes x 2 rails whose links (ring of neighbours) all ran at 90 Gb/s, rail 1 at
 * rail1 Gb/s (0: none measured), the model reset */
static void coll_run_rails(struct fabric_run *r, int nodes, int rails, double rail1)
{
    mk_run(r, nodes, rails);
    r->coll_step = model_step;
    for (int n = 0; n < nodes; n++)
        for (int rail = 0; rail < rails; rail++) {
            struct fabric_link *l;
            if (rail == 1 && rail1 <= 0)
                continue;
            xgrow(&r->links, &r->links_alloc, r->nlinks + 1, sizeof(*r->links));
            l = &r->links[r->nlinks++];
            memset(l, 0, sizeof(*l));
            l->a = n;
            l->b = (n + 1) % nodes;
            l->rail = rail;
            l->ok = 1;
            l->bw_gbps = rail ? rail1 : 90;
            l->lat_p50_us = l->lat_p99_us = -1;
            l->cpu_a = l->cpu_b = l->wait_a = l->wait_b = l->pressure_a = l->pressure_b = -1;
        }
    memset(&M, 0, sizeof(M));
    for (int n = 0; n < 8; n++)
        M.speed[n][0] = M.speed[n][1] = 1;
}

static void coll_run(struct fabric_run *r, int nodes, double rail1)
{
    coll_run_rails(r, nodes, 2, rail1);
}

/* the findings of check collective.busbw of sev on subject, and the unjudged lines holding text */
static int count(const struct topo_findings *f, enum topo_sev sev, const char *subject,
                 const char *text)
{
    int c = 0;
    for (size_t i = 0; i < f->n; i++)
        c += f->v[i].sev == sev && !strcmp(f->v[i].check, "collective.busbw") &&
             (!subject || !strcmp(f->v[i].subject, subject)) &&
             (!text || strstr(f->v[i].observed, text) ||
              (f->v[i].hint && strstr(f->v[i].hint, text)));
    return c;
}

static const struct topo_finding *find(const struct topo_findings *f, enum topo_sev sev,
                                       const char *subject)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].sev == sev && !strcmp(f->v[i].subject, subject))
            return &f->v[i];
    return NULL;
}

static int unjudged(const struct topo_findings *f, const char *text)
{
    int c = 0;
    for (size_t i = 0; i < f->nunjudged; i++)
        c += strstr(f->unjudged[i], text) != NULL;
    return c;
}

static void test_coll_steps(void)
{
    struct fabric_run r;
    struct fabric_coll_entry e[2];
    int all[4] = { 0, 1, 2, 3 }, two[2] = { 1, 3 };

    coll_run(&r, 4, 90);
    r.coll_bound = xcalloc(2, sizeof(double));
    r.coll_slowest = xcalloc(2, sizeof(double));
    r.coll_bound[0] = 80;
    r.coll_bound[1] = 60;
    r.coll_steps = 3;
    memset(e, 0, sizeof(e));
    for (int i = 0; i < 2; i++)
        e[i] = (struct fabric_coll_entry){ .op = FABRIC_COLL_ALLREDUCE,
                                           .size = 1 << 20,
                                           .rail = i,
                                           .nnodes = 4,
                                           .nodes = all,
                                           .suspect = -1 };
    fabric_run_coll_gos(&r, e, 2, 9);
    ok(e[0].ranks == 4 && e[1].ranks == 4 && r.gos[0].coll_color == 0 && r.gos[5].coll_color == 1 &&
           r.gos[7].coll_color == 1,
       "coll gos: a group per rail, each rank in its rail's");
    ok(r.gos[3].coll_step == 1 && r.gos[3].round == (int32_t)(r.sched.n + 3) &&
           r.gos[3].coll_size == 1 << 20 && near(r.gos[3].coll_timeout, 9) &&
           near(r.gos[3].coll_duration, 2) && r.gos[3].role == FABRIC_ROLE_IDLE,
       "coll gos: the step, its size, deadline and duration");
    e[0].rail = -1;
    fabric_run_coll_gos(&r, e, 1, 9);
    ok(e[0].ranks == 8 && r.gos[7].coll_color == 0, "coll gos: a group of every rank");
    e[0].rail = 1;
    e[0].nodes = two;
    e[0].nnodes = 2;
    fabric_run_coll_gos(&r, e, 1, 9);
    ok(e[0].ranks == 2 && r.gos[3].coll_color == 0 && r.gos[7].coll_color == 0 &&
           r.gos[1].coll_color == -1 && r.gos[2].coll_color == -1,
       "coll gos: a pair's two ranks only");

    /* results: the slowest rank's time, the bus bandwidth, the verdict against the rail's bound */
    e[0].nodes = all;
    e[0].nnodes = 4;
    e[0].rail = 0;
    e[1].rail = -1;
    fabric_run_coll_gos(&r, e, 2, 9);
    for (int k = 0; k < r.size; k++) {
        r.res[k] = (struct fabric_result){ .ok = 1,
                                           .coll_iters = 7,
                                           .coll_sec = 0.001,
                                           .cpu_frac = -1,
                                           .wait_frac = -1,
                                           .pressure_frac = -1 };
        r.got[k] = 1;
    }
    r.res[2].coll_sec = 0.002; /* the slowest rank of rail 0 */
    fabric_run_coll_gos(&r, e, 1, 9);
    fabric_run_coll_results(&r, e, 1);
    ok(e[0].ok && e[0].iters == 7 && near(e[0].seconds, 0.002) &&
           near(e[0].algbw, (1 << 20) * 8 / 0.002 / 1e9) &&
           near(e[0].busbw, e[0].algbw * 2 * 3 / 4) && near(e[0].bound, 80) &&
           e[0].verdict == FABRIC_COLL_SHORT && near(e[0].host_share, 1),
       "coll results: the slowest rank's time, the ring's bus bandwidth, short of 80 Gb/s "
       "(%.3f)",
       e[0].busbw);
    ok(r.ncoll == 1 && r.coll[0].nodes != all && r.coll[0].nodes[3] == 3,
       "coll results: kept with a copy of its nodes");
    r.coll_bound[0] = 4;
    fabric_run_coll_results(&r, e, 1);
    ok(e[0].verdict == FABRIC_COLL_OK, "coll results: within a bound of 4 Gb/s: ok");
    r.coll_bound[0] = 80;
    for (int k = 0; k < r.size; k++)
        r.res[k].wait_frac = 0.95;
    fabric_run_coll_results(&r, e, 1);
    ok(e[0].verdict == FABRIC_COLL_HOST && e[0].host_share < 0.1,
       "coll results: ranks that waited for a CPU: host-limited (share %.2f)", e[0].host_share);
    r.coll_bound[0] = -1;
    fabric_run_coll_results(&r, e, 1);
    ok(e[0].verdict == FABRIC_COLL_NOBOUND, "coll results: no bound, no verdict");
    for (int k = 0; k < r.size; k++)
        r.res[k].coll_sec = 0, r.res[k].wait_frac = -1;
    r.coll_bound[0] = 80;
    fabric_run_coll_results(&r, e, 1);
    ok(!e[0].ok && e[0].verdict == FABRIC_COLL_SHORT && e[0].busbw == -1,
       "coll results: a time of 0 is no figure, never an endless bandwidth");
    for (int k = 0; k < r.size; k++)
        r.res[k].coll_sec = 0.001;
    fabric_run_coll_gos(&r, e + 1, 1, 9);
    fabric_run_coll_results(&r, e + 1, 1);
    ok(near(e[1].bound, 60), "coll results: a group of every rank: the lowest rail's bound");
    r.coll_bound[0] = 0.5;
    fabric_run_coll_results(&r, e + 1, 1);
    ok(near(e[1].bound, 0.5), "coll results: ...0.5 Gb/s on rail 0 (%g)", e[1].bound);
    r.coll_bound[0] = 80;
    r.coll_bound[1] = -1;
    r.coll_bound[0] = 80;
    fabric_run_coll_results(&r, e + 1, 1);
    ok(near(e[1].bound, 80), "coll results: ...of the rails that have one");
    r.got[4] = 0;
    r.res[6].ok = 0;
    snprintf(r.res[6].error, sizeof(r.res[6].error), "NCCL: unhandled system error");
    fabric_run_coll_results(&r, e + 1, 1);
    ok(!e[1].ok && !strcmp(e[1].error, "n2 rail 0: no result (rank lost)") && e[1].busbw == -1 &&
           e[1].verdict == FABRIC_COLL_SHORT,
       "coll results: a rank without a result fails the group, named: %s", e[1].error);
    r.got[4] = 1;
    fabric_run_coll_results(&r, e + 1, 1);
    ok(!e[1].ok && !strcmp(e[1].error, "n3 rail 0: NCCL: unhandled system error"),
       "coll results: ...and a rank's error, named: %s", e[1].error);
    free_run(&r);
}

static void test_collectives(void)
{
    struct fabric_run r;

    /* no collective asked for: no phase */
    coll_run(&r, 4, 90);
    r.o.coll_mask = 0;
    fabric_run_collectives(&r);
    ok(M.steps == 0 && r.coll_f.n == 0 && r.coll_f.nunjudged == 0 && !r.coll_bound,
       "collectives: none asked for: nothing run, nothing said");
    free_run(&r);

    /* healthy: every rail within its bound */
    coll_run(&r, 8, 90);
    fabric_run_collectives(&r);
    {
        const struct topo_finding *x = find(&r.coll_f, TOPO_SEV_OK, "rail1");
        ok(x && !strcmp(x->expected, ">= 70% of 90 Gb/s (the ring bound of rail 1's links)") &&
               !strcmp(x->observed,
                       "allreduce 16 MiB over 8 ranks: 90 Gb/s bus bandwidth (100% of the bound)"),
           "collectives: what rail 1 was held to and what it did: %s / %s", x ? x->expected : "-",
           x ? x->observed : "-");
    }
    ok(count(&r.coll_f, TOPO_SEV_OK, "rail0", NULL) == 1 &&
           count(&r.coll_f, TOPO_SEV_OK, "rail1", NULL) == 1 && r.coll_f.nfail == 0 &&
           r.coll_f.nwarn == 0 && M.steps == 2 && r.ncoll == 3,
       "collectives: healthy: rail0 and rail1 ok in 2 steps (per rail, all ranks)");
    ok(near(r.coll_bound[0], 90) && near(r.coll_bound[1], 90) && !r.coll_nccl,
       "collectives: the bound from the links, MPI");
    free_run(&r);

    /* one slow port: the rail's nodes halved twice, then n5 beside a good node */
    coll_run(&r, 8, 90);
    M.speed[5][1] = 0.4;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "n5/rail1", "proven good") == 1 && r.coll_f.nfail == 1 &&
           count(&r.coll_f, TOPO_SEV_OK, "rail0", NULL) == 1,
       "collectives: n5's port on rail 1 named, and only it");
    ok(M.steps == 6 && M.groups_of_two >= 2,
       "collectives: phase, confirm, two halvings, the pairs (%d steps)", M.steps);
    {
        const struct topo_finding *x = find(&r.coll_f, TOPO_SEV_FAIL, "n5/rail1");
        ok(x && strstr(x->observed, "allreduce 16 MiB over 2 ranks: 36 Gb/s bus bandwidth (40% "
                                    "of the bound) beside n1 (proven good), against 90 Gb/s for "
                                    "two good nodes side by side; the rail's 8 nodes: allreduce "
                                    "16 MiB over 8 ranks: 36 Gb/s"),
           "collectives: n5 beside n1, against the two good nodes: %s", x ? x->observed : "-");
    }
    free_run(&r);

    coll_run(&r, 8, 90);
    M.speed[2][1] = 0.4;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "n2/rail1", NULL) == 1 && r.coll_f.nfail == 1,
       "collectives: n2 (the first half) named as well");
    free_run(&r);

    /* four nodes: the two suspects use both good nodes, no pair left to compare with */
    coll_run(&r, 4, 90);
    M.speed[3][1] = 0.4;
    fabric_run_collectives(&r);
    {
        const struct topo_finding *x = find(&r.coll_f, TOPO_SEV_FAIL, "n3/rail1");
        ok(x && strstr(x->observed, "beside n1 (proven good), against 90 Gb/s for the fastest "
                                    "pair beside it; the rail's 4 nodes"),
           "collectives: four nodes: n3 beside n1, against the fastest pair: %s",
           x ? x->observed : "-");
    }
    free_run(&r);

    /* the slow port on rail 0 (the phase's first collective) and on the one rail of a node */
    coll_run(&r, 8, 90);
    M.speed[6][0] = 0.4;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "n6/rail0", NULL) == 1 && r.coll_f.nfail == 1 &&
           count(&r.coll_f, TOPO_SEV_OK, "rail1", NULL) == 1,
       "collectives: n6's port on rail 0 named");
    {
        const struct topo_finding *x = find(&r.coll_f, TOPO_SEV_FAIL, "n6/rail0");
        ok(x && !strcmp(x->expected, ">= 70% of 90 Gb/s (the ring bound of rail 0's links)"),
           "collectives: ...held to rail 0's bound: %s", x ? x->expected : "-");
    }
    free_run(&r);
    coll_run(&r, 8, 90);
    M.speed[6][0] = 0.4;
    r.o.coll_mask |= 1u << FABRIC_COLL_ALLGATHER;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "n6/rail0", NULL) == 1 &&
           count(&r.coll_f, TOPO_SEV_FAIL, "rail0", "the rail's first collective short") == 1 &&
           M.steps == 8,
       "collectives: rail 0 short in both collectives: localized once (%d steps)", M.steps);
    free_run(&r);
    coll_run_rails(&r, 8, 1, 0);
    M.speed[2][0] = 0.4;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "n2/rail0", NULL) == 1 && r.coll_f.nwarn == 0,
       "collectives: one rail short: localized, not taken for a shortfall every rail shares");
    free_run(&r);

    /* the map's ratio weighs the halves too: 0.5 lets a half at 55% of the other pass */
    coll_run(&r, 8, 90);
    M.speed[5][1] = 0.3;
    M.half_speed = 0.55;
    r.coll_ratio = 0.5;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_WARN, "rail1", "no node stands out") == 1 && r.coll_f.nfail == 0 &&
           M.steps == 4,
       "collectives: ratio 0.5, halves at 100%% and 55%%: alike, not searched further");
    free_run(&r);
    coll_run(&r, 8, 90);
    M.speed[5][1] = 0.3;
    M.half_speed = 0.55;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "n5/rail1", NULL) == 1,
       "collectives: ...the default 0.7 searches the 55%% half and names n5");
    free_run(&r);

    /* a ratio of 0: no limit */
    coll_run(&r, 8, 90);
    M.speed[5][1] = 0.05;
    r.coll_ratio = 0;
    fabric_run_collectives(&r);
    ok(fabric_run_coll_ratio(&r) == 0 && r.coll_f.nfail == 0 &&
           count(&r.coll_f, TOPO_SEV_OK, "rail1", NULL) == 1 && M.steps == 2,
       "collectives: the map's ratio 0: any figure passes");
    free_run(&r);

    /* short on every rail alike: the library's or the hosts', no localizing */
    coll_run(&r, 8, 90);
    for (int n = 0; n < 8; n++)
        M.speed[n][0] = M.speed[n][1] = 0.5;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_WARN, "rail0", "every rail shares") == 1 &&
           count(&r.coll_f, TOPO_SEV_WARN, "rail1", "every rail shares") == 1 &&
           r.coll_f.nfail == 0 && M.steps == 2,
       "collectives: every rail short alike: warnings, nothing localized");
    free_run(&r);

    /* the whole rail slow, each half fast: the switches between them */
    coll_run(&r, 8, 90);
    M.between = 1;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "rail1", "between the two halves") == 1 &&
           r.coll_f.nfail == 1,
       "collectives: each half faster than the whole: the paths between them");
    free_run(&r);

    /* every node of rail 1 alike slow, rail 0 fine: no node stands out */
    coll_run(&r, 8, 90);
    for (int n = 0; n < 8; n++)
        M.speed[n][1] = 0.5;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_WARN, "rail1", "no node stands out") == 1 && r.coll_f.nfail == 0,
       "collectives: rail 1's halves alike: a shortfall every node shares");
    free_run(&r);

    /* slow at first, fine when repeated */
    coll_run(&r, 8, 90);
    M.flaky_steps = 1;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_OK, "rail1", "at first, then") == 1 && r.coll_f.nfail == 0 &&
           M.steps == 3,
       "collectives: short once, then within the bound: ok, both figures given");
    free_run(&r);

    /* three nodes: no half to prove good */
    coll_run(&r, 3, 90);
    M.speed[1][1] = 0.4;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "rail1", "not localized further than n0, n1, n2") == 1,
       "collectives: three nodes: not localized further than the three");
    free_run(&r);

    /* no link measured on rail 1: no bound */
    coll_run(&r, 4, 0);
    fabric_run_collectives(&r);
    ok(unjudged(&r.coll_f, "collective.busbw rail1") == 1 &&
           unjudged(&r.coll_f, "no link of it was measured") == 1 &&
           count(&r.coll_f, TOPO_SEV_OK, "rail0", NULL) == 1,
       "collectives: a rail without a measured link: not judged, the other judged");
    free_run(&r);

    /* hosts short of CPU: not judged, never a fault */
    coll_run(&r, 4, 90);
    M.waits = 1;
    for (int n = 0; n < 4; n++)
        M.speed[n][0] = M.speed[n][1] = 0.45;
    fabric_run_collectives(&r);
    ok(unjudged(&r.coll_f, "its hosts were short of CPU") == 2 && r.coll_f.nfail == 0,
       "collectives: slow with starved hosts: not judged");
    free_run(&r);

    /* a rank lost in a step: the phase stops */
    coll_run(&r, 4, 90);
    M.lose_at = 1;
    fabric_run_collectives(&r);
    ok(unjudged(&r.coll_f, "stopped: a rank was lost") == 1 && M.steps == 1 && r.coll_f.n == 0,
       "collectives: a rank lost in the first step: stopped, nothing judged");
    free_run(&r);

    coll_run(&r, 4, 90);
    r.nfailed = 1;
    r.failed = xcalloc(1, sizeof(int));
    fabric_run_collectives(&r);
    ok(unjudged(&r.coll_f, "not run: a rank was lost") == 1 && M.steps == 0,
       "collectives: a rank lost in the links phase: not run");
    free_run(&r);

    coll_run(&r, 4, 90);
    r.o.coll_lib = "nccl";
    fabric_run_collectives(&r);
    ok(unjudged(&r.coll_f, "not run: --coll-lib nccl, but n0 rail 0: no GPU") == 1 && M.steps == 0,
       "collectives: --coll-lib nccl without a GPU: not run, the rank named");
    free_run(&r);

    coll_run(&r, 4, 90);
    r.o.coll_lib = "auto";
    for (int k = 0; k < r.size; k++)
        r.info[k].gpu = k % 2;
    fabric_run_collectives(&r);
    ok(r.coll_nccl == 1 && !r.coll_why[0] && M.steps == 2,
       "collectives: auto, every rank with a GPU: NCCL");
    free_run(&r);

    coll_run(&r, 4, 90);
    r.o.coll_lib = "auto";
    for (int k = 0; k < r.size - 1; k++)
        r.info[k].gpu = 0;
    fabric_run_collectives(&r);
    ok(r.coll_nccl == 0 && strstr(r.coll_why, "MPI on host memory, not NCCL: n3 rail 1"),
       "collectives: auto, one rank without: MPI, and why: %s", r.coll_why);
    free_run(&r);

    /* --coll-groups: rails only, all only; one rail's "all" is the rail's group */
    coll_run(&r, 4, 90);
    r.o.coll_groups = 1;
    fabric_run_collectives(&r);
    ok(M.steps == 1 && r.ncoll == 2, "collectives: --coll-groups rails: one step of two groups");
    free_run(&r);
    coll_run(&r, 4, 90);
    r.o.coll_groups = 2;
    fabric_run_collectives(&r);
    ok(M.steps == 1 && r.ncoll == 1 && r.coll[0].rail == -1,
       "collectives: --coll-groups all: one group of every rank");
    free_run(&r);

    /* two sizes, two collectives: the largest judged, each collective on its own */
    coll_run(&r, 4, 90);
    r.o.coll_mask |= 1u << FABRIC_COLL_ALLGATHER;
    r.o.coll_sizes[1] = 1u << 20;
    r.o.ncoll_sizes = 2;
    fabric_run_collectives(&r);
    ok(M.steps == 8 && r.ncoll == 12 && count(&r.coll_f, TOPO_SEV_OK, "rail0", NULL) == 2,
       "collectives: 2 collectives x 2 sizes: 8 steps, the largest size judged per collective");
    free_run(&r);

    /* the map's ratio: 0.3 lets a rail at 40% pass */
    coll_run(&r, 8, 90);
    M.speed[5][1] = 0.4;
    r.coll_ratio = 0.3;
    fabric_run_collectives(&r);
    ok(r.coll_f.nfail == 0 && count(&r.coll_f, TOPO_SEV_OK, "rail1", NULL) == 1 &&
           near(fabric_run_coll_ratio(&r), 0.3),
       "collectives: the map's ratio 0.3 read");
    free_run(&r);

    /* a rail whose collective fails while its links pass: the settings of the rail */
    coll_run(&r, 4, 90);
    M.fail_rail = 2;
    fabric_run_collectives(&r);
    ok(find(&r.coll_f, TOPO_SEV_WARN, "all ranks") &&
           !strcmp(find(&r.coll_f, TOPO_SEV_WARN, "all ranks")->expected,
                   ">= 70% of 90 Gb/s (the slowest rail's ring bound)") &&
           !strcmp(find(&r.coll_f, TOPO_SEV_FAIL, "rail1")->observed,
                   "allreduce 16 MiB over 4 ranks failed: n0 rail 1: NCCL: timeout"),
       "collectives: a group of every rank held to the slowest rail, a failure said as such");
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "rail1", "n0 rail 1: NCCL: timeout") == 1 &&
           count(&r.coll_f, TOPO_SEV_WARN, "all ranks", "fails where the links pass") == 1 &&
           r.coll_f.nfail == 1 && M.steps == 2,
       "collectives: rail 1 fails: a failure naming the rank, a warning for all ranks");
    free_run(&r);

    /* slow in the halves, alike when each suspect is beside a good node */
    coll_run(&r, 8, 90);
    M.speed[5][1] = 0.4;
    M.pairs_fine = 1;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_WARN, "rail1", "each beside a good node: alike") == 1 &&
           r.coll_f.nfail == 0 && M.steps == 6,
       "collectives: the suspects fine beside good nodes: a warning, no node named");
    free_run(&r);

    /* a rank lost while localizing: at the repeat, the halves, the pairs */
    for (int at = 3; at <= 6; at += at == 4 ? 2 : 1) {
        coll_run(&r, 8, 90);
        M.speed[5][1] = 0.4;
        M.lose_at = at;
        fabric_run_collectives(&r);
        ok(M.steps == at && r.coll_f.nfail == 0 &&
               count(&r.coll_f, TOPO_SEV_OK, "rail0", NULL) == 1,
           "collectives: a rank lost at step %d: localizing stops there, nothing named", at);
        free_run(&r);
    }

    /* two collectives short on one rail: localized once, the second named with the first */
    coll_run(&r, 8, 90);
    M.speed[5][1] = 0.4;
    r.o.coll_mask |= 1u << FABRIC_COLL_ALLGATHER;
    fabric_run_collectives(&r);
    ok(count(&r.coll_f, TOPO_SEV_FAIL, "n5/rail1", NULL) == 1 &&
           count(&r.coll_f, TOPO_SEV_FAIL, "rail1", "the rail's first collective short") == 1 &&
           M.steps == 8,
       "collectives: allgather short too: one localization (%d steps)", M.steps);
    free_run(&r);

    /* one rail: its ranks are all the ranks, one group a step */
    coll_run_rails(&r, 4, 1, 0);
    fabric_run_collectives(&r);
    ok(M.steps == 1 && r.ncoll == 1 && r.coll[0].rail == 0 &&
           count(&r.coll_f, TOPO_SEV_OK, "rail0", NULL) == 1,
       "collectives: one rail: no second group of every rank");
    free_run(&r);
    coll_run_rails(&r, 4, 1, 0);
    r.o.coll_groups = 2;
    fabric_run_collectives(&r);
    ok(M.steps == 1 && r.ncoll == 1 && r.coll[0].rail == -1,
       "collectives: one rail, --coll-groups all: the group of every rank");
    free_run(&r);
}

static void test_run_results(void)
{
    struct fabric_run r;
    struct fabric_input in;
    struct fabric_port *ports;
    struct topo_findings f = { 0 };
    char buf[200];
    int eight[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

    mk_run(&r, 4, 2);
    r.info[5].carrier = 0;
    r.failed = xcalloc(3, sizeof(int));
    r.failed[0] = r.failed[1] = 2;
    r.failed[2] = 1;
    r.nfailed = 3;
    fabric_run_input(&r, &in, &ports);
    ok(in.nodes == 4 && in.rails == 2 && in.nfailed == 2 && in.failed_nodes[0] == 2 &&
           in.failed_nodes[1] == 1 && ports[5].carrier == 0 && ports[4].carrier == 1 &&
           in.expect_gbps == r.expect && in.node_names == r.names,
       "input: a lost node named once, each port's carrier");
    free((void *)in.failed_nodes);
    free(ports);
    r.nfailed = 0;

    healthy_results(&r, 95);
    for (int k = 0; k < r.size; k++) {
        r.res[k].wire_bytes = r.res[k].bytes;
        r.res[k].ce_frac = 0;
        r.info[k].rank_numa = r.info[k].nic_numa = -1;
    }
    fabric_run_add_links(&r, 0, r.res, r.got);
    r.info[0].rank_numa = r.info[0].nic_numa = 0; /* n0 rail 0 beside its NIC */
    r.info[1].rank_numa = 1;                      /* n0 rail 1 across the socket link */
    r.info[1].nic_numa = 0;
    r.info[2].rank_numa = 1; /* n1 rail 0: its NIC's node unknown */
    topo_findings_add(&r.coll_f, TOPO_SEV_FAIL, "collective.busbw", "n3/rail1", "e", "o", "h");
    topo_findings_unjudged(&r.coll_f, "collectives: a line of the phase");
    fabric_run_analyse(&r, &f);
    {
        int numa_ok = 0, numa_warn = 0, numa = 0, coll = 0, coll_unj = 0, links = 0;
        for (size_t i = 0; i < f.n; i++) {
            const struct topo_finding *x = &f.v[i];
            numa += !strcmp(x->check, "affinity.numa");
            numa_ok += !strcmp(x->check, "affinity.numa") && x->sev == TOPO_SEV_OK &&
                       !strcmp(x->subject, "n0/rail0") && !x->hint;
            numa_warn += !strcmp(x->check, "affinity.numa") && x->sev == TOPO_SEV_WARN &&
                         !strcmp(x->subject, "n0/rail1") &&
                         !strcmp(x->observed, "bound to NUMA 1") &&
                         !strcmp(x->expected, "NUMA 0 (its NIC's)") && x->hint &&
                         strstr(x->hint, "bind each rank next to its NIC");
            coll += !strcmp(x->check, "collective.busbw") && x->sev == TOPO_SEV_FAIL && x->hint &&
                    !strcmp(x->hint, "h");
            links += !strncmp(x->check, "link.", 5);
        }
        for (size_t i = 0; i < f.nunjudged; i++)
            coll_unj += !strcmp(f.unjudged[i], "collectives: a line of the phase");
        ok(numa == 2 && numa_ok == 1 && numa_warn == 1,
           "analyse: a rank beside its NIC passes, one across the socket link warns, one unknown "
           "is left out");
        ok(coll == 1 && coll_unj == 1, "analyse: the collective phase's verdicts added");
        ok(links > 0 && f.nfail == 1 && f.v[0].sev == TOPO_SEV_FAIL,
           "analyse: the links judged, the findings sorted (the failure first)");
    }
    topo_findings_free(&f);
    free_run(&r);

    mk_run(&r, 8, 1);
    fabric_run_nodes_text(&r, eight, 8, buf, sizeof(buf));
    is_str(buf, "n0, n1, n2, n3, n4, n5 and 2 more", "nodes text: six named, then a count");
    fabric_run_nodes_text(&r, eight + 5, 3, buf, sizeof(buf));
    is_str(buf, "n5, n6, n7", "nodes text: three");
    fabric_run_nodes_text(&r, eight, 7, buf, sizeof(buf));
    is_str(buf, "n0, n1, n2, n3, n4, n5 and 1 more", "nodes text: seven");
    fabric_run_nodes_text(&r, eight, 6, buf, sizeof(buf));
    is_str(buf, "n0, n1, n2, n3, n4, n5", "nodes text: six, no count");
    free_run(&r);
    is_str(fabric_run_size_text(16u << 20, buf, sizeof(buf)), "16 MiB", "size text: 16 MiB");
    is_str(fabric_run_size_text(1u << 20, buf, sizeof(buf)), "1 MiB", "size text: 1 MiB");
    is_str(fabric_run_size_text(3u << 19, buf, sizeof(buf)), "1.5 MiB", "size text: 1.5 MiB");
    is_str(fabric_run_size_text(512u << 10, buf, sizeof(buf)), "512 KiB", "size text: 512 KiB");
}

/* when rank 0 stops waiting for a rank's start-up facts, and what it makes of the missing */
static void test_hello(void)
{
    const double g = FABRIC_REACH_GRACE;

    is_int(fabric_run_hello_step(0, 1, 60, 0, g), FABRIC_HELLO_END, "hello: none missing: end");
    is_int(fabric_run_hello_step(2, 59.99, 60, 59, 60), FABRIC_HELLO_WAIT,
           "hello: two missing, just before the deadline, one heard a second ago: wait");
    is_int(fabric_run_hello_step(2, 60, 60, 59, 60), FABRIC_HELLO_END,
           "hello: ...at the deadline: end");
    is_int(fabric_run_hello_step(1, g, 60, 0, g), FABRIC_HELLO_LOOK,
           "hello: nothing heard for the grace: look in the side channel");
    is_int(fabric_run_hello_step(1, g - 0.01, 60, 0, g), FABRIC_HELLO_WAIT,
           "hello: ...not a moment before it");
    is_int(fabric_run_hello_step(1, 30, 60, 30 - g + 0.01, 0), FABRIC_HELLO_WAIT,
           "hello: the grace counts from the last rank heard");
    is_int(fabric_run_hello_step(1, 30, 60, 0, 30.5), FABRIC_HELLO_WAIT,
           "hello: a look not yet due again: wait");
    is_int(fabric_run_hello_step(1, 30.5, 60, 0, 30.5), FABRIC_HELLO_LOOK, "hello: ...then look");

    is_int(fabric_run_hello_verdict(8, 0, 0), FABRIC_HELLO_HEARD, "hello: every rank heard");
    is_int(fabric_run_hello_verdict(8, 3, 0), FABRIC_HELLO_HEARD,
           "hello: 3 of 8 unreached: dropped, the run goes on");
    is_int(fabric_run_hello_verdict(8, 4, 0), FABRIC_HELLO_CUT_OFF,
           "hello: 4 of 8: rank 0 itself is cut off");
    is_int(fabric_run_hello_verdict(5, 2, 0), FABRIC_HELLO_HEARD, "hello: 2 of 5: goes on");
    is_int(fabric_run_hello_verdict(5, 3, 0), FABRIC_HELLO_CUT_OFF, "hello: 3 of 5: cut off");
    is_int(fabric_run_hello_verdict(2, 1, 0), FABRIC_HELLO_CUT_OFF,
           "hello: the other of two: cut off");
    is_int(fabric_run_hello_verdict(8, 1, 1), FABRIC_HELLO_NOT_STARTED,
           "hello: a rank with no facts anywhere did not start");
    is_int(fabric_run_hello_verdict(8, 0, 1), FABRIC_HELLO_NOT_STARTED,
           "hello: ...even with none unreached");
}

static void test_exit_status(void)
{
    struct topo_findings f = { 0 };

    is_int(fabric_run_exit_status(&f, 0), 0, "exit status: nothing found: 0");
    topo_findings_unjudged(&f, "a link not judged");
    is_int(fabric_run_exit_status(&f, 0), 2, "exit status: only not judged: 2");
    is_int(fabric_run_exit_status(&f, 1), 2, "exit status: ...with a rank lost: still 2");
    topo_findings_add(&f, TOPO_SEV_WARN, "link.outlier", "n1/rail0", "e", "o", NULL);
    is_int(fabric_run_exit_status(&f, 0), 0, "exit status: a warning beside: 0");
    is_int(fabric_run_exit_status(&f, 1), 1, "exit status: ...with a rank lost: 1");
    topo_findings_add(&f, TOPO_SEV_FAIL, "link.goodput", "n1/rail0", "e", "o", NULL);
    is_int(fabric_run_exit_status(&f, 0), 1, "exit status: a failure: 1");
    topo_findings_free(&f);
    topo_findings_add(&f, TOPO_SEV_OK, "link.goodput", "n1/rail0", "e", "o", NULL);
    is_int(fabric_run_exit_status(&f, 0), 0, "exit status: a pass: 0");
    topo_findings_free(&f);
}

int main(void)
{
    test_task_of();
    test_add_links();
    test_wire_from_port();
    test_round();
    test_retest();
    test_retest_no_good();
    test_append_rounds();
    test_coll_steps();
    test_collectives();
    test_run_results();
    test_hello();
    test_exit_status();
    return done_testing();
}
