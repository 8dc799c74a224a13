#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "fabric/host.h"
#include "fabric/run.h"

/* The collective phase (fabric/run.h): each collective per rail and over all ranks, judged
 * against the bound the links predict; a rail that falls short localized by halving its nodes
 * and timing suspects beside nodes proven good. Each step runs through r->coll_step (over MPI:
 * fabric/coll_step.c); the decisions of a step are fabric/collective.c's. */

/* keep a copy of e (its nodes too) */
static void coll_add(struct fabric_run *r, const struct fabric_coll_entry *e)
{
    struct fabric_coll_entry *x;

    if (r->ncoll == r->coll_alloc) {
        r->coll_alloc = r->coll_alloc ? 2 * r->coll_alloc : 16;
        r->coll = xrealloc(r->coll, r->coll_alloc * sizeof(*r->coll));
    }
    x = &r->coll[r->ncoll++];
    *x = *e;
    x->nodes = xcalloc((size_t)e->nnodes + 1, sizeof(*x->nodes));
    memcpy(x->nodes, e->nodes, (size_t)e->nnodes * sizeof(*x->nodes));
}

double fabric_run_coll_ratio(const struct fabric_run *r)
{
    return r->coll_ratio >= 0 ? r->coll_ratio : FABRIC_COLL_RATIO_MIN; /* 0: no limit */
}

/* The bound of a group: its rail's; every rail's lowest for a group of all ranks. */
static double coll_bound_of(const struct fabric_run *r, int rail)
{
    double b = -1;

    if (rail >= 0)
        return r->coll_bound[rail];
    for (int k = 0; k < r->rails; k++)
        if (r->coll_bound[k] > 0 && (b < 0 || r->coll_bound[k] < b))
            b = r->coll_bound[k];
    return b;
}

void fabric_run_coll_gos(struct fabric_run *r, struct fabric_coll_entry *e, int n, double timeout)
{
    const struct fabric_run_opts *o = &r->o;

    for (int k = 0; k < r->size; k++) {
        struct fabric_go *g = &r->gos[k];
        memset(g, 0, sizeof(*g));
        g->round = (int32_t)(r->sched.n + (size_t)r->coll_steps);
        g->role = FABRIC_ROLE_IDLE;
        g->peer = -1;
        g->coll_step = 1;
        g->coll_op = e[0].op;
        g->coll_size = (int64_t)e[0].size;
        g->coll_color = -1;
        g->coll_nccl = r->coll_nccl;
        g->coll_duration = o->coll_duration;
        g->coll_timeout = timeout;
    }
    for (int i = 0; i < n; i++) {
        e[i].ranks = 0;
        for (int j = 0; j < e[i].nnodes; j++)
            for (int rail = 0; rail < r->rails; rail++)
                if (e[i].rail < 0 || e[i].rail == rail) {
                    r->gos[r->rank_of[e[i].nodes[j] * r->rails + rail]].coll_color = i;
                    e[i].ranks++;
                }
    }
}

void fabric_run_coll_results(struct fabric_run *r, struct fabric_coll_entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        struct fabric_coll_entry *x = &e[i];
        x->ok = 1;
        x->seconds = -1;
        x->host_share = 1;
        x->error[0] = '\0';
        for (int k = 0; k < r->size; k++) {
            const struct fabric_result *m = &r->res[k];
            if (r->gos[k].coll_color != i)
                continue;
            if (!r->got[k] || !m->ok) {
                if (x->ok)
                    snprintf(x->error, sizeof(x->error), "%.63s rail %d: %.240s", r->info[k].host,
                             r->info[k].local_rank,
                             !r->got[k] ? "no result (rank lost)" : m->error);
                x->ok = 0;
                continue;
            }
            x->iters = m->coll_iters;
            if (m->coll_sec > x->seconds)
                x->seconds = m->coll_sec;
            x->host_share = fmin(x->host_share, fabric_host_share(m->cpu_frac, m->wait_frac,
                                                                  m->pressure_frac, -1, -1, -1));
        }
        x->bound = coll_bound_of(r, x->rail);
        if (x->ok && x->seconds > 0) {
            x->algbw = (double)x->size * 8 / x->seconds / 1e9;
            x->busbw = x->algbw * fabric_coll_bus_factor(x->op, x->ranks);
            x->verdict =
                fabric_coll_judge(x->busbw, x->bound, fabric_run_coll_ratio(r), x->host_share);
        } else {
            x->ok = 0;
            x->algbw = x->busbw = -1;
            x->verdict = FABRIC_COLL_SHORT;
        }
        coll_add(r, x);
    }
}

