#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "common/xmalloc.h"
#include "fabric/run.h"

/* Rank 0 and the ranks (fabric/run.h): every message has a deadline, so a rank that dies or
 * hangs is named and the others finish. Rank 0 sends each rank its part of a round (a go
 * message) and collects a result from each; the end is a go message with the verdict. */

/* Wait for a non-blocking MPI request until the deadline, sleeping between tests so that
 * waiting ranks do not steal the cores the measurement needs. 1 done, 0 timed out. */
int fabric_run_poll_until(void *request, double deadline)
{
    MPI_Request *req = request;
    struct timespec nap = { 0, 1000000 };
    int done = 0;

    while (!done) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        if (fabric_now() > deadline)
            return 0;
        nanosleep(&nap, NULL);
    }
    return 1;
}

/* The same where the request is every rank's own business: under SMPI simulated ranks cannot
 * hang, and a poll costs simulated time (and real time, times thousands of ranks): the wait
 * blocks, and a deadline passed is found once it returns. SMPI keeps each request that a test
 * found done in the rank's list of requests under way, which it walks whole at the end of each
 * of the rank's messages (a round's results, 8191 at 1024 x 8, polled were each walked at every
 * later message: a third of the CPU of a simulation); a request waited for leaves it. */
int fabric_run_wait_until(void *request, double deadline)
{
#ifdef RAILYARD_SMPI
    MPI_Wait((MPI_Request *)request, MPI_STATUS_IGNORE);
    return fabric_now() <= deadline;
#else
    return fabric_run_poll_until(request, deadline);
#endif
}

#ifdef RAILYARD_SMPI
/* Under SimGrid's SMPI a rank's requests under way are a list that SMPI walks whole at the end of
 * each of the rank's messages: rank 0 with a go message and a result under way per rank (16,382
 * at 1024 x 8) walked them at each of the 16,382 ends of every round, half of the CPU of a
 * simulation. Rank 0 keeps at most SMPI_WINDOW of each under way instead: the go messages in
 * windows, each waited for whole; the results (and the start-up messages) into a sliding window
 * of receives from any rank (fabric_run_smpi_gather). Simulated ranks cannot hang
 * (fabric_run_wait_until), so neither waits with a deadline: a result that comes after its
 * deadline is late, and its rank lost, as a polled one would be. */
#define SMPI_WINDOW 256

static void smpi_send_go(struct fabric_run *r)
{
    MPI_Request reqs[SMPI_WINDOW];

    for (int k = 1; k < r->size;) {
        int n = 0;
        for (; k < r->size && n < SMPI_WINDOW; k++)
            if (!r->rank_lost[k])
                MPI_Isend(&r->gos[k], (int)sizeof(r->gos[k]), MPI_BYTE, k, FABRIC_TAG_GO,
                          MPI_COMM_WORLD, &reqs[n++]);
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    }
}

/* rank 0, simulated: from each rank k (1..size-1) not lost (lost: NULL, or lost[k] == 0), one
 * message of `size` bytes tagged `tag` into base + k * size; got[k]: it came by the deadline. A
 * sliding window of receives from any rank: SMPI_WINDOW under way at most. A message of a rank
 * lost before (its result of an earlier round, late) is read and let go. */
void fabric_run_smpi_gather(struct fabric_run *r, int tag, void *base, size_t size, const int *lost,
                            int *got, double deadline)
{
    MPI_Request reqs[SMPI_WINDOW];
    unsigned char *in = xcalloc(SMPI_WINDOW, size);
    int want = 0, stale = 0, posted = 0, have = 0;

    for (int k = 1; k < r->size; k++)
        want += !lost || !lost[k];
    for (int i = 0; i < SMPI_WINDOW; i++)
        reqs[i] = MPI_REQUEST_NULL;
    for (; posted < want && posted < SMPI_WINDOW; posted++)
        MPI_Irecv(in + (size_t)posted * size, (int)size, MPI_BYTE, MPI_ANY_SOURCE, tag,
                  MPI_COMM_WORLD, &reqs[posted]);
    while (have < want) {
        MPI_Status st;
        int i, k;
        MPI_Waitany(SMPI_WINDOW, reqs, &i, &st);
        k = st.MPI_SOURCE;
        if (k > 0 && k < r->size && (!lost || !lost[k]) && !got[k]) {
            have++;
            memcpy((unsigned char *)base + (size_t)k * size, in + (size_t)i * size, size);
            got[k] = fabric_now() <= deadline;
        } else
            stale++;
        if (posted < want + stale) {
            MPI_Irecv(in + (size_t)i * size, (int)size, MPI_BYTE, MPI_ANY_SOURCE, tag,
                      MPI_COMM_WORLD, &reqs[i]);
            posted++;
        }
    }
    free(in);
}
#endif

/* rank 0: each live rank's part of the round (or the end) from r->gos; a rank has taken its
 * last message before rank 0 writes the next (it sends its result first). The sends of a round
 * are kept until its results are in (go_done); the last ones are waited for here. */
