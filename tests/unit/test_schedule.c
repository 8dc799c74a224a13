#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/schedule.h"
#include "tests/tap/tap.h"

/* every unordered pair of nodes appears in s exactly `times` times */
static int pairs_each(const struct fabric_schedule *s, int nodes, int times)
{
    int *seen = calloc((size_t)nodes * (size_t)nodes, sizeof(int)), ok = 1;

    for (size_t r = 0; r < s->n; r++)
        for (size_t i = 0; i < s->rounds[r].n; i++) {
            int a = s->rounds[r].pairs[i].a, b = s->rounds[r].pairs[i].b;
            seen[(a < b ? a : b) * nodes + (a < b ? b : a)]++;
        }
    for (int a = 0; a < nodes; a++)
        for (int b = a + 1; b < nodes; b++)
            ok &= seen[a * nodes + b] == times;
    free(seen);
    return ok;
}

/* a link's measurement with either end unreached over MPI or lost in an earlier round */
static void pair_measured(void)
{
    const unsigned char none_u[4] = { 0 }, unr[4] = { 0, 0, 1, 0 };
    const int none_l[4] = { 0 }, lost[4] = { 0, 1, 0, 0 };

    ok(fabric_pair_measured(NULL, NULL, 0, 3), "pair: nothing unreached or lost: measured");
    ok(fabric_pair_measured(none_u, none_l, 0, 3), "pair: ...arrays of none: measured");
    ok(!fabric_pair_measured(unr, NULL, 2, 3) && !fabric_pair_measured(unr, NULL, 3, 2),
       "pair: an end unreached, first or second: unmeasured");
    ok(!fabric_pair_measured(NULL, lost, 1, 3) && !fabric_pair_measured(none_u, lost, 3, 1),
       "pair: an end lost, first or second: unmeasured");
    ok(fabric_pair_measured(unr, lost, 0, 3), "pair: two other ranks unreached and lost: measured");
}