/* "allreduce 16 MiB over 8 ranks: 190 Gb/s bus bandwidth (95% of the bound)" */
static void coll_text(const struct fabric_coll_entry *e, char *buf, size_t len)
{
    char sz[32];

    fabric_run_size_text(e->size, sz, sizeof(sz));
    if (!e->ok)
        snprintf(buf, len, "%s %s over %d ranks failed: %s", fabric_coll_name(e->op), sz, e->ranks,
                 e->error);
    else if (e->bound > 0)
        snprintf(buf, len, "%s %s over %d ranks: %.3g Gb/s bus bandwidth (%.0f%% of the bound)",
                 fabric_coll_name(e->op), sz, e->ranks, e->busbw, 100 * e->busbw / e->bound);
    else
        snprintf(buf, len, "%s %s over %d ranks: %.3g Gb/s bus bandwidth", fabric_coll_name(e->op),
                 sz, e->ranks, e->busbw);
}

static void coll_expected(const struct fabric_run *r, const struct fabric_coll_entry *e, char *buf,
                          size_t len)
{
    if (e->rail >= 0)
        snprintf(buf, len, ">= %.0f%% of %.3g Gb/s (the ring bound of rail %d's links)",
                 100 * fabric_run_coll_ratio(r), e->bound, e->rail);
    else
        snprintf(buf, len, ">= %.0f%% of %.3g Gb/s (the slowest rail's ring bound)",
                 100 * fabric_run_coll_ratio(r), e->bound);
}

/* Rank 0: a rail's collective fell short while the other rails' did not: repeated once, then
 * its node set halved and the halves timed side by side, the slower half (below the ratio of the
 * faster) halved again; two or three suspects are each timed beside a node proven good, with two
 * good nodes beside each other as the yardstick. Halves and pairs are weighed against each other,
 * never against the bound: a collective of two ranks may use another algorithm than one of
 * sixty-four, and groups timed side by side share the hosts' load. The verdict goes to
 * r->coll_f. */