void fabric_run_send_go(struct fabric_run *r, int last)
{
    MPI_Request *reqs;

#ifdef RAILYARD_SMPI
    /* simulated ranks take their word in windows, each waited for (SMPI_WINDOW) */
    (void)last;
    smpi_send_go(r);
    return;
#endif
    if (!r->go_reqs)
        r->go_reqs = xcalloc((size_t)r->size, sizeof(MPI_Request));
    reqs = r->go_reqs;
    for (int k = 1; k < r->size; k++) {
        reqs[k] = MPI_REQUEST_NULL;
        if (!r->rank_lost[k])
            MPI_Isend(&r->gos[k], (int)sizeof(r->gos[k]), MPI_BYTE, k, FABRIC_TAG_GO,
                      MPI_COMM_WORLD, &reqs[k]);
    }
    /* the last word is taken before rank 0 leaves (a simulated rank's sends end with it) */
    for (int k = 1; last && k < r->size; k++)
        if (!r->rank_lost[k] && !fabric_run_wait_until(&reqs[k], fabric_now() + 10))
            MPI_Cancel(&reqs[k]);
}

/* rank 0, a round's results in: the round's go messages completed. A rank that answered took
 * its go first: its send is waited for (done already); another's is let go (MPI_Request_free).
 * (Simulated, rank 0 waits for its go messages as it sends them: SMPI_WINDOW.) */
static void go_done(struct fabric_run *r)
{
    MPI_Request *reqs = r->go_reqs;

    for (int k = 1; reqs && k < r->size; k++) {
        if (reqs[k] == MPI_REQUEST_NULL)
            continue;
        if (r->got[k])
            MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
        else
            MPI_Request_free(&reqs[k]);
    }
}

/* wait for rank 0's word: the next round, or the end with the verdict */
static int wait_go(struct fabric_run *r, struct fabric_go *go)
{
    MPI_Request req;
    double deadline;

    MPI_Irecv(go, (int)sizeof(*go), MPI_BYTE, 0, FABRIC_TAG_GO, MPI_COMM_WORLD, &req);
    /* a round, rank 0's collection, the analysis and the output fit in this deadline, read
     * after the receive is posted (read before it, the SMPI build lost the rounds of every
     * rail but rail 0: t3002) */
    deadline =
        fabric_now() + (r->o.round_timeout + (r->o.coll_mask ? r->o.coll_duration : 0)) * 2 + 30;
    /* before rank 0's first word: a start-up message that left but never came (a send can
     * complete here and be lost on the way) is found through the side channel */
    while (r->side.open && !r->heard &&
           !fabric_run_poll_until(&req, fmin(deadline, fabric_now() + FABRIC_REACH_GRACE + 5)))
        if (fabric_now() > deadline || fabric_run_dropped_me(r)) {
            r->unheard = fabric_now() <= deadline;
            break;
        }
    if (r->unheard) {
        MPI_Cancel(&req);
        return -1;
    }
    r->heard = 1;
    if (!fabric_run_wait_until(&req, deadline)) {
        fabric_run_log(r, "no word from rank 0 in time: stopping");
        r->stopped = 1;
        MPI_Cancel(&req);
        return -1;
    }
    return 0;
}

/* Rank 0: the results of a round from every rank, with a deadline; a rank that misses it is
 * lost (and its node named). */
void fabric_run_collect(struct fabric_run *r, const char *what, double timeout,
                        const struct fabric_result *mine)
{
    MPI_Request *reqs = xcalloc((size_t)r->size, sizeof(*reqs));
    double deadline = fabric_now() + timeout + 5;

    r->res[0] = *mine;
    memset(r->got, 0, (size_t)r->size * sizeof(*r->got));
    r->got[0] = 1;
#ifdef RAILYARD_SMPI
    fabric_run_smpi_gather(r, FABRIC_TAG_RESULT, r->res, sizeof(*r->res), r->rank_lost, r->got,
                           deadline);
#else
    for (int k = 1; k < r->size; k++)
        if (!r->rank_lost[k])
            MPI_Irecv(&r->res[k], (int)sizeof(r->res[k]), MPI_BYTE, k, FABRIC_TAG_RESULT,
                      MPI_COMM_WORLD, &reqs[k]);
#endif
    for (int k = 1; k < r->size; k++) {
        int n;
        if (r->rank_lost[k])
            continue;
#ifdef RAILYARD_SMPI
        if (r->got[k])
            continue;
#else
        if (fabric_run_wait_until(&reqs[k], deadline)) {
            r->got[k] = 1;
            continue;
        }
#endif
        r->rank_lost[k] = 1;
        for (n = 0; n < r->nodes; n++)
            if (!strcmp(r->names[n], r->info[k].host))
                break;
        fabric_run_log(r, "rank %d (%s, rail %d) sent no result for %s in time: lost", k,
                       r->info[k].host, r->info[k].local_rank, what);
        r->failed = xrealloc(r->failed, (r->nfailed + 1) * sizeof(*r->failed));
        r->failed[r->nfailed++] = n;
    }
    free(reqs);
    go_done(r);
}

