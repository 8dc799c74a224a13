#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fabric/collective.h"
#include "tests/tap/tap.h"

static struct fabric_link mk(int rail, int a, int b, double bw)
{
    struct fabric_link l;

    memset(&l, 0, sizeof(l));
    l.rail = rail;
    l.a = a;
    l.b = b;
    l.ok = 1;
    l.bw_gbps = bw;
    return l;
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

int main(void)
{
    ry_error_t err;
    unsigned mask = 0;
    size_t sizes[8];
    int a[8], b[8], na, nb, set[7] = { 10, 11, 12, 13, 14, 15, 16 };

    /* the list of collectives */
    ok(fabric_coll_parse("allreduce,allgather,alltoall", &mask, &err) == 0 &&
           mask == ((1u << FABRIC_COLL_ALLREDUCE) | (1u << FABRIC_COLL_ALLGATHER) |
                    (1u << FABRIC_COLL_ALLTOALL)),
       "allreduce,allgather,alltoall: three bits");
    ok(fabric_coll_parse("all", &mask, &err) == 0 && mask == (1u << FABRIC_COLL_N) - 1,
       "all: every collective");
    ok(fabric_coll_parse("reducescatter", &mask, &err) == 0 &&
           mask == 1u << FABRIC_COLL_REDUCESCATTER,
       "reducescatter alone");
    ok(fabric_coll_parse("allreduce,bcast", &mask, &err) < 0 && strstr(err.text, "'bcast'"),
       "an unknown collective is named: %s", err.text);
    ok(fabric_coll_parse("allreduce,", &mask, &err) < 0 && strstr(err.text, "comma"),
       "a trailing comma is refused");
    ok(fabric_coll_parse("", &mask, &err) < 0, "an empty list is refused");
    ok(fabric_coll_parse("allreducex", &mask, &err) < 0, "a prefix does not match a longer word");

    /* sizes */
    ok(fabric_coll_parse_sizes("8M,64M,1K,2G", sizes, 8, &err) == 4 && sizes[0] == 8u << 20 &&
           sizes[1] == 64u << 20 && sizes[2] == 1024 && sizes[3] == 2ull << 30,
       "sizes with K, M, G suffixes");
    ok(fabric_coll_parse_sizes("4096", sizes, 8, &err) == 1 && sizes[0] == 4096, "bytes alone");
    ok(fabric_coll_parse_sizes("512", sizes, 8, &err) < 0 && strstr(err.text, "'512'"),
       "below 1K refused: %s", err.text);
    ok(fabric_coll_parse_sizes("17G", sizes, 8, &err) < 0, "above 16G refused");
    ok(fabric_coll_parse_sizes("1.5K", sizes, 8, &err) == 1 && sizes[0] == 1536,
       "a fraction that makes whole bytes");
    ok(fabric_coll_parse_sizes("1000.5", sizes, 8, &err) < 0, "a fraction of a byte refused");
    ok(fabric_coll_parse_sizes("4M,x", sizes, 8, &err) < 0 && strstr(err.text, "'x'"),
       "a word is refused");
    ok(fabric_coll_parse_sizes("1M,2M,3M", sizes, 2, &err) < 0 && strstr(err.text, "at most 2"),
       "more sizes than room refused");
    ok(fabric_coll_parse_sizes("1M,", sizes, 8, &err) < 0, "a trailing comma is refused");

    /* nccl-tests' bus bandwidth factors and element counts */
    ok(near(fabric_coll_bus_factor(FABRIC_COLL_ALLREDUCE, 8), 2.0 * 7 / 8), "allreduce 2(n-1)/n");
    ok(near(fabric_coll_bus_factor(FABRIC_COLL_ALLGATHER, 8), 7.0 / 8), "allgather (n-1)/n");
    ok(near(fabric_coll_bus_factor(FABRIC_COLL_REDUCESCATTER, 4), 3.0 / 4),
       "reducescatter (n-1)/n");
    ok(near(fabric_coll_bus_factor(FABRIC_COLL_ALLTOALL, 2), 0.5), "alltoall (n-1)/n");
    ok(near(fabric_coll_bus_factor(FABRIC_COLL_ALLREDUCE, 2), 1.0), "allreduce of 2 ranks: 1");
    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLREDUCE, 1u << 20, 4), 1 << 18,
           "allreduce: size/4 floats");
    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLGATHER, 1u << 20, 4), 1 << 16,
           "allgather: size/4/n floats per rank");
    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLTOALL, 1u << 20, 4), 1 << 16,
           "alltoall: size/4/n floats per peer");
    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLGATHER, 12, 4), 0,
           "too small for the ranks: 0");

    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLREDUCE, 16, 4), 4,
           "16 bytes over 4 ranks (4 bytes a rank, the least): 4 floats");
    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLREDUCE, 15, 4), 0,
           "15 bytes over 4 ranks: under a float a rank, 0");
    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLREDUCE, 4, 1), 1, "one rank, 4 bytes: 1");
    is_int((long long)fabric_coll_count(FABRIC_COLL_ALLREDUCE, 1024, 0), 0, "no rank: 0");
    ok(fabric_coll_bus_factor(FABRIC_COLL_ALLREDUCE, 0) == 0, "bus factor of no rank: 0");
    ok(near(fabric_coll_bus_factor(FABRIC_COLL_ALLGATHER, 1), 0), "...of one rank: 0");
    ok(near(fabric_coll_bus_factor(FABRIC_COLL_ALLREDUCE, 4), 1.5), "...all-reduce, 4: 1.5");
    is_str(fabric_coll_name(FABRIC_COLL_N), "?", "a name past the list: ?");

    /* the edges of the lists */
    ok(fabric_coll_parse_sizes("", sizes, 8, &err) < 0 && strstr(err.text, "takes sizes"),
       "an empty size list is refused");
    ok(fabric_coll_parse_sizes(NULL, sizes, 8, &err) < 0, "...and none at all");
    ok(fabric_coll_parse_sizes("1K,,2K", sizes, 8, &err) < 0 && strstr(err.text, "cannot be ''"),
       "an empty size between commas: %s", err.text);
    {
        char w[40];
        memset(w, '9', sizeof(w));
        w[31] = '\0'; /* 31 digits: read as a number, and too big */
        ok(fabric_coll_parse_sizes(w, sizes, 8, &err) < 0 && strstr(err.text, "is not a size"),
           "a 31-character size is read and refused as a size: %s", err.text);
        w[31] = '9';
        w[32] = '\0'; /* 32: past the word kept */
        ok(fabric_coll_parse_sizes(w, sizes, 8, &err) < 0 && strstr(err.text, "cannot be") &&
               strstr(err.text, "'9999999999999999999999999999999'") &&
               !strstr(err.text, "'99999999999999999999999999999999'"),
           "a 32-character size is refused, quoted to its first 31: %s", err.text);
    }
    ok(fabric_coll_parse_sizes("16G", sizes, 8, &err) == 1 && sizes[0] == (size_t)16 << 30,
       "16G, the most, is taken");
    ok(fabric_coll_parse_sizes("17179869185", sizes, 8, &err) < 0, "16G and a byte is refused");
    ok(fabric_coll_parse_sizes("1024", sizes, 8, &err) == 1, "1K, the least, is taken");
    ok(fabric_coll_parse_sizes("1023", sizes, 8, &err) < 0, "1023 bytes are refused");
    {
        const char *w41 = "abcdefghijabcdefghijabcdefghijabcdefghijX"; /* 41 characters */
        ok(fabric_coll_parse(w41, &mask, &err) < 0 &&
               strstr(err.text, "'abcdefghijabcdefghijabcdefghijabcdefghij'"),
           "an unknown word is quoted to its first 40 characters: %s", err.text);
    }

    /* the bound: the median of the ports' best links, not the slowest */
    {
        struct fabric_link l[] = {
            mk(0, 0, 1, 100), mk(0, 2, 3, 25), mk(0, 1, 2, 99), mk(0, 3, 0, 24),
            mk(1, 0, 1, 50),  mk(1, 2, 3, 50), mk(1, 1, 2, 50), mk(1, 3, 0, 50),
        };
        struct fabric_input in;
        double slowest = 0;
        unsigned char only[4] = { 1, 1, 0, 0 };
        memset(&in, 0, sizeof(in));
        in.nodes = 4;
        in.rails = 2;
        in.links = l;
        in.nlinks = sizeof(l) / sizeof(l[0]);
        /* node 3's port is slow: best 100 (0), 100 (1), 99 (2), 25 (3) -> median 99.5 */
        ok(near(fabric_coll_bound(&in, 0, NULL, &slowest), 99.5),
           "a degraded port does not lower the rail's bound (%g)",
           fabric_coll_bound(&in, 0, NULL, NULL));
        ok(near(slowest, 24), "the slowest link is kept beside it");
        ok(near(fabric_coll_bound(&in, 1, NULL, NULL), 50), "the other rail: its own links");
        ok(near(fabric_coll_bound(&in, 0, only, NULL), 100), "a node subset: its links only");
        l[0].ok = 0;
        l[2].ok = 0;
        ok(near(fabric_coll_bound(&in, 0, NULL, NULL), 25),
           "failed links are no bound (only the slow ones left)");
        ok(fabric_coll_bound(&in, 2, NULL, &slowest) < 0 && slowest < 0,
           "a rail without a link has no bound");
    }
    {
        /* links under 1 Gb/s count (a shaped demo rail); a link of a node past the input's
         * (or before it) and a link without a figure do not */
        struct fabric_link l[] = {
            mk(0, 0, 1, 0.5),  mk(0, 1, 2, 0.7),  mk(0, 2, 0, 0.6), mk(0, 3, 0, 0.1),
            mk(0, 0, -1, 0.2), mk(0, -1, 1, 0.2), mk(0, 1, 2, 0),   mk(0, 2, 3, 0.05),
        };
        struct fabric_input in;
        double slowest = 0;
        memset(&in, 0, sizeof(in));
        in.nodes = 3;
        in.rails = 1;
        in.links = l;
        in.nlinks = sizeof(l) / sizeof(l[0]);
        /* best: node 0 0.6, node 1 0.7, node 2 0.7 -> median 0.7; slowest 0.5 */
        ok(near(fabric_coll_bound(&in, 0, NULL, &slowest), 0.7) && near(slowest, 0.5),
           "links under 1 Gb/s: bound 0.7, slowest 0.5, links to nodes 3 and -1 left out "
           "(%g, %g)",
           fabric_coll_bound(&in, 0, NULL, NULL), slowest);
    }

    /* the verdict */
    is_int(fabric_coll_judge(80, 100, 0.7, 1), FABRIC_COLL_OK, "80%% of the bound: ok");
    is_int(fabric_coll_judge(70, 100, 0.7, 1), FABRIC_COLL_OK, "at the ratio: ok");
    is_int(fabric_coll_judge(69, 100, 0.7, 1), FABRIC_COLL_SHORT, "below it: short");
    is_int(fabric_coll_judge(69, 100, -1, 1), FABRIC_COLL_SHORT, "the default ratio is 0.7");
    is_int(fabric_coll_judge(71, 100, -1, 1), FABRIC_COLL_OK, "71%% with the default: ok");
    is_int(fabric_coll_judge(1, 100, 0, 1), FABRIC_COLL_OK, "ratio 0: no limit");
    is_int(fabric_coll_judge(5, 0, 0.7, 1), FABRIC_COLL_NOBOUND, "a bound of 0: no bound");
    is_int(fabric_coll_judge(0.4, 0.5, 0.7, 1), FABRIC_COLL_OK,
           "a bound under 1 Gb/s (a shaped rail) is a bound: 0.4 of 0.5 passes");
    is_int(fabric_coll_judge(0.3, 0.5, 0.7, 1), FABRIC_COLL_SHORT, "...0.3 of it falls short");
    is_int(fabric_coll_judge(10, 100, 0.7, 0), FABRIC_COLL_HOST,
           "a CPU-bound end (host share 0): any shortfall is host-limited");
    is_int(
        fabric_coll_judge(37.5, 100, 0.75, 0.5), FABRIC_COLL_HOST,
        "short by exactly what hosts at half their CPU explain (0.75 x 100 x 0.5): host-limited");
    is_int(fabric_coll_judge(37.49, 100, 0.75, 0.5), FABRIC_COLL_SHORT,
           "...and a little more: short");
    is_int(fabric_coll_judge(50, 100, 0.7, 0.6), FABRIC_COLL_HOST,
           "short no more than starved hosts explain: host-limited");
    is_int(fabric_coll_judge(30, 100, 0.7, 0.6), FABRIC_COLL_SHORT,
           "short beyond what the hosts explain: short");
    is_int(fabric_coll_judge(50, -1, 0.7, 1), FABRIC_COLL_NOBOUND, "no bound: cannot judge");
    is_str(fabric_coll_verdict_name(FABRIC_COLL_HOST), "host-limited", "verdict names");

    /* halves */
    fabric_coll_halve(set, 7, a, &na, b, &nb);
    ok(na == 3 && nb == 4 && a[0] == 10 && a[2] == 12 && b[0] == 13 && b[3] == 16,
       "7 nodes: 3 and 4, in order");
    fabric_coll_halve(set, 2, a, &na, b, &nb);
    ok(na == 1 && nb == 1 && a[0] == 10 && b[0] == 11, "2 nodes: one each");
    is_str(fabric_coll_name(FABRIC_COLL_ALLTOALL), "alltoall", "names");

    /* a localizing step: halves weighed against each other (q 0.75, exact in binary) */
    is_int(fabric_coll_halves(74, 100, 50, 0.75), FABRIC_COLL_STEP_A_SLOW,
           "halves 74 and 100: the first below 0.75 of the second is searched further");
    is_int(fabric_coll_halves(100, 74.99, 50, 0.75), FABRIC_COLL_STEP_B_SLOW,
           "halves 100 and 74.99: the second, just below 0.75 of the first");
    is_int(fabric_coll_halves(75, 100, 56, 0.75), FABRIC_COLL_STEP_BETWEEN,
           "halves 75 and 100 (exactly 0.75): neither slow; each faster than the whole 56 by "
           "1/0.75: between them");
    is_int(fabric_coll_halves(75, 100, 56.25, 0.75), FABRIC_COLL_STEP_ALIKE,
           "...the whole at 56.25 (0.75 x the slower half, not below it): alike");
    is_int(fabric_coll_halves(80, 100, 65, 0.75), FABRIC_COLL_STEP_ALIKE,
           "halves 80 and 100, the whole 65: the slower half (60) decides, not the faster (75)");
    is_int(fabric_coll_halves(80, 100, 59, 0.75), FABRIC_COLL_STEP_BETWEEN,
           "...the whole 59: between them");
    is_int(fabric_coll_halves(0, 100, 50, 0.75), FABRIC_COLL_STEP_A_SLOW,
           "a half that failed (0) is the slow one");
    is_int(fabric_coll_halves(100, 0, 50, 0.75), FABRIC_COLL_STEP_B_SLOW, "...either half");
    is_int(fabric_coll_halves(0, 0, 10, 0.75), FABRIC_COLL_STEP_ALIKE,
           "both halves failed: neither is singled out");

    /* who stands beside whom in the last step: each suspect beside the next good node not yet
     * used, the lower index first; then two more good nodes as the control pair */
    {
        int pairs[4][2], sus[4], control, np;
        unsigned char good8[8] = { 0, 1, 0, 0, 1, 1, 0, 1 };
        int s2[2] = { 2, 3 }, s1[1] = { 6 }, s3[3] = { 0, 1, 2 };
        np = fabric_coll_pair_plan(s2, 2, good8, 8, pairs, sus, &control);
        ok(np == 3 && pairs[0][0] == 1 && pairs[0][1] == 2 && sus[0] == 2 && pairs[1][0] == 3 &&
               pairs[1][1] == 4 && sus[1] == 3 && pairs[2][0] == 5 && pairs[2][1] == 7 &&
               sus[2] == -1 && control == 2,
           "suspects 2 and 3 beside good 1 and 4 (each good node used once), control 5 and 7");
        unsigned char good_low[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
        np = fabric_coll_pair_plan(s1, 1, good_low, 8, pairs, sus, &control);
        ok(np == 1 && pairs[0][0] == 0 && pairs[0][1] == 6 && sus[0] == 6 && control == -1,
           "a suspect above its good partner: the lower index first; one good node: no control");
        unsigned char good_two[8] = { 0, 1, 0, 0, 1, 0, 0, 0 };
        np = fabric_coll_pair_plan(s2, 2, good_two, 8, pairs, sus, &control);
        ok(np == 2 && control == -1 && pairs[1][0] == 3 && pairs[1][1] == 4,
           "good nodes enough for the suspects, none left for a control: two pairs, no control");
        unsigned char good_one[8] = { 0, 1, 0, 0, 0, 0, 0, 0 };
        is_int(fabric_coll_pair_plan(s2, 2, good_one, 8, pairs, sus, &control), -1,
               "two suspects, one good node: not localized further (-1)");
        unsigned char good_none[8] = { 0 };
        is_int(fabric_coll_pair_plan(s1, 1, good_none, 8, pairs, sus, &control), -1,
               "no good node: -1");
        unsigned char good_last[8] = { 0, 0, 0, 0, 0, 0, 0, 1 };
        np = fabric_coll_pair_plan(s1, 1, good_last, 8, pairs, sus, &control);
        ok(np == 1 && pairs[0][0] == 6 && pairs[0][1] == 7 && control == -1,
           "the last node as the only good one is found");
        unsigned char good_hi[8] = { 0, 0, 0, 1, 1, 1, 1, 1 };
        np = fabric_coll_pair_plan(s3, 3, good_hi, 8, pairs, sus, &control);
        ok(np == 4 && pairs[0][1] == 3 && pairs[1][1] == 4 && pairs[2][1] == 5 && sus[2] == 2 &&
               pairs[3][0] == 6 && pairs[3][1] == 7 && control == 3,
           "three suspects beside 3, 4 and 5; 6 and 7 the control");
        unsigned char good_ctl1[8] = { 0, 0, 0, 1, 1, 1, 1, 0 };
        np = fabric_coll_pair_plan(s3, 3, good_ctl1, 8, pairs, sus, &control);
        ok(np == 3 && control == -1, "three suspects, four good nodes: one left, no control");
    }
    /* the last step: suspects beside good nodes, two good nodes as the yardstick */
    {
        double bw[4] = { 40, 100, 67.49, 90 };
        unsigned char slow[4];
        ok(near(fabric_coll_pairs(bw, 4, 3, 0.75, slow), 90) && slow[0] && !slow[1] && slow[2] &&
               !slow[3],
           "yardstick the control pair's 90 (0.75 of it: 67.5): 40 and 67.49 slow, 100 not");
    }
    {
        double bw[3] = { 72, 100, 95 };
        unsigned char slow[3];
        ok(near(fabric_coll_pairs(bw, 3, 2, 0.75, slow), 95) && !slow[0] && !slow[1] && !slow[2],
           "the control's 95, not the fastest pair's 100: 72 is over 0.75 x 95 (71.25)");
        bw[0] = 71.24;
        fabric_coll_pairs(bw, 3, 2, 0.75, slow);
        ok(slow[0] && !slow[1] && !slow[2], "...71.24 is under it");
        bw[0] = 71.25;
        fabric_coll_pairs(bw, 3, 2, 0.75, slow);
        ok(!slow[0], "...71.25, exactly 0.75 of it, is not");
    }
    {
        /* no control: the figure before the array is never read (a larger one sits there) */
        double store[3] = { 1000, 40, 100 }, *bw = store + 1;
        unsigned char slow[2];
        ok(near(fabric_coll_pairs(bw, 2, -1, 0.75, slow), 100) && slow[0] && !slow[1],
           "no control pair (-1): the fastest pair's 100, nothing before the pairs read");
    }
    {
        double bw[3] = { 90, 70, 100 };
        unsigned char slow[3];
        ok(near(fabric_coll_pairs(bw, 3, 0, 0.75, slow), 90) && !slow[0] && !slow[1] && !slow[2],
           "the control pair first: its 90 is the yardstick (70 is over 67.5), not the fastest's");
    }
    {
        /* a shaped demo rail: every figure under 1 Gb/s */
        double bw[3] = { 0.9, 0.7, 1.0 };
        unsigned char slow[3];
        ok(near(fabric_coll_pairs(bw, 3, 0, 0.75, slow), 0.9) && !slow[1] && !slow[2],
           "figures under 1 Gb/s: the control's 0.9, 0.7 over 0.675 of it");
        bw[1] = 0.67;
        fabric_coll_pairs(bw, 3, 0, 0.75, slow);
        ok(slow[1] && !slow[2], "...0.67 under it");
    }
    {
        double bw[4] = { 40, 100, 0, 0 };
        unsigned char slow[4];
        ok(near(fabric_coll_pairs(bw, 4, 3, 0.75, slow), 100) && slow[0] && !slow[1] && slow[2] &&
               !slow[3],
           "the control pair failed: the fastest pair's 100; a suspect's pair that failed is slow, "
           "the control is never named");
        ok(near(fabric_coll_pairs(bw, 2, -1, 0.75, slow), 100) && slow[0] && !slow[1],
           "no control: the fastest pair's figure");
        bw[0] = bw[1] = 0;
        ok(fabric_coll_pairs(bw, 2, -1, 0.75, slow) == 0 && slow[0] && slow[1],
           "no pair gave a figure: yardstick 0, every suspect slow");
    }
    return done_testing();
}