static void coll_localize(struct fabric_run *r, const struct fabric_coll_entry *phase)
{
    int n = r->nodes, rail = phase->rail, ns = n, ng = 0;
    double q = fabric_run_coll_ratio(r) > 0 ? fabric_run_coll_ratio(r) : FABRIC_COLL_RATIO_MIN,
           whole;
    int *set = xcalloc((size_t)n, sizeof(int));
    unsigned char *good = xcalloc((size_t)n, 1);
    struct fabric_coll_entry c, grp[4];
    char e[200], o[1600], t[240], t2[240], t3[240], subject[FABRIC_NAME_LEN + 16], la[200], lb[200];

    memset(grp, 0, sizeof(grp));
    for (int k = 0; k < n; k++)
        set[k] = k;
    coll_expected(r, phase, e, sizeof(e));
    coll_text(phase, t, sizeof(t));
    snprintf(subject, sizeof(subject), "rail%d", rail);
    c = *phase;
    c.purpose = FABRIC_CP_CONFIRM;
    if (r->coll_step(r, &c, 1) < 0)
        goto out;
    coll_text(&c, t2, sizeof(t2));
    if (c.ok && c.verdict == FABRIC_COLL_OK) {
        snprintf(o, sizeof(o), "%s at first, then %s", t, t2);
        topo_findings_add(&r->coll_f, TOPO_SEV_OK, "collective.busbw", subject, e, o, NULL);
        goto out;
    }
    whole = c.ok ? c.busbw : phase->busbw;
    while (ns >= 4) {
        int *a = xcalloc((size_t)ns, sizeof(int)), *b = xcalloc((size_t)ns, sizeof(int)), na, nb;
        double fa, fb;
        enum fabric_coll_step step;
        fabric_coll_halve(set, ns, a, &na, b, &nb);
        for (int h = 0; h < 2; h++) {
            grp[h] = *phase;
            grp[h].purpose = FABRIC_CP_HALF;
            grp[h].nodes = h ? b : a;
            grp[h].nnodes = h ? nb : na;
        }
        if (r->coll_step(r, grp, 2) < 0) {
            free(a);
            free(b);
            goto out;
        }
        fa = grp[0].ok ? grp[0].busbw : 0;
        fb = grp[1].ok ? grp[1].busbw : 0;
        step = fabric_coll_halves(fa, fb, whole, q);
        if (step == FABRIC_COLL_STEP_A_SLOW || step == FABRIC_COLL_STEP_B_SLOW) {
            int slow_a = step == FABRIC_COLL_STEP_A_SLOW;
            const struct fabric_coll_entry *fast = slow_a ? &grp[1] : &grp[0];
            for (int j = 0; j < fast->nnodes; j++)
                good[fast->nodes[j]] = 1;
            ns = slow_a ? na : nb;
            memcpy(set, slow_a ? a : b, (size_t)ns * sizeof(int));
            free(a);
            free(b);
            continue;
        }
        coll_text(&grp[0], t2, sizeof(t2));
        coll_text(&grp[1], t3, sizeof(t3));
        fabric_run_nodes_text(r, a, na, la, sizeof(la));
        fabric_run_nodes_text(r, b, nb, lb, sizeof(lb));
        free(a);
        free(b);
        {
            int between = step == FABRIC_COLL_STEP_BETWEEN;
            snprintf(o, sizeof(o), "%s; its halves side by side: %s (%s), %s (%s): %s", t, t2, la,
                     t3, lb,
                     between ? "each faster than the whole, so the shortfall is between them"
                             : "alike, no node stands out");
            topo_findings_add(&r->coll_f, between ? TOPO_SEV_FAIL : TOPO_SEV_WARN,
                              "collective.busbw", subject, e, o,
                              between ? "the paths between the two halves (the rail's switches) "
                                        "are the suspects"
                                      : "a shortfall every node shares: the collective library's "
                                        "algorithm or settings, or the hosts");
        }
        goto out;
    }
    /* two or three suspects, each beside a good node; two more good nodes as the yardstick */
    {
        int pairs[sizeof(grp) / sizeof(grp[0])][2], suspect[sizeof(grp) / sizeof(grp[0])];
        int control, np = fabric_coll_pair_plan(set, ns, good, n, pairs, suspect, &control);
        if (np < 0) {
            fabric_run_nodes_text(r, set, ns, la, sizeof(la));
            snprintf(o, sizeof(o),
                     "%s; not localized further than %s (no node proven good to test them "
                     "beside)",
                     t, la);
            topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", subject, e, o,
                              "the links phase names a slow port among them, where there is one");
            goto out;
        }
        for (ng = 0; ng < np; ng++) {
            grp[ng] = *phase;
            grp[ng].purpose = FABRIC_CP_PAIR;
            grp[ng].nodes = xcalloc(2, sizeof(int));
            grp[ng].nodes[0] = pairs[ng][0];
            grp[ng].nodes[1] = pairs[ng][1];
            grp[ng].nnodes = 2;
            grp[ng].suspect = suspect[ng];
        }
        if (r->coll_step(r, grp, ng) < 0)
            goto out;
        {
            double bw[sizeof(grp) / sizeof(grp[0])], ref;
            unsigned char is_slow[sizeof(grp) / sizeof(grp[0])];
            int slow = 0;
            for (int j = 0; j < ng; j++)
                bw[j] = grp[j].ok ? grp[j].busbw : 0;
            ref = fabric_coll_pairs(bw, ng, control, q, is_slow);
            for (int j = 0; j < ng; j++) {
                const struct fabric_coll_entry *g = &grp[j];
                char who[FABRIC_NAME_LEN + 16];
                if (!is_slow[j])
                    continue;
                coll_text(g, t2, sizeof(t2));
                snprintf(who, sizeof(who), "%s/rail%d", r->names[g->suspect], rail);
                snprintf(o, sizeof(o),
                         "%s beside %s (proven good), against %.3g Gb/s %s; the "
                         "rail's %d nodes: %s",
                         t2, r->names[g->nodes[0] == g->suspect ? g->nodes[1] : g->nodes[0]], ref,
                         control >= 0 && grp[control].ok ? "for two good nodes side by side"
                                                         : "for the fastest pair beside it",
                         n, t);
                topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", who, e, o,
                                  "this node's port on the rail slows every collective of the "
                                  "rail: see its link findings");
                slow++;
            }
            if (!slow) {
                fabric_run_nodes_text(r, set, ns, la, sizeof(la));
                snprintf(o, sizeof(o), "%s; %s each beside a good node: alike, no node stands out",
                         t, la);
                topo_findings_add(&r->coll_f, TOPO_SEV_WARN, "collective.busbw", subject, e, o,
                                  "a shortfall every node shares: the collective library's "
                                  "algorithm or settings, or the hosts");
            }
        }
    }