static void collect_round(struct fabric_run *r, size_t round, const struct fabric_result *mine)
{
    char what[48];

    snprintf(what, sizeof(what), "round %zu", round + 1);
    fabric_run_collect(r, what, r->o.round_timeout, mine);
    fabric_run_add_links(r, (int)round, r->res, r->got);
    r->rounds_done = round + 1;
    if (r->checkpoint)
        r->checkpoint(r, r->checkpoint_arg);
}

/* Rank 0: run the rounds from `from` to the end of the schedule: each rank is told its part,
 * every rank tests and reports, rank 0 collects. */
void fabric_run_rounds(struct fabric_run *r, size_t from)
{
    for (size_t round = from; round < r->sched.n; round++) {
        struct fabric_result mine;
        for (int k = 0; k < r->size; k++)
            fabric_run_task_of(r, round, k, &r->gos[k]);
        fabric_run_send_go(r, 0);
        if (isatty(STDERR_FILENO) && !r->o.json) {
            double per = round ? (fabric_now() - r->started) / (double)round : r->o.round_timeout;
            fprintf(stderr, "\rround %zu/%zu, ETA %.0f s ", round + 1, r->sched.n,
                    per * (double)(r->sched.n - round));
        }
        fabric_run_round(r, &r->gos[0], &mine);
        collect_round(r, round, &mine);
    }
}

/* Every other rank: its part of each round as rank 0 says, until rank 0 says the end; the
 * verdict, | 0x100 where the rank leaves without MPI_Finalize (a rank is lost, or rank 0). */
int fabric_run_work(struct fabric_run *r)
{
    for (;;) {
        struct fabric_go g;
        struct fabric_result mine;
        MPI_Request sreq;
        if (!r->unheard && wait_go(r, &g) < 0 && !r->unheard)
            return 2 | 0x100;
        if (r->unheard) {
            /* rank 0 runs on without this rank and says the end through the side channel */
            int32_t code;
            if (fabric_side_get(&r->side, 0, FABRIC_SIDE_END, &code, sizeof(code),
                                fabric_now() + 86400) < 0)
                return 2 | 0x100;
            fabric_side_put(&r->side, FABRIC_SIDE_BYE, &code, sizeof(code));
            return code | 0x100;
        }
        if (g.round < 0)
            return g.verdict;
        if (g.coll_step)
            fabric_run_coll(r, &g, &mine);
        else
            fabric_run_round(r, &g, &mine);
        MPI_Isend(&mine, (int)sizeof(mine), MPI_BYTE, 0, FABRIC_TAG_RESULT, MPI_COMM_WORLD, &sreq);
        if (!fabric_run_wait_until(
                &sreq, fabric_now() + (g.coll_step ? g.coll_timeout : r->o.round_timeout))) {
            fabric_run_log(r, "rank 0 did not take the results in time: stopping");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

/* Leave before the rounds (bad options or map: every rank found the same). */
int fabric_run_leave(struct fabric_run *r, int exit_code)
{
    if (r->ts)
        r->t->teardown(r->ts);
    fabric_side_close(&r->side);
    MPI_Finalize();
    return exit_code;
}

/* Rank 0 tells every rank the verdict (code, | 0x100: leave without MPI_Finalize, which would
 * wait for a lost rank forever); every rank leaves with it. */
int fabric_run_finish(struct fabric_run *r, int code)
{
    if (r->rank == 0) {
        /* a run that stops before its layout: every rank told all the same */
        if (!r->gos)
            r->gos = xcalloc((size_t)r->size, sizeof(*r->gos));
        if (!r->rank_lost)
            r->rank_lost = fabric_run_lost_at_start(r);
        if (r->nfailed || r->nunreached)
            code |= 0x100;
        /* the ranks MPI cannot reach take the verdict from the side channel; rank 0 stays
         * until each has said it did (or 20 s): what it published goes when it leaves */
        if (r->nunreached && fabric_side_put(&r->side, FABRIC_SIDE_END, &code, sizeof(code)) == 0) {
            double by = fabric_now() + 20;
            for (int k = 1; k < r->size; k++) {
                int32_t bye;
                if (r->unreached[k])
                    fabric_side_get(&r->side, k, FABRIC_SIDE_BYE, &bye, sizeof(bye), by);
            }
        }
        for (int k = 0; k < r->size; k++) {
            memset(&r->gos[k], 0, sizeof(r->gos[k]));
            r->gos[k].round = -1;
            r->gos[k].verdict = code;
        }
        fabric_run_send_go(r, 1);
        free(r->go_reqs);
        r->go_reqs = NULL;
    }
    if (code & 0x100) {
        fflush(NULL);
        _exit(code & 0xff);
    }
    if (r->ts)
        r->t->teardown(r->ts);
    topo_map_destroy(r->map);
    fabric_side_close(&r->side);
    MPI_Finalize();
    return code & 0xff;
}