int main(void)
{
    pair_measured();
    struct fabric_schedule s;
    ry_error_t err;
    int all_ok = 1, rounds_ok = 1, valid_ok = 1;

    for (int n = 2; n <= 33; n++) {
        if (fabric_schedule_all_pairs(n, &s, &err) < 0) {
            all_ok = 0;
            continue;
        }
        valid_ok &= fabric_schedule_validate(&s, n, &err) == 0;
        all_ok &= pairs_each(&s, n, 1);
        rounds_ok &= (int)s.n == (n % 2 ? n : n - 1);
        fabric_schedule_free(&s);
    }
    ok(all_ok, "all-pairs: every pair exactly once, 2..33 nodes");
    ok(valid_ok, "all-pairs: no node twice in a round");
    ok(rounds_ok, "all-pairs: n-1 rounds (n even), n (odd)");

    valid_ok = 1;
    rounds_ok = 1;
    for (int n = 2; n <= 33; n++) {
        int covered = 1;
        if (fabric_schedule_neighbor(n, &s, &err) < 0) {
            valid_ok = 0;
            continue;
        }
        valid_ok &= fabric_schedule_validate(&s, n, &err) == 0;
        rounds_ok &= s.n <= 3 && (n % 2 || s.n <= 2);
        /* every node takes part in at least one pair, in two when n > 2 */
        for (int k = 0; k < n; k++) {
            int count = 0;
            for (size_t r = 0; r < s.n; r++)
                for (size_t i = 0; i < s.rounds[r].n; i++)
                    count += s.rounds[r].pairs[i].a == k || s.rounds[r].pairs[i].b == k;
            covered &= count == (n == 2 ? 1 : 2);
        }
        ok(covered, "neighbor %d nodes: every node meets %d partner%s", n, n == 2 ? 1 : 2,
           n == 2 ? "" : "s");
        fabric_schedule_free(&s);
    }
    ok(valid_ok, "neighbor: no node twice in a round, no pair twice");
    ok(rounds_ok, "neighbor: at most 2 rounds (3 with an odd node count)");

    for (int n = 3; n <= 12; n++)
        for (int k = 1; k < n; k++) {
            int r = fabric_schedule_ring(n, k, &s, &err);
            int v = r == 0 && fabric_schedule_validate(&s, n, &err) == 0 && s.n <= 3;
            if (!v)
                ok(0, "ring n=%d shift=%d valid in at most 3 rounds", n, k);
            if (r == 0)
                fabric_schedule_free(&s);
        }
    ok(fabric_schedule_ring(8, 1, &s, &err) == 0 && s.n == 2, "ring 8 nodes shift 1: 2 rounds");
    fabric_schedule_free(&s);
    ok(fabric_schedule_ring(7, 1, &s, &err) == 0 && s.n == 3, "ring 7 nodes shift 1: 3 rounds");
    fabric_schedule_free(&s);
    ok(fabric_schedule_ring(8, 4, &s, &err) == 0 && s.n == 1 && s.rounds[0].n == 4,
       "ring 8 nodes shift 4: 4 pairs in one round");
    fabric_schedule_free(&s);
    ok(fabric_schedule_ring(4, 0, &s, &err) < 0, "ring shift 0 refused");
    ok(fabric_schedule_all_pairs(1, &s, &err) < 0, "one node refused");

    {
        int suspects[] = { 2, 5, 6 }, good[8] = { 1, 1, 0, 0, 1, 0, 0, 0 };
        ok(fabric_schedule_bisect(8, suspects, 3, good, &s, &err) == 0, "bisect");
        ok(s.n == 1 && s.rounds[0].n == 3, "bisect: 3 suspects, 3 good nodes: one round");
        ok(fabric_schedule_validate(&s, 8, &err) == 0, "bisect: valid");
        fabric_schedule_free(&s);
        good[4] = 0;
        suspects[0] = 4;
        ok(fabric_schedule_bisect(8, suspects, 3, good, &s, &err) == 0 && s.n == 2,
           "bisect: 3 suspects, 2 good nodes: two rounds");
        fabric_schedule_free(&s);
        good[0] = good[1] = 0;
        ok(fabric_schedule_bisect(8, suspects, 3, good, &s, &err) < 0,
           "bisect without a good node refused");
    }
    {
        /* the best-proven nodes first: good 2 (every link fine) before 1, each in node order;
         * a node at 0 or below is no partner */
        int suspects[] = { 0, 5 }, good[8] = { 0, 1, -1, 2, 0, 0, 1, 2 };
        ok(fabric_schedule_bisect(8, suspects, 2, good, &s, &err) == 0 && s.n == 1 &&
               s.rounds[0].n == 2 && s.rounds[0].pairs[0].a == 3 && s.rounds[0].pairs[0].b == 0 &&
               s.rounds[0].pairs[1].a == 7 && s.rounds[0].pairs[1].b == 5,
           "bisect: the suspects against the nodes proven best (4 and 8, good 2), not 2 or 7");
        fabric_schedule_free(&s);
        good[7] = 0; /* one at 2, then the first at 1 */
        ok(fabric_schedule_bisect(8, suspects, 2, good, &s, &err) == 0 && s.n == 1 &&
               s.rounds[0].pairs[0].a == 3 && s.rounds[0].pairs[1].a == 1,
           "bisect: one node at 2 (4), then the first at 1 (2)");
        fabric_schedule_free(&s);
        good[3] = 0; /* only 1s: in node order */
        ok(fabric_schedule_bisect(8, suspects, 2, good, &s, &err) == 0 && s.n == 1 &&
               s.rounds[0].pairs[0].a == 1 && s.rounds[0].pairs[1].a == 6,
           "bisect: only nodes at 1: in node order (2, 7)");
        fabric_schedule_free(&s);
        good[1] = good[6] = 0; /* a negative good is none */
        ok(fabric_schedule_bisect(8, suspects, 2, good, &s, &err) < 0,
           "bisect: nodes at 0 and -1 only: refused");
    }
    {
        /* packing pairs: in their order, each round takes what fits; a pair may repeat */
        struct fabric_pair p[5] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 0, 1 }, { 3, 0 } };
        fabric_schedule_pack(4, p, 5, &s);
        ok(s.n == 3 && s.rounds[0].n == 2 && s.rounds[0].pairs[0].a == 0 &&
               s.rounds[0].pairs[1].a == 2 && s.rounds[1].n == 2 && s.rounds[1].pairs[0].a == 1 &&
               s.rounds[1].pairs[1].a == 3 && s.rounds[2].n == 1 && s.rounds[2].pairs[0].a == 0 &&
               s.rounds[2].pairs[0].b == 1,
           "pack: 5 pairs of 4 nodes in 3 rounds, (1,2)(3,4) then (2,3)(4,1) then (1,2) again");
        fabric_schedule_free(&s);
        fabric_schedule_pack(4, p, 0, &s);
        ok(s.n == 0 && s.rounds == NULL, "pack: no pairs, no rounds");
        fabric_schedule_free(&s);
    }

    {
        char path[] = "/tmp/railyard-pairs.XXXXXX",
             *names[] = { "node1", "node2", "node3", "node4" };
        int fd = mkstemp(path);
        FILE *f = fdopen(fd, "w");
        fputs("# custom pairs\nnode1 node2\nnode3 node4\nnode1 node3  # again node1\n1 3\n", f);
        fclose(f);
        ok(fabric_schedule_custom(path, 4, names, &s, &err) == 0, "custom pairs read");
        ok(s.n == 2 && s.rounds[0].n == 2 && s.rounds[1].n == 2,
           "custom: packed into 2 rounds of 2 pairs");
        ok(fabric_schedule_validate(&s, 4, &err) == 0, "custom: valid");
        fabric_schedule_free(&s);
        f = fopen(path, "w");
        fputs("node1 node2\nnode1 node9\n", f);
        fclose(f);
        ok(fabric_schedule_custom(path, 4, names, &s, &err) < 0 && strstr(err.text, ":2: "),
           "custom: an unknown node is an error naming the line");
        f = fopen(path, "w");
        fputs("node1\n", f);
        fclose(f);
        ok(fabric_schedule_custom(path, 4, names, &s, &err) < 0, "custom: one node on a line");
        f = fopen(path, "w");
        fputs("node1 node2\nnode2 node1\n", f);
        fclose(f);
        ok(fabric_schedule_custom(path, 4, names, &s, &err) < 0 && strstr(err.text, "twice"),
           "custom: a pair listed twice is an error");
        unlink(path);
    }
    return done_testing();
}