out:
    for (int j = 0; j < ng; j++)
        free(grp[j].nodes);
    free(set);
    free(good);
}

/* Rank 0: the collective phase: each collective and size per rail (every rail side by side)
 * and over all ranks; the largest size judged against the bound the run's links predict; a rail
 * that falls short localized. */
void fabric_run_collectives(struct fabric_run *r)
{
    const struct fabric_run_opts *o = &r->o;
    struct fabric_port *ports;
    struct fabric_input in;
    size_t largest = 0;
    int nccl_all = 1, *first_short;
    char why[240] = "";

    if (!o->coll_mask)
        return;
    if (r->nfailed || r->nunreached) {
        snprintf(r->coll_why, sizeof(r->coll_why),
                 "not run: a rank was lost, and a collective needs every rank");
        topo_findings_unjudged(&r->coll_f, "collectives: %s", r->coll_why);
        return;
    }
    for (int k = 0; k < r->size && nccl_all; k++)
        if (r->info[k].gpu < 0) {
            nccl_all = 0;
            snprintf(why, sizeof(why), "%.63s rail %d: %.159s", r->info[k].host,
                     r->info[k].local_rank,
                     r->info[k].nccl_why[0] ? r->info[k].nccl_why : "no GPU");
        }
    if (!strcmp(o->coll_lib, "nccl") && !nccl_all) {
        snprintf(r->coll_why, sizeof(r->coll_why), "not run: --coll-lib nccl, but %s", why);
        topo_findings_unjudged(&r->coll_f, "collectives: %s", r->coll_why);
        return;
    }
    r->coll_nccl = strcmp(o->coll_lib, "mpi") && nccl_all;
    if (!r->coll_nccl && !strcmp(o->coll_lib, "auto"))
        snprintf(r->coll_why, sizeof(r->coll_why), "MPI on host memory, not NCCL: %s", why);

    fabric_run_input(r, &in, &ports);
    r->coll_bound = xcalloc((size_t)r->rails, sizeof(double));
    r->coll_slowest = xcalloc((size_t)r->rails, sizeof(double));
    for (int k = 0; k < r->rails; k++)
        r->coll_bound[k] = fabric_coll_bound(&in, k, NULL, &r->coll_slowest[k]);
    free((void *)in.failed_nodes);
    free(ports);

    for (int i = 0; i < o->ncoll_sizes; i++)
        if (o->coll_sizes[i] > largest)
            largest = o->coll_sizes[i];
    {
        int *all = xcalloc((size_t)r->nodes, sizeof(int));
        struct fabric_coll_entry *e = xcalloc((size_t)r->rails, sizeof(*e));
        for (int k = 0; k < r->nodes; k++)
            all[k] = k;
        for (int op = 0; op < FABRIC_COLL_N; op++) {
            if (!(o->coll_mask & (1u << op)))
                continue;
            for (int i = 0; i < o->ncoll_sizes; i++)
                for (int step = 0; step < 2; step++) {
                    int ng = step == 0 ? r->rails : 1;
                    if (!(o->coll_groups & (1 << step)))
                        continue;
                    if (step == 1 && r->rails == 1 && (o->coll_groups & 1))
                        continue; /* one rail: all the ranks are the rail's */
                    for (int k = 0; k < ng; k++)
                        e[k] = (struct fabric_coll_entry){ .op = (enum fabric_coll)op,
                                                           .purpose = FABRIC_CP_PHASE,
                                                           .size = o->coll_sizes[i],
                                                           .rail = step == 0 ? k : -1,
                                                           .nnodes = r->nodes,
                                                           .nodes = all,
                                                           .suspect = -1 };
                    if (isatty(STDERR_FILENO) && !o->json)
                        fprintf(stderr, "\rcollectives: %s %zu bytes %s ",
                                fabric_coll_name((enum fabric_coll)op), o->coll_sizes[i],
                                step ? "over all ranks" : "per rail");
                    if (r->coll_step(r, e, ng) < 0) {
                        free(e);
                        free(all);
                        topo_findings_unjudged(&r->coll_f, "collectives: stopped: a rank was lost");
                        return;
                    }
                }
        }
        free(e);
        free(all);
    }

    /* the verdicts, on the largest size. A rail short of its bound while another rail reached
     * more than the ratio over its own is localized (its first collective short); short on
     * every rail alike is the library's or the hosts' doing, not a port's. */
    first_short = xcalloc((size_t)r->rails, sizeof(int));
    for (int k = 0; k < r->rails; k++)
        first_short[k] = -1;
    for (size_t i = 0, n = r->ncoll; i < n; i++) {
        struct fabric_coll_entry *x = &r->coll[i];
        char e[200], ob[600], subject[32];
        double best = 0, q = fabric_run_coll_ratio(r);
        if (x->purpose != FABRIC_CP_PHASE || x->size != largest)
            continue;
        for (size_t j = 0; j < n; j++) { /* the best rail's share of its bound */
            const struct fabric_coll_entry *y = &r->coll[j];
            if (y->purpose == FABRIC_CP_PHASE && y->size == largest && y->op == x->op &&
                y->rail >= 0 && y->ok && y->bound > 0 && y->busbw / y->bound > best)
                best = y->busbw / y->bound;
        }
        if (x->rail >= 0)
            snprintf(subject, sizeof(subject), "rail%d", x->rail);
        else
            snprintf(subject, sizeof(subject), "all ranks");
        coll_expected(r, x, e, sizeof(e));
        coll_text(x, ob, sizeof(ob));
        if (x->rail < 0) { /* all ranks: reported; its bound depends on the algorithm */
            if (!x->ok)
                topo_findings_add(&r->coll_f, TOPO_SEV_WARN, "collective.busbw", subject, e, ob,
                                  "a collective that fails where the links pass: check the MPI or "
                                  "NCCL settings (interfaces, MTU)");
            continue;
        }
        if (!x->ok)
            topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", subject, e, ob,
                              "a collective that fails where the links pass: check the MPI or "
                              "NCCL settings of the rail (interfaces, MTU)");
        else if (x->verdict == FABRIC_COLL_OK)
            topo_findings_add(&r->coll_f, TOPO_SEV_OK, "collective.busbw", subject, e, ob, NULL);
        else if (x->verdict == FABRIC_COLL_NOBOUND)
            topo_findings_unjudged(&r->coll_f,
                                   "collective.busbw %s: %s; no link of it was "
                                   "measured, so there is no bound",
                                   subject, ob);
        else if (x->verdict == FABRIC_COLL_HOST)
            topo_findings_unjudged(&r->coll_f,
                                   "collective.busbw %s: %s; its hosts were short of "
                                   "CPU",
                                   subject, ob);
        else if (r->rails > 1 && x->busbw / x->bound >= q * best) {
            size_t at = strlen(ob);
            snprintf(ob + at, sizeof(ob) - at, "; no rail did better than %.0f%% of its bound",
                     100 * best);
            topo_findings_add(&r->coll_f, TOPO_SEV_WARN, "collective.busbw", subject, e, ob,
                              "a shortfall every rail shares: the collective library's "
                              "algorithm or settings, or the hosts");
        } else if (first_short[x->rail] < 0)
            first_short[x->rail] = (int)i;
        else
            topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", subject, e, ob,
                              "localized with the rail's first collective short");
    }
    for (int k = 0; k < r->rails; k++)
        if (first_short[k] >= 0 && r->nfailed == 0) {
            struct fabric_coll_entry x = r->coll[first_short[k]]; /* r->coll moves as it grows */
            x.nodes = xcalloc((size_t)r->nodes, sizeof(int));
            for (int j = 0; j < r->nodes; j++)
                x.nodes[j] = j;
            coll_localize(r, &x);
            free(x.nodes);
        }
    free(first_short);
    if (isatty(STDERR_FILENO) && !o->json)
        fputs("\r                                                        \r", stderr);
}
