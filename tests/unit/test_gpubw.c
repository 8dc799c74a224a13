#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "readers/gpubw.h"
#include "tests/tap/tap.h"
#include "topo/compare.h"
#include "topo/gpubw.h"
#include "topo/map.h"
#include "topo/model.h"

/* GPU data-path captures: the three readers on every file of the shared fixtures, bad input,
 * and the judging rules on recorded values, each at its edge. */

static char fixdir[4096];

typedef int (*reader_fn)(struct topo_node *, const char *, ry_error_t *);

/* the failures ("check subject" joined by ';', in the order judged) and the verdict */
struct judged {
    char fails[4096], warns[1024], observed[256], expected[256], hint[320]; /* 1st failure's */
    size_t nfail, nwarn, nok, nunjudged;
};

static void judge(struct topo_node *node, const struct map_thresholds *th, struct judged *j)
{
    struct topo_findings f = { 0 };

    memset(j, 0, sizeof(*j));
    topo_bw_judge(node, "node", th, &f);
    topo_findings_sort(&f);
    for (size_t i = 0; i < f.n; i++) {
        char *dst = f.v[i].sev == TOPO_SEV_FAIL   ? j->fails
                    : f.v[i].sev == TOPO_SEV_WARN ? j->warns
                                                  : NULL;
        size_t len = f.v[i].sev == TOPO_SEV_FAIL ? sizeof(j->fails) : sizeof(j->warns);
        if (f.v[i].sev == TOPO_SEV_FAIL && !j->observed[0]) {
            snprintf(j->observed, sizeof(j->observed), "%s", f.v[i].observed);
            snprintf(j->expected, sizeof(j->expected), "%s", f.v[i].expected);
            snprintf(j->hint, sizeof(j->hint), "%s", f.v[i].hint ? f.v[i].hint : "");
        }
        if (dst)
            snprintf(dst + strlen(dst), len - strlen(dst), "%s%s %s", *dst ? ";" : "", f.v[i].check,
                     f.v[i].subject);
    }
    j->nfail = f.nfail;
    j->nwarn = f.nwarn;
    j->nok = f.nok;
    j->nunjudged = f.nunjudged;
    topo_findings_free(&f);
}

/* the observed text of check's finding of severity sev, or "none" */
static const char *text_of(struct topo_node *node, const struct map_thresholds *th,
                           enum topo_sev sev, const char *check)
{
    static char buf[240];
    struct topo_findings f = { 0 };

    topo_bw_judge(node, "node", th, &f);
    snprintf(buf, sizeof(buf), "none");
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].sev == sev && !strcmp(f.v[i].check, check))
            snprintf(buf, sizeof(buf), "%s", f.v[i].observed ? f.v[i].observed : "");
    topo_findings_free(&f);
    return buf;
}

static const struct topo_bw *find(const struct topo_bw_capture *c, enum topo_bw_kind k, int a,
                                  int b)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].kind == k && c->v[i].a == a && c->v[i].b == b)
            return &c->v[i];
    return NULL;
}

static double value(const struct topo_bw_capture *c, enum topo_bw_kind k, int a, int b)
{
    const struct topo_bw *v = find(c, k, a, b);
    return v ? v->value : -1;
}

static int near(double got, double want)
{
    return fabs(got - want) < 1e-6 * (fabs(want) + 1);
}

/* read a fixture; NULL (and a skip) when the shared fixtures are absent */
static struct topo_node *load(reader_fn rd, const char *name, int nskip)
{
    char path[8192];
    ry_error_t err = { "" };
    struct topo_node *node = topo_node_create();

    snprintf(path, sizeof(path), "%s/%s", fixdir, name);
    if (access(path, R_OK) != 0) {
        for (int i = 0; i < nskip; i++)
            ok(1, "# SKIP shared fixture %s not found", name);
        topo_node_destroy(node);
        return NULL;
    }
    if (rd(node, path, &err) < 0 || node->nbw != 1) {
        ok(0, "%s: read (%s)", name, err.text);
        for (int i = 1; i < nskip; i++)
            ok(0, "%s: not read", name);
        topo_node_destroy(node);
        return NULL;
    }
    ok(1, "%s: read", name);
    return node;
}

static void fixtures(void)
{
    struct topo_node *n;
    struct topo_bw_capture *c;
    struct judged j;

    /* nvbandwidth */
    if ((n = load(topo_nvbandwidth_read, "dell-xe9780_b300-sxm6-x7_nvbandwidth-all.txt", 7))) {
        c = n->bw[0];
        is_str(c->tool, "nvbandwidth v0.10.0", "B300 nvbandwidth: the version");
        ok(c->ngpus == 7 && near(value(c, TOPO_BW_H2D, 0, -1), 55.59) &&
               near(value(c, TOPO_BW_D2H, 6, -1), 57.30),
           "B300 nvbandwidth: 7 GPUs, H2D gpu0 55.59, D2H gpu6 57.30 GB/s");
        ok(near(value(c, TOPO_BW_P2P, 0, 1), 765.45) && near(value(c, TOPO_BW_P2P, 1, 0), 765.80),
           "B300 nvbandwidth: read CE gpu0->gpu1 765.45, gpu1->gpu0 765.80");
        /* all_to_one and one_to_all: one figure per GPU, the copy between it and all the others
         * (the first of them, all_to_one_write_ce at line 179) */
        ok(find(c, TOPO_BW_P2P_OTHER, 0, -1) && find(c, TOPO_BW_P2P_OTHER, 0, -1)->line == 179 &&
               near(value(c, TOPO_BW_P2P_OTHER, 0, -1), 795.28) &&
               near(value(c, TOPO_BW_P2P_OTHER, 3, -1), 795.49) &&
               !find(c, TOPO_BW_P2P_OTHER, 0, 3),
           "B300 nvbandwidth: all_to_one_write_ce a figure per GPU, gpu0 795.28, gpu3 795.49");
        /* a bidirectional peer test's Read1 and Read2 matrices are each one direction: only its
         * Total (line 95 on) is kept, as both directions at once */
        ok(find(c, TOPO_BW_P2P_BIDIR, 0, 1) && find(c, TOPO_BW_P2P_BIDIR, 0, 1)->line == 95 &&
               near(value(c, TOPO_BW_P2P_BIDIR, 0, 1), 1521.89),
           "B300 nvbandwidth: device_to_device_bidirectional_memcpy_read_ce's Total, gpu0<->gpu1 "
           "1521.89");
        /* the copy engine's host copies and the SM's are told apart by the test's name */
        ok(find(c, TOPO_BW_H2D, 0, -1) && !find(c, TOPO_BW_H2D, 0, -1)->sm &&
               find(c, TOPO_BW_P2P, 0, 1) && !find(c, TOPO_BW_P2P, 0, 1)->sm,
           "B300 nvbandwidth: host_to_device_memcpy_ce and the peer reads by copy engine, not SM");
        ok(near(value(c, TOPO_BW_P2P_LATENCY, 6, 4), 1.61612) &&
               near(value(c, TOPO_BW_HOST_LATENCY, 2, -1), 1.15615),
           "B300 nvbandwidth: latency in ns read as microseconds");
        ok(c->corrupt && strstr(c->corrupt, "line 427") && c->broke && strstr(c->broke, "line 429"),
           "B300 nvbandwidth: the pattern check at line 427 and the assertion at 429");
        judge(n, NULL, &j);
        is_str(j.fails, "gpu.copy.verify node",
               "B300 nvbandwidth: the corrupted copy fails, "
               "nothing else (every figure within its siblings)");
        ok(j.nok > 0 && j.nunjudged == 2,
           "B300 nvbandwidth: the broken run and the missing "
           "link bound are said (%zu not judged)",
           j.nunjudged);
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "ml-engineering_dgx-station-gb300_nvbandwidth-c2c-h2d-d2h-extract.txt", 3))) {
        c = n->bw[0];
        ok(c->ngpus == 1 && near(value(c, TOPO_BW_H2D, 0, -1), 359.05) &&
               near(value(c, TOPO_BW_HOST_BIDIR, 0, -1), 175.38),
           "GB300 station: H2D 359.05, one direction of the bidirectional 175.38");
        judge(n, NULL, &j);
        ok(j.nfail + j.nwarn + j.nok == 0 && j.nunjudged == 1,
           "GB300 station with no model named: nothing judged, said so (cannot judge)");
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "nvbandwidth-issue13_rtx2080ti-x2-no-p2p_nvbandwidth-d2d-write-ce-waived.txt",
                  3))) {
        c = n->bw[0];
        ok(c->ngpus == 2 && c->nwaived == 1 &&
               strstr(c->waived[0], "device_to_device_memcpy_write_ce"),
           "2080 Ti: the waived test is recorded");
        judge(n, NULL, &j);
        ok(!j.nfail && !strcmp(j.warns, "gpu.p2p.access node"), "2080 Ti: a warning for the "
                                                                "missing peer access, no failure");
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt", 3))) {
        c = n->bw[0];
        ok(c->ngpus == 8 && near(value(c, TOPO_BW_H2D, 2, -1), 23.90) &&
               near(value(c, TOPO_BW_D2H, 4, -1), 27.10),
           "RTX 4090 x8 (v0.2 format): H2D gpu2 23.90, D2H gpu4 27.10");
        judge(n, NULL, &j);
        ok(!j.nfail && !j.nwarn && j.nok == 1 && j.nunjudged == 0,
           "RTX 4090 x8: every host link within Gen4 x16's floor (by reference)");
        topo_node_destroy(n);
    }
    if ((n = load(
             topo_nvbandwidth_read,
             "nvbandwidth-issue19_l40s-x8_nvbandwidth-one-to-all-read-sm-pattern-check-abort.txt",
             2))) {
        judge(n, NULL, &j);
        ok(!strcmp(j.fails, "gpu.copy.verify node") && n->bw[0]->broke,
           "L40S: the failed pattern check fails, the abort is said");
        topo_node_destroy(n);
    }
    if ((n = load(
             topo_nvbandwidth_read,
             "nvbandwidth-issue34_a100-sxm4-80gb-x8_nvbandwidth-d2d-read-ce-pattern-check-fail.txt",
             3))) {
        c = n->bw[0];
        ok(c->ngpus == 8 && c->busid[4] && !strcmp(c->busid[4], "0000:9b:00.0") && c->model[0] &&
               !strcmp(c->model[0], "NVIDIA A100-SXM4-80GB"),
           "A100 x8: models and PCI addresses from the device lines");
        judge(n, NULL, &j);
        is_str(j.fails, "gpu.copy.verify node", "A100 x8: the failed pattern check fails");
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "nvbandwidth-issue42_a100-sxm4-40gb_nvbandwidth-h2d-sm.txt", 3))) {
        c = n->bw[0];
        ok(find(c, TOPO_BW_H2D, 0, -1) && find(c, TOPO_BW_H2D, 0, -1)->sm &&
               near(value(c, TOPO_BW_H2D, 0, -1), 25.13),
           "A100 40GB: H2D by SM copy 25.13");
        judge(n, NULL, &j);
        ok(!j.nfail && j.nok == 1, "A100 40GB: within Gen4 x16's floor");
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "nvbandwidth-issue48_h20-3e-x8_nvbandwidth-device-local-copy.txt", 2))) {
        c = n->bw[0];
        ok(near(value(c, TOPO_BW_LOCAL, 5, -1), 1116.88) && c->ngpus == 8,
           "H20-3e: device-local copy of gpu5 1116.88");
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "nvbandwidth-issue50_rtx-a6000-x6-pcie-gen4_nvbandwidth-d2d-read-ce.txt", 3))) {
        c = n->bw[0];
        ok(near(value(c, TOPO_BW_P2P, 0, 3), 21.95) && c->ngroups == 1 &&
               !strcmp(c->groups[0], "device_to_device_memcpy_read_ce"),
           "A6000: a matrix without its 'Running' line is named by its SUM line");
        judge(n, NULL, &j);
        ok(!j.nfail && !j.nwarn, "A6000: 26.3 within, 21.8 across the switches: healthy");
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "oci-oke_bm.gpu.gb200.4-2node_nvbandwidth-multinode-d2d-read-ce.txt", 3))) {
        c = n->bw[0];
        ok(c->ngpus == 8 && near(value(c, TOPO_BW_P2P, 7, 6), 798.02) && c->busid[7] &&
               !strcmp(c->busid[7], "0019:01:00.0"),
           "GB200 multinode: 8 processes, gpu7->gpu6 798.02");
        judge(n, NULL, &j);
        ok(!j.nfail && !j.nwarn, "GB200 multinode: healthy");
        topo_node_destroy(n);
    }
    if ((n = load(topo_nvbandwidth_read,
                  "tinygrad-okm-issue29_rtx5090-x8-xeon8458p_nvbandwidth-h2d-d2h-ce-extract.txt",
                  3))) {
        c = n->bw[0];
        ok(near(value(c, TOPO_BW_HOST_BIDIR, 3, -1), 50.90), "RTX 5090: bidirectional gpu3 50.90");
        judge(n, NULL, &j);
        ok(!j.nfail && j.nok == 1, "RTX 5090 x8: within Gen5 x16's floor");
        topo_node_destroy(n);
    }

    /* p2pBandwidthLatencyTest */
    if ((n = load(topo_p2p_bandwidth_read,
                  "autodl_rtx2080ti-x2-pcie-gen3-p2p-ns_p2pbandwidthlatencytest.txt", 5))) {
        c = n->bw[0];
        ok(topo_bw_peer(c, 0, 1) == 0 && topo_bw_peer(c, 1, 0) == 0 && c->busid[1] &&
               !strcmp(c->busid[1], "0000:b5:00.0"),
           "2080 Ti p2p: no peer access either way, addresses from the device lines");
        ok(near(value(c, TOPO_BW_P2P_HOST, 0, 1), 5.71) &&
               near(value(c, TOPO_BW_P2P_LATENCY, 1, 0), 13.63),
           "2080 Ti p2p: through host 5.71 GB/s, enabled latency 1->0 13.63 us (the CPU block "
           "is not a GPU)");
        {
            size_t lat = 0;
            for (size_t i = 0; i < c->n; i++)
                lat +=
                    c->v[i].kind == TOPO_BW_P2P_LATENCY || c->v[i].kind == TOPO_BW_P2P_HOST_LATENCY;
            is_int((long long)lat, 4, "2080 Ti p2p: four GPU latencies, the CPU blocks left out");
        }
        judge(n, NULL, &j);
        ok(!j.nfail && !strcmp(j.warns, "gpu.p2p.access node/gpu0-gpu1"),
           "2080 Ti p2p: no peer access is a warning on a PCIe pair, nothing fails");
        topo_node_destroy(n);
    }
    if ((n = load(topo_p2p_bandwidth_read, "dell-xe9780_b300-sxm6-x7_p2pbandwidthlatencytest.txt",
                  4))) {
        size_t lat = 0;
        c = n->bw[0];
        ok(near(value(c, TOPO_BW_P2P_BIDIR, 0, 3), 494.31) &&
               near(value(c, TOPO_BW_LOCAL, 4, -1), 6005.28),
           "B300 p2p: bidirectional 0<->3 494.31, local copy of gpu4 6005.28");
        judge(n, NULL, &j);
        ok(strstr(j.fails, "gpu.p2p.bw node/gpu0-gpu1;gpu.p2p.bw node/gpu0-gpu3;gpu.p2p.bw "
                           "node/gpu1-gpu2;gpu.p2p.bw node/gpu2-gpu3;gpu.p2p.bw node/gpu3-gpu4") &&
               !strstr(j.fails, "gpu.p2p.bw node/gpu4") && !strstr(j.fails, "gpu.p2p.bw node/gpu5"),
           "B300 p2p: the five slow bidirectional pairs, and no other, fail gpu.p2p.bw");
        for (char *p = j.fails; (p = strstr(p, "gpu.p2p.latency")); p++)
            lat++;
        ok(lat == 18 && !strstr(j.fails, "latency node/gpu4-gpu5") &&
               !strstr(j.fails, "latency node/gpu5-gpu6"),
           "B300 p2p: the 18 pairs that stage through gpu0-3 in milliseconds fail, 4-6 do not "
           "(%zu)",
           lat);
        topo_node_destroy(n);
    }
    static const char *const healthy_p2p[] = {
        "ml-engineering_a100-8gpu-nvlink_p2pbandwidthlatencytest-unidir-p2p-enabled-extract.txt",
        "ml-engineering_gb200-nvl4-node_p2pbandwidthlatencytest-unidir-p2p-enabled-extract.txt",
        "ml-engineering_h100-8gpu-nvlink4_p2pbandwidthlatencytest-unidir-p2p-enabled-extract.txt",
        "tinygrad_tinybox-green-6x-rtx4090-p2p-patched_p2pbandwidthlatencytest-bidir-extract.txt",
    };
    for (size_t i = 0; i < 4; i++)
        if ((n = load(topo_p2p_bandwidth_read, healthy_p2p[i], 2))) {
            judge(n, NULL, &j);
            ok(!j.nfail && !j.nwarn && j.nok > 0, "%.30s...: healthy, judged against its pairs",
               healthy_p2p[i]);
            topo_node_destroy(n);
        }
    if ((n = load(topo_p2p_bandwidth_read,
                  "nccl-issue257_gtx1080ti-x4-2socket-iommu-off_p2pbandwidthlatencytest-"
                  "connectivity-extract.txt",
                  2))) {
        judge(n, NULL, &j);
        is_str(j.warns,
               "gpu.p2p.access node/gpu0-gpu2;gpu.p2p.access node/gpu0-gpu3;gpu.p2p.access "
               "node/gpu1-gpu2;gpu.p2p.access node/gpu1-gpu3",
               "GTX 1080 Ti, two sockets: peer access within each socket only, warned per pair");
        topo_node_destroy(n);
    }
    if ((n = load(
             topo_p2p_bandwidth_read,
             "nccl-issue814_rtx4090-x6-pcie-phb-sys_p2pbandwidthlatencytest-unidir-extract.txt",
             3))) {
        c = n->bw[0];
        ok(near(value(c, TOPO_BW_P2P, 3, 2), 10.23) &&
               near(value(c, TOPO_BW_P2P_HOST, 3, 2), 22.25),
           "RTX 4090 x6: writes 3->2 10.23 against 22.25 through host");
        judge(n, NULL, &j);
        ok(j.nfail == 15 && !strstr(j.fails, "gpu.p2p.latency"),
           "RTX 4090 x6: all 15 pairs fail: peer copies slower than through host (%zu)", j.nfail);
        topo_node_destroy(n);
    }

    /* bandwidthTest */
    if ((n = load(topo_bandwidth_test_read, "autodl_rtx2080ti-x2-pcie-gen3_bandwidthtest.txt",
                  3))) {
        c = n->bw[0];
        ok(near(value(c, TOPO_BW_H2D, 0, -1), 12.2) && near(value(c, TOPO_BW_D2H, 0, -1), 13.2) &&
               near(value(c, TOPO_BW_LOCAL, 0, -1), 518.9),
           "bandwidthTest (GB/s): 12.2, 13.2, 518.9");
        judge(n, NULL, &j);
        ok(!j.nfail && j.nok == 1, "2080 Ti: within Gen3 x16's floor");
        topo_node_destroy(n);
    }
    if ((n = load(topo_bandwidth_test_read,
                  "gearshifft-pr82_p100-pcie-16gb-numa-local_bandwidthtest.txt", 2))) {
        ok(near(value(n->bw[0], TOPO_BW_H2D, 0, -1), 12.1507), "bandwidthTest (MB/s): 12150.7 "
                                                               "MB/s is 12.1507 GB/s");
        topo_node_destroy(n);
    }
    if ((n = load(topo_bandwidth_test_read,
                  "superbench_tesla-v100-pcie-32gb_bandwidthtest-h2d-shmoo-csv.txt", 3))) {
        c = n->bw[0];
        ok(near(value(c, TOPO_BW_H2D, 0, -1), 12.4) && c->n == 1,
           "bandwidthTest shmoo CSV: the figure at the largest size (68 MB: 12.4)");
        judge(n, NULL, &j);
        ok(!j.nfail && j.nok == 1, "V100 PCIe: within Gen3 x16's floor");
        topo_node_destroy(n);
    }
}

static int write_file(char *path, const char *text)
{
    FILE *f;
    int fd;

    strcpy(path, "/tmp/ry-gpubw-XXXXXX");
    if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w")))
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* a bad file: an error naming path:line with want in it, and nothing added */
static void bad(reader_fn rd, const char *text, const char *line, const char *want,
                const char *what)
{
    char path[64], where[128];
    ry_error_t err = { "" };
    struct topo_node *node = topo_node_create();
    int rc;

    if (write_file(path, text) < 0) {
        ok(0, "%s: cannot write a file", what);
        return;
    }
    rc = rd(node, path, &err);
    snprintf(where, sizeof(where), "%s%s", path, line);
    ok(rc < 0 && node->nbw == 0 && strstr(err.text, where) && strstr(err.text, want), "%s (%s)",
       what, err.text);
    unlink(path);
    topo_node_destroy(node);
}

/* a file the reader takes: the node (a capture in it), else NULL and why said */
static struct topo_node *good(reader_fn rd, const char *text, const char *what)
{
    char path[64];
    ry_error_t err = { "" };
    struct topo_node *node = topo_node_create();
    int rc = write_file(path, text) == 0 ? rd(node, path, &err) : -1;

    unlink(path);
    if (rc == 0 && node->nbw == 1)
        return node;
    diag("%s: %s", what, err.text);
    topo_node_destroy(node);
    return NULL;
}

/* the edges of the readers' grammar: each line kind at the point where it stops being one */
static void reader_edges(void)
{
    static const char nvb_head[] = "nvbandwidth Version: v0.8\nRunning host_to_device_memcpy_ce.\n";
    static const char p2p_lat[] =
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
        "P2P=Enabled Latency (P2P Writes) Matrix (us)\n"
        "   GPU     0      1\n     0   2.50   2.10\n     1   2.20   2.40\n";
    struct topo_node *n;
    char text[8192];
    size_t len;

    /* nvbandwidth: what follows a matrix's title: the end of the file, a blank line where its
     * column header belongs, a row of its number alone */
    {
        static const char *const after[][4] = {
            { "", ":3:", "ends before the matrix's column header", "the file ends after a title" },
            { "\n   0   1\n 0  55.1  55.2\n", ":4:", "column header (0 1 2 ...) was expected",
              "a blank line where the column header belongs" },
            { "   0   1\n 0\n", ":5:", "row 0 has 0 values", "a row of its number alone" },
            { "   0   1\n\n 0  55.1  55.2\n", ":5:", "the matrix has no row",
              "a blank line after the column header" },
        };
        for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
            char what[96];
            snprintf(text, sizeof(text), "%smemcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n%s",
                     nvb_head, after[i][0]);
            snprintf(what, sizeof(what), "nvbandwidth: %s", after[i][3]);
            bad(topo_nvbandwidth_read, text, after[i][1], after[i][2], what);
        }
    }
    /* the lines nvbandwidth prints about itself, also after a GPU is listed (a second run's
     * preamble in the same file): passed over */
    {
        static const char *const own[] = { "Built from Git version: v0.7",
                                           "MPI version: Open MPI v4.1.4",
                                           "CUDA Runtime Version: 12080",
                                           "CUDA Driver Version: 12080",
                                           "Driver Version: 570.124.06",
                                           "Current offset: 0",
                                           "..." };
        for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
            snprintf(text, sizeof(text),
                     "nvbandwidth Version: v0.7\nDevice 0: NVIDIA H100 80GB HBM3 (00000000:34:00)\n"
                     "%s\n%smemcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n   0\n 0  55.1\n",
                     own[i], nvb_head + strlen("nvbandwidth Version: v0.8\n"));
            n = good(topo_nvbandwidth_read, text, own[i]);
            ok(n && n->bw[0]->n == 1, "nvbandwidth: '%s' after a Device line: passed over", own[i]);
            topo_node_destroy(n);
        }
    }
    /* one whose run printed nothing */
    bad(topo_nvbandwidth_read, nvb_head,
        ":2:", "the run of host_to_device_memcpy_ce printed no matrix",
        "nvbandwidth: a 'Running' line and nothing after it");
    /* a title is a line that ends in its unit, the unit alone too (a paste cut at the left) */
    snprintf(text, sizeof(text), "%s(GB/s)\n   0   1\n 0  55.1  55.2\n 1  55.3  55.4\n", nvb_head);
    n = good(topo_nvbandwidth_read, text, "a title of its unit alone");
    ok(n && n->bw[0]->n == 2 && near(value(n->bw[0], TOPO_BW_H2D, 0, 1), 55.2),
       "nvbandwidth: a title of its unit alone, '(GB/s)', opens a matrix");
    topo_node_destroy(n);
    /* a row longer than the most GPUs a matrix has: refused, never read past its end */
    len = (size_t)snprintf(text, sizeof(text),
                           "%smemcpy CE CPU(row) -> GPU(column) bandwidth "
                           "(GB/s)\n  0  1  2\n 0",
                           nvb_head);
    for (int i = 0; i < 1000 && len < sizeof(text) - 8; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, " 5");
    snprintf(text + len, sizeof(text) - len, "\n");
    bad(topo_nvbandwidth_read, text, ":5:", "more or fewer columns",
        "nvbandwidth: a row of 1000 values under a header of 3");

    /* a row is a whole GPU number from 0 and its values: one with a tail or a negative one ends
     * the matrix (and is then no line of nvbandwidth's), one past the last GPU is refused */
    {
        static const char *const rows[][3] = {
            { "0x   55.3   55.4", "not nvbandwidth output: '0x", "a row number with a tail" },
            { "-1   55.3   55.4", "not nvbandwidth output: '-1", "a negative row number" },
            { "2    55.3   55.4", "row 2 of a matrix of 2 GPUs", "row 2 of a matrix of 2" },
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
            char what[96];
            snprintf(text, sizeof(text),
                     "nvbandwidth Version: v0.8\nRunning device_to_device_memcpy_read_ce.\n"
                     "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n   0   1\n"
                     " 0   N/A   55.1\n 1  55.2   N/A\n%s\n",
                     rows[i][0]);
            snprintf(what, sizeof(what), "nvbandwidth: %s", rows[i][2]);
            bad(topo_nvbandwidth_read, text, ":7:", rows[i][1], what);
        }
    }
    /* the most GPUs a matrix has, 256, under a labelled header: read whole */
    len = (size_t)snprintf(text, sizeof(text),
                           "%smemcpy CE CPU(row) -> GPU(column) bandwidth "
                           "(GB/s)\n  GPU",
                           nvb_head);
    for (int i = 0; i < 256 && len < sizeof(text) - 8; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, " %d", i);
    len += (size_t)snprintf(text + len, sizeof(text) - len, "\n 0");
    for (int i = 0; i < 256 && len < sizeof(text) - 8; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, " 5%d", i % 10);
    snprintf(text + len, sizeof(text) - len, "\n");
    n = good(topo_nvbandwidth_read, text, "256 GPUs under a labelled header");
    ok(n && n->bw[0]->n == 256 && near(value(n->bw[0], TOPO_BW_H2D, 255, -1), 55),
       "nvbandwidth: 256 GPUs under a labelled header ('GPU 0 ... 255'): 256 figures, gpu255 55");
    topo_node_destroy(n);
    /* a Device line of an address alone gives the GPU no model (not an empty one) */
    snprintf(text, sizeof(text),
             "nvbandwidth Version: v0.8\nDevice 0: (00000000:34:00)\n%s"
             "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n   0\n 0  55.1\n",
             nvb_head + strlen("nvbandwidth Version: v0.8\n"));
    n = good(topo_nvbandwidth_read, text, "a Device line of an address alone");
    ok(n && n->bw[0]->busid[0] && !strcmp(n->bw[0]->busid[0], "0000:34:00.0") &&
           !n->bw[0]->model[0],
       "nvbandwidth: 'Device 0: (00000000:34:00)': address 0000:34:00.0, no model");
    topo_node_destroy(n);
    /* a capture without addresses on a node of one GPU: its count must be the node's */
    {
        char fn[64], want[128];
        ry_error_t e = { "" };
        struct topo_node *one = topo_node_create();
        topo_node_add_gpu(one)->index = 0;
        snprintf(text, sizeof(text),
                 "%smemcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
                 "   0   1\n 0  55.1  55.2\n",
                 nvb_head);
        int rc = write_file(fn, text) == 0 ? topo_nvbandwidth_read(one, fn, &e) : 0;
        snprintf(want, sizeof(want), "%s:5: the capture measures 2 GPUs, the node has 1", fn);
        ok(rc < 0 && strstr(e.text, want) && one->nbw == 0,
           "nvbandwidth: 2 GPUs measured on a node of 1: refused at the first figure (%s)", e.text);
        unlink(fn);
        topo_node_destroy(one);
    }

    /* bandwidthTest: a GPU number out of range either side; a note wrapped onto a second line;
     * the CSV lines in MB/s, pageable memory passed over (even after pinned, of the same size),
     * the device-to-device line kept */
    bad(topo_bandwidth_test_read, "[CUDA Bandwidth Test] - Starting...\nDevice 256: NVIDIA H100\n",
        ":2:", "GPU number 256 out of range", "bandwidthTest: Device 256 (one past the last)");
    bad(topo_bandwidth_test_read, "[CUDA Bandwidth Test] - Starting...\nDevice -1: NVIDIA H100\n",
        ":2:", "GPU number -1 out of range", "bandwidthTest: Device -1");
    n = good(
        topo_bandwidth_test_read,
        "[CUDA Bandwidth Test] - Starting...\nRunning on...\n\n Device 0: NVIDIA H100 80GB HBM3\n"
        " Quick Mode\n\n"
        "bandwidthTest-H2D-Pinned, Bandwidth = 20000.0 MB/s, Time = 0.00160 s, Size = 32000000 "
        "bytes\n"
        "bandwidthTest-H2D-Pinned, Bandwidth = 24500.0 MB/s, Time = 0.00131 s, Size = 32000000 "
        "bytes\n"
        "bandwidthTest-H2D-Paged, Bandwidth = 9000.0 MB/s, Time = 0.00356 s, Size = 32000000 "
        "bytes\n"
        "bandwidthTest-D2H-Pinned, Bandwidth = 26.1 GB/s, Time = 0.00123 s, Size = 32000000 bytes\n"
        "bandwidthTest-D2D, Bandwidth = 1500.0 GB/s, Time = 0.00002 s, Size = 32000000 bytes\n"
        "NOTE: The CUDA Samples are not meant for performance measurements.\n"
        "Results may vary when GPU Boost is enabled.\n",
        "bandwidthTest CSV");
    ok(n && n->bw[0]->n == 3 && near(value(n->bw[0], TOPO_BW_H2D, 0, -1), 24.5) &&
           near(value(n->bw[0], TOPO_BW_D2H, 0, -1), 26.1) &&
           near(value(n->bw[0], TOPO_BW_LOCAL, 0, -1), 1500) &&
           find(n->bw[0], TOPO_BW_LOCAL, 0, -1)->counts_rw &&
           !find(n->bw[0], TOPO_BW_H2D, 0, -1)->counts_rw,
       "bandwidthTest CSV: H2D 24500 MB/s as 24.5 GB/s (the later of two of 32 MB; the paged line "
       "after it passed over), D2H 26.1, D2D 1500 counted read plus write; a wrapped NOTE passed "
       "over");
    topo_node_destroy(n);

    /* a run on pageable memory (--memory=pageable): its host copies measure the host's own
     * copies and are passed over; the device-to-device copy is kept */
    n = good(
        topo_bandwidth_test_read,
        "[CUDA Bandwidth Test] - Starting...\nRunning on...\n\n Device 0: NVIDIA H100 80GB HBM3\n"
        " Quick Mode\n\n Host to Device Bandwidth, 1 Device(s)\n PAGEABLE Memory Transfers\n"
        "   Transfer Size (Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t9.5\n\n"
        " Device to Host Bandwidth, 1 Device(s)\n PAGEABLE Memory Transfers\n"
        "   Transfer Size (Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t8.7\n\n"
        " Device to Device Bandwidth, 1 Device(s)\n PAGEABLE Memory Transfers\n"
        "   Transfer Size (Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t1400.5\n\nResult = PASS\n",
        "bandwidthTest on pageable memory");
    ok(n && n->bw[0]->n == 1 && near(value(n->bw[0], TOPO_BW_LOCAL, 0, -1), 1400.5),
       "bandwidthTest on pageable memory: the device-to-device figure alone (1400.5)");
    topo_node_destroy(n);

    /* two runs of the same direction and size in one file: the figure printed last */
    n = good(topo_bandwidth_test_read,
             " Host to Device Bandwidth, 1 Device(s)\n PINNED Memory Transfers\n"
             "   Transfer Size (Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t12.2\n\n"
             " Host to Device Bandwidth, 1 Device(s)\n PINNED Memory Transfers\n"
             "   Transfer Size (Bytes)\tBandwidth(GB/s)\n   32000000\t\t\t24.6\n",
             "bandwidthTest twice");
    ok(n && n->bw[0]->n == 1 && near(value(n->bw[0], TOPO_BW_H2D, 0, -1), 24.6) &&
           find(n->bw[0], TOPO_BW_H2D, 0, -1)->line == 9,
       "bandwidthTest: two runs of 32 MB host to device: the later figure (24.6, line 9)");
    topo_node_destroy(n);

    /* p2pBandwidthLatencyTest: a latency title names P2P=Enabled or Disabled, 'Latency' and
     * ends in 'Matrix (us)'; each missing part makes it a line of another format */
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nP2P=Enabled Latency (P2P Writes) "
        "Matrix (ms)\n",
        ":2:", "not p2pBandwidthLatencyTest output", "p2p: a latency title in another unit");
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nLatency (P2P Writes) Matrix (us)\n",
        ":2:", "not p2pBandwidthLatencyTest output", "p2p: a latency title without P2P=");
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nP2P=Enabled Bandwidth Matrix (us)\n",
        ":2:", "not p2pBandwidthLatencyTest output",
        "p2p: a title in microseconds without 'Latency'");
    /* blank lines between a latency matrix and its CPU block: the block is still its own */
    snprintf(text, sizeof(text),
             "%s\n\n   CPU     0      1\n     0   3.10   3.20\n"
             "     1   3.30   3.40\n",
             p2p_lat);
    n = good(topo_p2p_bandwidth_read, text, "two blank lines before the CPU block");
    ok(n && n->bw[0]->n == 2 && near(value(n->bw[0], TOPO_BW_P2P_LATENCY, 0, 1), 2.10),
       "p2p: two blank lines before a latency matrix's CPU block: the GPU pairs' 2 figures only");
    topo_node_destroy(n);
    /* a matrix with a column header and no row, after a whole one: where the file ends, and
     * where a blank line follows the header */
    {
        static const char *const cut[][4] = {
            { "", ":8:", "ends inside the matrix", "p2p: the file ends after its column header" },
            { "\n", ":9:", "has no row", "p2p: a blank line after its column header" },
        };
        for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
            snprintf(text, sizeof(text),
                     "%s\nUnidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n"
                     "   D\\D     0      1\n%s",
                     p2p_lat, cut[i][0]);
            bad(topo_p2p_bandwidth_read, text, cut[i][1], cut[i][2], cut[i][3]);
        }
    }
    /* a peer access line of a negative GPU number, on either side */
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nDevice=-1 CAN Access Peer Device=0\n",
        ":2:", "GPU number out of range", "p2p: a peer access line of GPU -1");
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nDevice=0 CAN Access Peer Device=-1\n",
        ":2:", "GPU number out of range", "p2p: ...of peer GPU -1");
    /* a capture of peer access lines alone that does not fit the node is named at its first
     * GPU line, not where the file ends */
    {
        char fn[64];
        ry_error_t e = { "" };
        struct topo_node *four = topo_node_create();
        for (int i = 0; i < 4; i++)
            topo_node_add_gpu(four)->index = i;
        int rc = write_file(fn, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
                                "Device=0 CAN Access Peer Device=1\n"
                                "Device=1 CAN Access Peer Device=0\n\nResult = PASS\n") == 0
                     ? topo_p2p_bandwidth_read(four, fn, &e)
                     : 0;
        char want[128];
        snprintf(want, sizeof(want), "%s:2: the capture measures 2 GPUs, the node has 4", fn);
        ok(rc < 0 && strstr(e.text, want),
           "p2p: 2 GPUs' peer access lines on a node of 4: named at line 2 (%s)", e.text);
        unlink(fn);
        topo_node_destroy(four);
    }
    /* the lines the sample prints about itself, each alone */
    {
        static const char *const own[] = { "[./p2pBandwidthLatencyTest] - Starting...",
                                           "./p2pBandwidthLatencyTest] - Starting...",
                                           "Result = PASS" };
        for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
            snprintf(text, sizeof(text), "%s\n%s\n", own[i],
                     p2p_lat + strlen("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"));
            n = good(topo_p2p_bandwidth_read, text, own[i]);
            ok(n && n->bw[0]->n == 2, "p2p: '%s' passed over", own[i]);
            topo_node_destroy(n);
        }
    }
}

static void bad_input(void)
{
    static const char h2d_head[] =
        "nvbandwidth Version: v0.8\n\nRunning host_to_device_memcpy_ce.\n"
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
        "           0         1         2\n";
    char text[1024], path[64];
    ry_error_t err = { "" };
    struct topo_node *node;
    struct judged j;

    snprintf(text, sizeof(text), "%s 0     55.1     55.2\n\nSUM host_to_device_memcpy_ce 1\n",
             h2d_head);
    bad(topo_nvbandwidth_read, text, ":6:", "has 2 values", "nvbandwidth: a row cut short");
    snprintf(text, sizeof(text), "%s 0     55.1     N/A     55.2\n", h2d_head);
    bad(topo_nvbandwidth_read, text, ":6:", "N/A where the test measures a value",
        "nvbandwidth: N/A where a host link is measured");
    /* a cell is a whole number: not one with a tail, out of range or negative */
    {
        static const char *const cells[][3] = {
            { "55.1x    55.2     55.3", "'55.1x'", "a figure with a tail" },
            { "55.1     1e999    55.3", "'1e999'", "a figure out of range" },
            { "55.1     55.2     -55.3", "'-55.3'", "a negative figure" },
        };
        char want[64], what[64];
        for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
            snprintf(text, sizeof(text), "%s 0     %s\n", h2d_head, cells[i][0]);
            snprintf(want, sizeof(want), "%s is neither a number nor N/A", cells[i][1]);
            snprintf(what, sizeof(what), "nvbandwidth: %s", cells[i][2]);
            bad(topo_nvbandwidth_read, text, ":6:", want, what);
        }
    }
    snprintf(text, sizeof(text), "%s", h2d_head);
    bad(topo_nvbandwidth_read, text, ":5:", "before the matrix's first row",
        "nvbandwidth: the file ends after the column header");
    /* a column header is the GPU numbers in order, whole, at most 256 of them */
    bad(topo_nvbandwidth_read,
        "nvbandwidth Version: v0.8\nRunning host_to_device_memcpy_ce.\n"
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n  0   1x   2\n 0  55.1  55.2  55.3\n",
        ":4:", "column header", "nvbandwidth: a column header whose number has a tail");
    bad(topo_nvbandwidth_read,
        "nvbandwidth Version: v0.8\nRunning host_to_device_memcpy_ce.\n"
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n  GPU\n 0  55.1\n",
        ":4:", "column header", "nvbandwidth: a column header of a label alone");
    {
        size_t len = (size_t)snprintf(text, sizeof(text), "%s",
                                      "nvbandwidth Version: v0.8\nRunning host_to_device_memcpy_ce."
                                      "\nmemcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n");
        for (int i = 0; i < 258 && len < sizeof(text) - 8; i++)
            len += (size_t)snprintf(text + len, sizeof(text) - len, " %d", i);
        snprintf(text + len, sizeof(text) - len, "\n 0  55.1\n");
        bad(topo_nvbandwidth_read, text, ":5:", "more or fewer columns",
            "nvbandwidth: a column header of 258 GPUs (256 the most) is none");
    }
    /* the lines nvbandwidth prints about itself are passed over */
    {
        char fn[64];
        ry_error_t e = { "" };
        struct topo_node *nb = topo_node_create();
        snprintf(text, sizeof(text),
                 "nvbandwidth Version: v0.8\nBuilt from Git version: 1a2b3c\n"
                 "CUDA Runtime Version: 13000\n%s 0     55.1     55.2     55.3\n",
                 h2d_head + strlen("nvbandwidth Version: v0.8\n"));
        int rc = write_file(fn, text) == 0 ? topo_nvbandwidth_read(nb, fn, &e) : -1;
        ok(rc == 0 && nb->nbw == 1 && nb->bw[0]->n == 3,
           "nvbandwidth: its Git version and CUDA runtime lines passed over (%s)", e.text);
        unlink(fn);
        topo_node_destroy(nb);
    }
    /* one GPU: matrices of one column, a latency matrix's CPU block too */
    {
        char fn[64];
        ry_error_t e = { "" };
        struct topo_node *nb = topo_node_create();
        int rc;
        snprintf(text, sizeof(text), "%s",
                 "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
                 "Device: 0, NVIDIA H100 80GB HBM3, pciBusID: 18, pciDeviceID: 0, pciDomainID:0\n"
                 "\nUnidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0\n"
                 "     0 1581.48\n\nP2P=Disabled Latency Matrix (us)\n   GPU     0\n"
                 "     0   2.50\n\n   CPU     0\n     0   3.10\n");
        rc = write_file(fn, text) == 0 ? topo_p2p_bandwidth_read(nb, fn, &e) : -1;
        ok(rc == 0 && nb->nbw == 1 && nb->bw[0]->n == 1,
           "p2p: one GPU, matrices of one column and a CPU block: read (%zu figures; %s)",
           rc == 0 && nb->nbw ? nb->bw[0]->n : 0, e.text);
        unlink(fn);
        topo_node_destroy(nb);
    }
    /* a run that broke off: each way a process says so is kept with its line */
    {
        static const char *const how[] = { "Aborted", "Segmentation fault (core dumped)",
                                           "terminate called after throwing an instance",
                                           "ASSERT in expression cuMemAlloc failed" };
        for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
            char fn[64];
            ry_error_t e = { "" };
            struct topo_node *nb = topo_node_create();
            snprintf(text, sizeof(text), "%s 0     55.1     55.2     55.3\n\n%s\n", h2d_head,
                     how[i]);
            int rc = write_file(fn, text) == 0 ? topo_nvbandwidth_read(nb, fn, &e) : -1;
            const char *broke = rc == 0 && nb->nbw == 1 ? nb->bw[0]->broke : NULL;
            ok(broke && strstr(broke, "line 8"),
               "nvbandwidth: '%s' after the figures: the run broke off at line 8 (%s)", how[i],
               broke ? broke : e.text);
            unlink(fn);
            topo_node_destroy(nb);
        }
    }
    bad(topo_nvbandwidth_read,
        "nvbandwidth Version: v0.8\nDevice 256: NVIDIA H100 80GB HBM3 (00000000:34:00)\n",
        ":2:", "GPU number 256 out of range", "nvbandwidth: Device 256 (one past the last)");
    bad(topo_nvbandwidth_read,
        "nvbandwidth Version: v0.8\nRunning host_to_device_memcpy_ce.\n"
        "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n 0     55.1\n",
        ":4:", "column header", "nvbandwidth: a matrix without its column header");
    bad(topo_nvbandwidth_read, "nvbandwidth Version: v0.8\nRunning x.\nsomething else\n",
        ":3:", "not nvbandwidth output", "nvbandwidth: a line of another format");
#ifdef HAVE_JANSSON
    bad(topo_nvbandwidth_read, "{\"nvbandwidth\": {}}\n", ": ", "no nvbandwidth figure",
        "nvbandwidth: JSON without a test case");
#else
    bad(topo_nvbandwidth_read, "{\"nvbandwidth\": {}}\n", ": ", "built without jansson",
        "nvbandwidth: JSON in a build without jansson is refused, saying why");
#endif
    bad(topo_nvbandwidth_read, "nvbandwidth Version: v0.8\n\n{\"nvbandwidth\": {}}\n",
        ":3:", "JSON output (--json) after other lines",
        "nvbandwidth: JSON after text is refused by name");
    bad(topo_nvbandwidth_read, "", "", "no nvbandwidth figure", "nvbandwidth: an empty file");
    bad(topo_p2p_bandwidth_read,
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1\n"
        "     0 1581.48 274.55\n     1 274.70\n",
        ":4:", "has 1 values", "p2p: a row cut short");
    bad(topo_p2p_bandwidth_read,
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1\n"
        "     0 1581.48 N/A\n     1 274.70 1581.00\n",
        ":3:", "N/A", "p2p: N/A off the diagonal");
    bad(topo_p2p_bandwidth_read, "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)\n",
        ":1:", "ends inside the matrix", "p2p: a title and nothing after");
    bad(topo_p2p_bandwidth_read, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nhello\n",
        ":2:", "not p2pBandwidthLatencyTest output", "p2p: a line of another format");
    bad(topo_bandwidth_test_read, "[CUDA Bandwidth Test] - Starting...\n   32000000   12.2\n",
        ":2:", "before its 'Host to Device'", "bandwidthTest: a figure before its heading");
    bad(topo_bandwidth_test_read, " Host to Device Bandwidth, 2 Device(s)\n", ":1:", "summed over",
        "bandwidthTest: figures summed over devices are refused");
    bad(topo_bandwidth_test_read, "[CUDA Bandwidth Test] - Starting...\nResult = PASS\n", "",
        "no bandwidthTest figure", "bandwidthTest: no figure");
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\nUnidirectional Bandwidth Matrix (GB/s)\n",
        ":2:", "not p2pBandwidthLatencyTest output",
        "p2p: a bandwidth matrix that says neither P2P=Enabled nor P2P=Disabled");
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
        "Device: 256, NVIDIA H100 80GB HBM3, pciBusID: 18, pciDeviceID: 0, pciDomainID:0\n",
        ":2:", "GPU number 256 out of range", "p2p: a Device line of GPU 256 (one past the last)");
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
        "Device=256 CAN Access Peer Device=0\n",
        ":2:", "GPU number out of range", "p2p: a peer access line of GPU 256 (one past the last)");
    bad(topo_p2p_bandwidth_read,
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
        "Device=0 CAN Access Peer Device=256\n",
        ":2:", "GPU number out of range", "p2p: ...of peer GPU 256");
    bad(topo_bandwidth_test_read,
        "[CUDA Bandwidth Test] - Starting...\n"
        "bandwidthTest-X2Y-Pinned, Bandwidth = 12.2 GB/s, Time = 0.00 s, Size = 32000000 bytes\n",
        ":2:", "unknown direction or unit", "bandwidthTest: a CSV line of an unknown direction");
    bad(topo_bandwidth_test_read,
        "[CUDA Bandwidth Test] - Starting...\n"
        "bandwidthTest-H2D-Pinned, Bandwidth = 12.2 kB/s, Time = 0.00 s, Size = 32000000 bytes\n",
        ":2:", "unknown direction or unit", "bandwidthTest: ...of an unknown unit");

    /* a matrix whose 'Running' line was cut from the paste: its SUM line names it, and its
     * kind is the test's, not the one its title suggests (host_to_all's title is H2D's) */
    {
        static const struct {
            const char *test;
            enum topo_bw_kind kind;
        } cut[] = { { "host_to_device_memcpy_ce", TOPO_BW_H2D },
                    { "host_to_all_memcpy_ce", TOPO_BW_HOST_ALL } };
        for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
            snprintf(text, sizeof(text),
                     "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
                     "           0         1\n 0     55.1     55.2\n\nSUM %s 110.30\n",
                     cut[i].test);
            node = topo_node_create();
            if (write_file(path, text) == 0 && topo_nvbandwidth_read(node, path, &err) == 0 &&
                node->nbw == 1) {
                const struct topo_bw_capture *c = node->bw[0];
                ok(c->ngroups == 1 && !strcmp(c->groups[0], cut[i].test) &&
                       near(value(c, cut[i].kind, 1, -1), 55.2) && !find(c, TOPO_BW_P2P, 0, 1) &&
                       (cut[i].kind == TOPO_BW_H2D || !find(c, TOPO_BW_H2D, 1, -1)),
                   "a matrix cut from its 'Running' line, named by SUM %s: %s (gpu1 55.2)",
                   cut[i].test, c->ngroups ? c->groups[0] : "no group");
            } else
                ok(0, "a matrix cut from its 'Running' line (%s): %s", cut[i].test, err.text);
            unlink(path);
            topo_node_destroy(node);
        }
    }

    /* a device line whose address lost its '(' in a paste, and a name with a '(' of its own:
     * the name kept whole, no address read */
    {
        static const char *const dev[] = { "NVIDIA H100 80GB HBM3 00000000:18:00)",
                                           "NVIDIA A100 (PCIe) 40GB" };
        for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++) {
            snprintf(text, sizeof(text),
                     "nvbandwidth Version: v0.8\nDevice 0: %s\n\n"
                     "Running host_to_device_memcpy_ce.\n"
                     "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
                     "           0\n 0     25.1\n",
                     dev[i]);
            node = topo_node_create();
            ok(write_file(path, text) == 0 && topo_nvbandwidth_read(node, path, &err) == 0 &&
                   node->nbw == 1 && !strcmp(node->bw[0]->model[0], dev[i]) &&
                   !node->bw[0]->busid[0],
               "device '%s': the name whole, no address (%s)", dev[i], err.text);
            unlink(path);
            topo_node_destroy(node);
        }
    }

    /* a capture that disagrees with the node's GPUs */
    node = topo_node_create();
    for (int i = 0; i < 8; i++)
        topo_node_add_gpu(node)->index = i;
    node->gpus_listed = 1;
    snprintf(text, sizeof(text), "%s 0     55.1     55.2     55.3\n", h2d_head);
    if (write_file(path, text) == 0) {
        ok(topo_nvbandwidth_read(node, path, &err) < 0 && strstr(err.text, ":6:") &&
               strstr(err.text, "the capture measures 3 GPUs, the node has 8"),
           "a capture of 3 GPUs on a node of 8: refused with file:line (%s)", err.text);
        unlink(path);
    } else
        ok(0, "cannot write a file");
    topo_node_destroy(node);

    /* one not among the node's GPUs by address */
    node = topo_node_create();
    snprintf(topo_node_add_gpu(node)->loc.busid, TOPO_BUSID_LEN, "0000:18:00.0");
    node->gpus_listed = 1;
    if (write_file(path, "nvbandwidth Version: v0.8\nDevice 0: NVIDIA H100 80GB HBM3 "
                         "(00000000:19:00)\n\nRunning host_to_device_memcpy_ce.\n"
                         "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
                         "           0\n 0     55.1\n") == 0) {
        ok(topo_nvbandwidth_read(node, path, &err) < 0 && strstr(err.text, ":2:") &&
               strstr(err.text, "gpu0 (0000:19:00.0) is not among the node's GPUs"),
           "a capture's GPU at an address the node does not have: refused (%s)", err.text);
        /* the same GPU at the node's address is matched (a new file: the first goes) */
        unlink(path);
        write_file(path, "nvbandwidth Version: v0.8\nDevice 0: NVIDIA H100 80GB HBM3 "
                         "(00000000:18:00)\n\nRunning host_to_device_memcpy_ce.\n"
                         "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
                         "           0\n 0     40.1\n");
        ok(topo_nvbandwidth_read(node, path, &err) == 0 && node->nbw == 1 &&
               node->bw[0]->node_gpu[0] == 0,
           "the capture's GPU at the node's address is the node's gpu0");
        judge(node, NULL, &j);
        is_str(j.fails, "gpu.pcie.bw node/gpu0", "40.1 GB/s H2D on an H100 (Gen5 x16) fails");
        unlink(path);
    } else
        ok(0, "cannot write a file");
    topo_node_destroy(node);
}

/* ---- the rules at their edges, on recorded values ---- */

static struct topo_node *synthetic(const char *model, int ngpus)
{
    struct topo_node *node = topo_node_create();
    struct topo_bw_capture *c = topo_bw_capture_new("/recorded", "test");

    for (int i = 0; i < ngpus; i++) {
        topo_bw_capture_gpu(c, i);
        c->model[i] = model ? xstrdup(model) : NULL;
    }
    node->bw = xcalloc(1, sizeof(*node->bw));
    node->bw[0] = c;
    node->nbw = 1;
    return node;
}

static void put(struct topo_node *node, enum topo_bw_kind k, int a, int b, double v,
                const char *group)
{
    struct topo_bw x = { .kind = k, .a = a, .b = b, .value = v, .line = 1 };

    x.group = topo_bw_capture_group(node->bw[0], group);
    topo_bw_capture_add(node->bw[0], &x);
}

/* the node's topology lists the capture's one GPU, on its own PCIe link of GEN and WIDTH (0:
 * none given) */
static struct topo_gpu *listed_gpu(struct topo_node *n, int gen, int width)
{
    struct topo_gpu *g = topo_node_add_gpu(n);

    g->loc.up = -1;
    snprintf(g->loc.busid, TOPO_BUSID_LEN, "0008:06:00.0");
    g->link.cur_gen = g->link.max_gen = gen;
    g->link.cur_width = g->link.max_width = width;
    n->bw[0]->node_gpu[0] = 0;
    n->gpus_listed = 1;
    return g;
}

/* two GPUs of a model, listed by the node's topology, sharing LINKS NVLinks (12) */
static struct topo_node *nvlinked_by(const char *model, int links)
{
    struct topo_node *n = synthetic(NULL, 2);

    for (int i = 0; i < 2; i++) {
        struct topo_gpu *g = topo_node_add_gpu(n);
        g->index = i;
        g->model = xstrdup(model);
        snprintf(g->loc.busid, TOPO_BUSID_LEN, "0000:%02x:00.0", 0x10 + i);
        n->bw[0]->node_gpu[i] = i;
    }
    n->gpus_listed = 1;
    if (links > 0)
        topo_node_add_nvlink(n, "0000:10:00.0", "0000:11:00.0", links);
    return n;
}

static struct topo_node *nvlinked(const char *model)
{
    return nvlinked_by(model, 12);
}

/* two GPUs of a model, listed, without NVLink, each on its own Gen1 x1 link (0.25 GB/s) */
static struct topo_node *gen1_pair(const char *model)
{
    struct topo_node *n = nvlinked_by(model, 0);

    for (int i = 0; i < 2; i++) {
        n->gpus[i].loc.up = -1;
        n->gpus[i].link.cur_gen = n->gpus[i].link.max_gen = 1;
        n->gpus[i].link.cur_width = n->gpus[i].link.max_width = 1;
    }
    return n;
}

/* a peer figure of gpu0->gpu1 that has no bound to be judged by: neither failed nor passed,
 * and said so */
static void unbounded_pair(struct topo_node *n, double v, const char *why)
{
    struct judged j;

    put(n, TOPO_BW_P2P, 0, 1, v, "p2p");
    judge(n, NULL, &j);
    ok(j.nfail + j.nok == 0 && j.nunjudged == 1, "%s", why);
    topo_node_destroy(n);
}

static void rules(void)
{
    struct topo_node *n;
    struct judged j;
    struct map_thresholds th;

    topo_map_thresholds_unset(&th);
    th.h2d_gbps = 50;
    /* (a) the host link's bound: A100 is Gen4 x16 (31.5 GB/s), floor 0.70: 22.05 */
    n = synthetic("NVIDIA A100-SXM4-40GB", 1);
    put(n, TOPO_BW_H2D, 0, -1, 22.1, "h2d");
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1, "A100 H2D 22.1 GB/s: above 0.70 x 31.5 (passes)");
    n->bw[0]->v[0].value = 22.0;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu0", "A100 H2D 22.0 GB/s: below 0.70 x 31.5 (fails)");
    /* peer access of GPUs the capture does not have: unknown (-1), whichever side */
    {
        struct topo_node *t = synthetic("NVIDIA A100-SXM4-40GB", 2);
        const struct topo_bw_capture *c = t->bw[0];
        for (int k = 0; k < 4; k++)
            t->bw[0]->peer[k] = k == 0 || k == 3 ? -1 : 1; /* gpu0 <-> gpu1 known both ways */
        ok(topo_bw_peer(c, 0, 1) == 1 && topo_bw_peer(c, -1, 1) == -1 &&
               topo_bw_peer(c, 0, -1) == -1 && topo_bw_peer(c, 2, 1) == -1 &&
               topo_bw_peer(c, 0, 2) == -1,
           "peer access: gpu0 to gpu1 as recorded; -1 for a GPU out of the capture's 2");
        topo_node_destroy(t);
    }
    /* two figures of one check and GPU: the worse is the one said, whichever came first; of
     * two as bad, the first */
    {
        static const double two[][2] = {
            { 20, 30 }, { 30, 20 }, { 21, 20 }, { 20, 21 }, { 20, 20 }
        };
        for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
            struct topo_node *t = synthetic("NVIDIA A100-SXM4-40GB", 1);
            put(t, TOPO_BW_H2D, 0, -1, two[i][0], "h2d");
            put(t, TOPO_BW_D2H, 0, -1, two[i][1], "d2h");
            judge(t, NULL, &j);
            ok(j.nfail == 1 && !strncmp(j.observed, "20.0 GB/s", 9) &&
                   strstr(j.observed, two[i][0] <= two[i][1] ? "test h2d" : "test d2h") != NULL,
               "A100 H2D %g, D2H %g GB/s: one failure, of the 20: %s", two[i][0], two[i][1],
               j.observed);
            topo_node_destroy(t);
        }
    }
    n->bw[0]->v[0].kind = TOPO_BW_D2H;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu0", "... and the same for D2H");
    /* (b) the map's floor takes its place */
    judge(n, &th, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu0", "the map's h2d_gbps 50: 22.0 fails");
    n->bw[0]->v[0].value = 50.5;
    judge(n, &th, &j);
    ok(!j.nfail && j.nok == 1, "the map's h2d_gbps 50: 50.5 passes");
    /* a floor under 1 GB/s is a floor too: it, not the link's bound, judges */
    th.h2d_gbps = 0.5;
    n->bw[0]->v[0].value = 1;
    judge(n, &th, &j);
    ok(!j.nfail && j.nok == 1, "the map's h2d_gbps 0.5: 1 GB/s passes, the link's bound aside (%s)",
       j.fails);
    /* a floor of 0 in the map sets none: the link's bound judges, once */
    th.h2d_gbps = 0;
    n->bw[0]->v[0].value = 22.0;
    judge(n, &th, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu0", "the map's h2d_gbps 0: the link's bound, 22.0 fails");
    n->bw[0]->v[0].value = 22.1;
    is_str(text_of(n, &th, TOPO_SEV_OK, "gpu.pcie.bw"), "1 figure judged, 0 GPUs or pairs low",
           "the map's h2d_gbps 0: ...22.1 passes, one figure judged");
    th.h2d_gbps = 50;
    topo_node_destroy(n);

    /* NVLink-C2C: 450 GB/s each way, also where the node's topology shows the GPU on a Gen5
     * x16 PCIe link (as NCCL does a GB300's): host memory is reached over C2C, not that link */
    for (int topo = 0; topo < 2; topo++) {
        const char *how = topo ? "on a Gen5 x16 link in the topology" : "by model";
        n = synthetic("NVIDIA GB300", 1);
        if (topo)
            listed_gpu(n, 5, 16);
        put(n, TOPO_BW_H2D, 0, -1, 316, "h2d");
        judge(n, NULL, &j);
        ok(!j.nfail && j.nok == 1, "GB300 %s, H2D 316 GB/s: above 0.70 x 450 (C2C)", how);
        n->bw[0]->v[0].value = 314;
        judge(n, NULL, &j);
        ok(!strcmp(j.fails, "gpu.pcie.bw node/gpu0") && strstr(j.observed, "314") != NULL,
           "GB300 %s, H2D 314 GB/s: below 0.70 x 450 (C2C): %s", how, j.fails);
        topo_node_destroy(n);
    }
    /* a GPU of compute capability 10.3 that the topology shows with NVLink-C2C links and a Gen5
     * x16 PCIe link (NCCL's GB300): its host path is C2C, of a rate the capability does not
     * give; the capture's model, where it names one, does */
    for (int named = 0; named < 3; named++) {
        struct topo_gpu *g;
        n = synthetic(named == 1 ? "NVIDIA GB300" : NULL, 1);
        g = listed_gpu(n, 5, 16);
        g->sm = 103;
        g->c2c_links = named == 2 ? 1 : 5; /* (2: one C2C link is C2C as well) */
        put(n, TOPO_BW_H2D, 0, -1, 100, "h2d");
        judge(n, NULL, &j);
        if (named == 1)
            is_str(j.fails, "gpu.pcie.bw node/gpu0",
                   "sm 103 over C2C, the capture naming a GB300: H2D 100 GB/s below 0.70 x 450");
        else
            ok(!j.nfail && !j.nok && j.nunjudged == 1,
               "sm 103 over %d C2C link%s, no model named: H2D 100 GB/s not judged against the "
               "PCIe link (%s)",
               g->c2c_links, g->c2c_links == 1 ? "" : "s", j.fails);
        topo_node_destroy(n);
    }
    /* a model the node names is not replaced by the capture's */
    n = synthetic("NVIDIA GB300", 1);
    listed_gpu(n, 0, 0)->model = xstrdup("NVIDIA A100-SXM4-40GB");
    put(n, TOPO_BW_H2D, 0, -1, 23, "h2d");
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1,
       "the node's A100 (Gen4 x16) at H2D 23 GB/s passes, the capture's "
       "GB300 name aside (%s)",
       j.fails);
    topo_node_destroy(n);

    /* (c) siblings: no model, so only the node's own GPUs judge; 0.75 x median 26 = 19.5 */
    n = synthetic(NULL, 8);
    for (int i = 0; i < 8; i++)
        put(n, TOPO_BW_H2D, i, -1, i == 5 ? 19.6 : 26, "h2d");
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1 && j.nunjudged == 1,
       "8 GPUs at 26 GB/s and one at 19.6: within its siblings; the missing bound is said");
    n->bw[0]->v[5].value = 19.4;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu5", "... one at 19.4: below 0.75 x the median, named");
    n->bw[0]->v[5].value = 19.5;
    judge(n, NULL, &j);
    ok(!j.nfail, "... one at 19.5, 0.75 x the median exactly: passes (%s)", j.fails);
    topo_node_destroy(n);

    /* three GPUs are the fewest whose median judges */
    n = synthetic(NULL, 3);
    put(n, TOPO_BW_H2D, 0, -1, 26, "h2d");
    put(n, TOPO_BW_H2D, 1, -1, 26, "h2d");
    put(n, TOPO_BW_H2D, 2, -1, 19.4, "h2d");
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu2", "three GPUs at 26, 26 and 19.4: the third named");
    topo_node_destroy(n);

    /* two GPUs are too few to have a median that judges */
    n = synthetic(NULL, 2);
    put(n, TOPO_BW_H2D, 0, -1, 26, "h2d");
    put(n, TOPO_BW_H2D, 1, -1, 5, "h2d");
    judge(n, NULL, &j);
    ok(j.nfail + j.nok + j.nwarn == 0 && j.nunjudged == 1, "two GPUs and no bound: not judged");
    topo_node_destroy(n);

    /* NVLink pairs from the node's topology: A100 NV12 x 25 = 300, floor 0.70: 210 */
    n = nvlinked("NVIDIA A100-SXM4-80GB");
    put(n, TOPO_BW_P2P, 0, 1, 211, "p2p");
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok >= 1, "A100 NV12 pair at 211 GB/s: above 0.70 x 300");
    n->bw[0]->v[0].value = 209;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.bw node/gpu0-gpu1", "A100 NV12 pair at 209 GB/s: below 0.70 x 300");
    /* both ways at once: twice the bound, 420 */
    put(n, TOPO_BW_P2P_BIDIR, 0, 1, 421, "bidir");
    n->bw[0]->v[0].value = 211;
    judge(n, NULL, &j);
    ok(!j.nfail, "A100 NV12 pair both ways at 421 GB/s: above 0.70 x 2 x 300 (%s)", j.fails);
    n->bw[0]->v[1].value = 419;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.bw node/gpu0-gpu1",
           "A100 NV12 pair both ways at 419 GB/s: below 0.70 x 2 x 300");
    n->bw[0]->v[1].value = 421;
    /* no peer access on a pair that shares NVLinks fails; where the node's topology does not
     * list the capture's gpu1, the NVLinks are not known to be the pair's: a warning */
    n->bw[0]->node_gpu[1] = -1;
    n->bw[0]->peer[0 * 2 + 1] = 0;
    judge(n, NULL, &j);
    ok(!strstr(j.fails, "gpu.p2p.access") && strstr(j.warns, "gpu.p2p.access node/gpu0-gpu1"),
       "no peer access, gpu1 not the node's: a warning, not a failure (%s; %s)", j.fails, j.warns);
    n->bw[0]->node_gpu[1] = 1;
    n->bw[0]->peer[0 * 2 + 1] = 0;
    n->bw[0]->peer[1 * 2 + 0] = 1;
    judge(n, NULL, &j);
    ok(strstr(j.fails, "gpu.p2p.access node/gpu0-gpu1") != NULL,
       "no peer access on a pair with NVLinks fails gpu.p2p.access");
    topo_node_destroy(n);
    /* a listed pair without peer access: with one NVLink it fails, with none a warning */
    for (int links = 0; links <= 1; links++) {
        n = nvlinked_by("NVIDIA A100-SXM4-40GB", links);
        topo_bw_capture_gpu(n->bw[0], 1);
        n->bw[0]->peer[0 * 2 + 1] = n->bw[0]->peer[1 * 2 + 0] = 0;
        judge(n, NULL, &j);
        ok(links ? strstr(j.fails, "gpu.p2p.access node/gpu0-gpu1") != NULL
                 : !strstr(j.fails, "gpu.p2p.access") &&
                       strstr(j.warns, "gpu.p2p.access node/gpu0-gpu1"),
           "no peer access on a listed pair of %d NVLink%s: %s (%s; %s)", links, links ? "" : "s",
           links ? "fails" : "a warning", j.fails, j.warns);
        topo_node_destroy(n);
    }

    /* NVLinks in the node's topology between GPUs of a model railyard has no reference for:
     * no bound (never a bound of zero links' speed, nor a read of a missing reference) */
    unbounded_pair(nvlinked("NVIDIA Made-Up X1"), 1,
                   "an NV12 pair of an unknown model at 1 GB/s: no bound, not judged, said so");

    /* the figures said to lack a bound are the host, NIC and peer copies; a copy within a GPU
     * has none to lack */
    n = synthetic(NULL, 1);
    put(n, TOPO_BW_LOCAL, 0, -1, 900, "local");
    judge(n, NULL, &j);
    ok(j.nunjudged == 0, "a copy within a GPU alone: no 'no link bound' note (%zu)", j.nunjudged);
    topo_node_destroy(n);
    n = synthetic(NULL, 2);
    put(n, TOPO_BW_P2P_BIDIR, 0, 1, 90, "bidir");
    put(n, TOPO_BW_LOCAL, 0, -1, 900, "local");
    judge(n, NULL, &j);
    ok(j.nunjudged == 1, "a pair's bidirectional copy and a local one: the pair's note only (%zu)",
       j.nunjudged);
    topo_node_destroy(n);

    /* two GPUs on Gen1 x1 links and no NVLink: a peer copy both ways is bound by twice the
     * slower link, 0.5 GB/s, floor 0.50: 0.25 (a bound under 1 GB/s is doubled too) */
    n = gen1_pair("NVIDIA A100-SXM4-80GB");
    put(n, TOPO_BW_P2P_BIDIR, 0, 1, 0.26, "bidir");
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1, "a pair both ways at 0.26 GB/s over Gen1 x1 links: passes (%s)",
       j.fails);
    n->bw[0]->v[0].value = 0.2;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.bw node/gpu0-gpu1", "...at 0.2 GB/s: below 0.50 x 2 x 0.25, fails");
    topo_node_destroy(n);

    /* a host link below 1 GB/s is still a bound: Gen1 x1 (0.25 GB/s), floor 0.70: 0.175 */
    n = synthetic(NULL, 1);
    listed_gpu(n, 1, 1);
    put(n, TOPO_BW_H2D, 0, -1, 0.1, "h2d");
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu0", "H2D 0.1 GB/s on a Gen1 x1 link: below 0.70 x 0.25");
    is_str(j.expected, ">= 0.2 GB/s (0.70 x 0.2 GB/s: gpu0's own link, Gen1 x1)",
           "... the link named with its generation and width");
    n->bw[0]->v[0].value = 0.2;
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1, "H2D 0.2 GB/s on a Gen1 x1 link: above 0.70 x 0.25");
    topo_node_destroy(n);

    /* the host path capped by the first bridge above the GPU (hwloc gives its rate alone): the
     * bridge is named, with a generation and width only where both are known */
    for (int gen = 0; gen < 2; gen++) {
        struct topo_gpu *g;
        int b;
        n = synthetic(NULL, 1);
        g = listed_gpu(n, gen ? 5 : 0, gen ? 0 : 16);
        b = topo_node_add_bridge(n, "0000:00:01.0", -1);
        n->bridges[b].link.cur_gbytes = 8;
        g->loc.up = b;
        put(n, TOPO_BW_H2D, 0, -1, 5, "h2d");
        judge(n, NULL, &j);
        is_str(j.expected, ">= 5.6 GB/s (0.70 x 8.0 GB/s: the link of 0000:00:01.0 above gpu0)",
               "H2D 5 GB/s under a bridge of 8 GB/s, the GPU's link %s: the bridge named",
               gen ? "Gen5 of no width" : "x16 of no generation");
        topo_node_destroy(n);
    }

    /* the NVLinks the topology gives a pair, however few: none is a PCIe pair (two H100s on
     * Gen5 x16: 0.50 x 63), one is NV1 (an A100's 25 GB/s x 0.70 = 17.5, above PCIe's 15.75) */
    {
        static const struct {
            const char *model, *bound;
            int links;
            double v;
        } few[] = { { "NVIDIA H100 80GB HBM3",
                      "(0.50 x 63.0 GB/s: PCIe: gpu0's own link, Gen5 x16)", 0, 31 },
                    { "NVIDIA A100-SXM4-80GB", "NV1 of 25", 1, 16 } };
        for (size_t i = 0; i < sizeof(few) / sizeof(few[0]); i++) {
            n = nvlinked_by(few[i].model, few[i].links);
            for (int g = 0; g < 2 && !few[i].links; g++) { /* each on its own Gen5 x16 link */
                n->gpus[g].loc.up = -1;
                n->gpus[g].link.cur_gen = n->gpus[g].link.max_gen = 5;
                n->gpus[g].link.cur_width = n->gpus[g].link.max_width = 16;
            }
            put(n, TOPO_BW_P2P, 0, 1, few[i].v, "p2p");
            judge(n, NULL, &j);
            ok(!strcmp(j.fails, "gpu.p2p.bw node/gpu0-gpu1") && strstr(j.expected, few[i].bound),
               "%s pair on %d NVLinks at %g GB/s: below the %s bound (%s)", few[i].model,
               few[i].links, few[i].v, few[i].bound, j.expected);
            topo_node_destroy(n);
        }
    }

    /* a GPU low against its siblings: on a link as fast as its model's the hint is not that a
     * link caps it; on a link below 0.9 of its model's (half: Gen4 x8; under 1 GB/s: Gen3 x1)
     * it names that link */
    {
        static const struct {
            int gen, width;
            double v;
            int capped;
            const char *what;
        } on[] = {
            { 4, 16, 22.1, 0, "its full Gen4 x16 link" },
            { 4, 8, 14.0, 1, "a Gen4 x8 link (half its model's)" },
            { 3, 1, 0.9, 1, "a Gen3 x1 link (0.98 GB/s)" },
        };
        for (size_t k = 0; k < sizeof(on) / sizeof(on[0]); k++) {
            n = synthetic("NVIDIA A100-SXM4-40GB", 4);
            for (int i = 0; i < 4; i++) {
                struct topo_gpu *g = topo_node_add_gpu(n);
                g->model = xstrdup("NVIDIA A100-SXM4-40GB");
                g->loc.up = -1;
                snprintf(g->loc.busid, TOPO_BUSID_LEN, "0000:%02x:00.0", 0x10 + i);
                g->link.cur_gen = g->link.max_gen = i == 3 ? on[k].gen : 4;
                g->link.cur_width = g->link.max_width = i == 3 ? on[k].width : 16;
                n->bw[0]->node_gpu[i] = i;
                put(n, TOPO_BW_H2D, i, -1, i == 3 ? on[k].v : 30, "h2d");
            }
            n->gpus_listed = 1;
            judge(n, NULL, &j);
            ok(!strcmp(j.fails, "gpu.pcie.bw node/gpu3") &&
                   (on[k].capped ? strstr(j.hint, "its host path is capped by") != NULL
                                 : strstr(j.hint, "well below the node's other") &&
                                       !strstr(j.hint, "capped")),
               "gpu3 at %g of 30 on %s: low against its siblings, %s (%s)", on[k].v, on[k].what,
               on[k].capped ? "the link named" : "no link blamed", j.hint);
            topo_node_destroy(n);
        }
    }

    /* a PCIe pair on Gen1 x1 links (0.25 GB/s): still bounded, 0.50 x 0.25 */
    n = gen1_pair("NVIDIA GeForce RTX 4090");
    put(n, TOPO_BW_P2P, 0, 1, 0.1, "p2p");
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.bw node/gpu0-gpu1",
           "an RTX 4090 pair on Gen1 x1 links at 0.1 GB/s: "
           "below 0.50 x 0.25");
    topo_node_destroy(n);
    /* a pair of which one GPU's model is unknown, or an NVLink part beside a PCIe one: from the
     * capture alone, no bound */
    n = synthetic("NVIDIA GeForce RTX 4090", 2);
    free(n->bw[0]->model[1]);
    n->bw[0]->model[1] = NULL;
    unbounded_pair(n, 1, "an RTX 4090 and a GPU of no model named: no bound");
    n = synthetic("NVIDIA GeForce RTX 4090", 2);
    free(n->bw[0]->model[1]);
    n->bw[0]->model[1] = xstrdup("NVIDIA H100 80GB HBM3");
    unbounded_pair(n, 1, "an RTX 4090 beside an H100 from a capture alone: no bound");
    ok(topo_bw_median(NULL, 0) < 0, "the median of nothing is -1");

    /* the node's median of peer figures (copies, both ways, latencies) is of the pairs with
     * peer access: gpu5's ten pairs without it, at host memory's rate, are neither in it nor
     * judged by it */
    {
        static const struct {
            enum topo_bw_kind kind;
            double peer, none;
        } kinds[] = { { TOPO_BW_P2P, 360, 20 },
                      { TOPO_BW_P2P_BIDIR, 700, 40 },
                      { TOPO_BW_P2P_LATENCY, 3, 20 } };
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
            n = synthetic(NULL, 6);
            for (int a = 0; a < 6; a++)
                for (int b = 0; b < 6; b++) {
                    if (a == b)
                        continue;
                    n->bw[0]->peer[a * 6 + b] = a < 5 && b < 5;
                    put(n, kinds[k].kind, a, b, a < 5 && b < 5 ? kinds[k].peer : kinds[k].none,
                        "peer");
                }
            judge(n, NULL, &j);
            is_str(j.fails, "",
                   "20 pairs with peer access at %g, gpu5's 10 without at %g: no "
                   "figure judged low or high",
                   kinds[k].peer, kinds[k].none);
            topo_node_destroy(n);
        }
    }

    /* PCIe pairs by reference: RTX 4090 Gen4 x16, floor 0.50: 15.75 */
    n = synthetic("NVIDIA GeForce RTX 4090", 2);
    put(n, TOPO_BW_P2P, 0, 1, 15.8, "p2p");
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1, "RTX 4090 pair at 15.8 GB/s: above 0.50 x 31.5");
    n->bw[0]->v[0].value = 15.7;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.bw node/gpu0-gpu1", "RTX 4090 pair at 15.7 GB/s: below 0.50 x 31.5");
    topo_node_destroy(n);

    /* an NVLink part from the capture alone: the pair's links are unknown, not assumed */
    unbounded_pair(
        synthetic("NVIDIA H100 80GB HBM3", 2), 150,
        "H100 pair from a capture alone: no bound assumed (a 4-GPU board has NV6 pairs)");

    /* a capture numbers its GPUs its own way: a finding names the node's GPU (the capture's
     * gpu0 is the node's gpu1 and the other way round) */
    n = synthetic("NVIDIA A100-SXM4-40GB", 2);
    for (int i = 0; i < 2; i++)
        topo_node_add_gpu(n)->model = xstrdup("NVIDIA A100-SXM4-40GB");
    n->bw[0]->node_gpu[0] = 1;
    n->bw[0]->node_gpu[1] = 0;
    n->gpus_listed = 1;
    put(n, TOPO_BW_H2D, 0, -1, 10, "h2d");
    put(n, TOPO_BW_H2D, 1, -1, 25, "h2d");
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu1", "the capture's gpu0 low: the node's gpu1 is named");
    n->bw[0]->v[0].value = 25;
    n->bw[0]->v[1].value = 10;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.pcie.bw node/gpu0", "the capture's gpu1 low: the node's gpu0 is named");
    topo_node_destroy(n);

    /* peer copies against copies through host memory: 0.80 x 20 = 16 */
    n = synthetic(NULL, 2);
    put(n, TOPO_BW_P2P_HOST, 0, 1, 20, "disabled");
    put(n, TOPO_BW_P2P, 0, 1, 16.1, "enabled");
    judge(n, NULL, &j);
    ok(!j.nfail, "peer copies at 16.1 against 20 through host: passes");
    n->bw[0]->v[1].value = 15.9;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.bw node/gpu0-gpu1", "peer copies at 15.9 against 20: fails");
    /* peer access known one way only: the way that has none is said */
    n->bw[0]->peer[0 * 2 + 1] = 0;
    n->bw[0]->peer[1 * 2 + 0] = -1;
    judge(n, NULL, &j);
    is_str(j.warns, "gpu.p2p.access node/gpu0-gpu1",
           "peer access refused from gpu0, not known from gpu1: a warning");
    ok(strstr(text_of(n, NULL, TOPO_SEV_WARN, "gpu.p2p.access"), "from the lower GPU") != NULL,
       "...from the lower GPU: %s", text_of(n, NULL, TOPO_SEV_WARN, "gpu.p2p.access"));
    n->bw[0]->peer[0 * 2 + 1] = 1;
    n->bw[0]->peer[1 * 2 + 0] = 0;
    ok(strstr(text_of(n, NULL, TOPO_SEV_WARN, "gpu.p2p.access"), "from the higher GPU") != NULL,
       "...refused from gpu1, granted from gpu0: from the higher GPU: %s",
       text_of(n, NULL, TOPO_SEV_WARN, "gpu.p2p.access"));
    n->bw[0]->peer[1 * 2 + 0] = -1;
    n->bw[0]->peer[0 * 2 + 1] = 1;
    is_str(text_of(n, NULL, TOPO_SEV_OK, "gpu.p2p.access"), "1 figure judged, 0 GPUs or pairs low",
           "...granted from gpu0, not known from gpu1: judged, fine");
    n->bw[0]->peer[0 * 2 + 1] = -1;
    n->bw[0]->peer[1 * 2 + 0] = 0;
    ok(strstr(text_of(n, NULL, TOPO_SEV_WARN, "gpu.p2p.access"), "from the higher GPU") != NULL,
       "...refused from gpu1, not known from gpu0: from the higher GPU: %s",
       text_of(n, NULL, TOPO_SEV_WARN, "gpu.p2p.access"));
    n->bw[0]->peer[1 * 2 + 0] = -1;
    n->bw[0]->v[1].value = 15.9;
    n->bw[0]->v[1].value = 16;
    judge(n, NULL, &j);
    ok(!j.nfail, "peer copies at 16, 0.80 x 20 exactly: passes (%s)", j.fails);
    topo_node_destroy(n);

    /* latency: the ceiling, and the siblings (3 x median, at least median + 5 us) */
    n = synthetic(NULL, 2);
    put(n, TOPO_BW_P2P_HOST_LATENCY, 0, 1, 999, "lat");
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1, "one pair at 999 us: under the 1000 us ceiling");
    n->bw[0]->v[0].value = 1001;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.latency node/gpu0-gpu1", "one pair at 1001 us: over the ceiling");
    n->bw[0]->v[0].value = 1000;
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1, "one pair at 1000 us, the ceiling exactly: passes (%s)", j.fails);
    topo_node_destroy(n);
    n = synthetic(NULL, 4);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            if (a != b)
                put(n, TOPO_BW_P2P_LATENCY, a, b, a == 2 && b == 3 ? 8.9 : 3, "lat");
    judge(n, NULL, &j);
    ok(!j.nfail, "12 pairs at 3 us and one at 8.9: under max(3 x 3, 3 + 5)");
    for (size_t i = 0; i < n->bw[0]->n; i++)
        if (n->bw[0]->v[i].a == 2 && n->bw[0]->v[i].b == 3)
            n->bw[0]->v[i].value = 9.1;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.latency node/gpu2-gpu3", "... and one at 9.1: over 3 x the median");
    /* a median under 1 us judges too: 11 pairs at 0.5 us, one at 5.6 (over the median + 5) */
    for (size_t i = 0; i < n->bw[0]->n; i++)
        n->bw[0]->v[i].value = n->bw[0]->v[i].a == 2 && n->bw[0]->v[i].b == 3 ? 5.6 : 0.5;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.p2p.latency node/gpu2-gpu3",
           "11 pairs at 0.5 us and one at 5.6: over the median + 5, fails");
    /* latencies below the tool's resolution (0.00): a median of 0 judges nothing */
    for (size_t i = 0; i < n->bw[0]->n; i++)
        n->bw[0]->v[i].value = n->bw[0]->v[i].a == 2 && n->bw[0]->v[i].b == 3 ? 6 : 0;
    judge(n, NULL, &j);
    ok(!j.nfail, "11 pairs at 0.00 us and one at 6: no median to judge by, passes (%s)", j.fails);
    topo_node_destroy(n);
}

/* the map's other thresholds: a local copy in bytes copied, latency ceilings */
static void map_rules(void)
{
    struct map_thresholds th;
    struct topo_node *n;
    struct judged j;

    topo_map_thresholds_unset(&th);
    th.local_gbps = 1000;
    th.l2_latency_us = 0.2;
    th.launch_latency_us = 8;
    th.p2p_latency_us = 4;
    n = synthetic(NULL, 2);
    put(n, TOPO_BW_LOCAL, 0, -1, 1010, "local");
    judge(n, &th, &j);
    ok(!j.nfail, "local copy 1010 GB/s against the map's local_gbps 1000: passes");
    n->bw[0]->v[0].value = 990;
    judge(n, &th, &j);
    is_str(j.fails, "gpu.mem.bw node/gpu0", "local copy 990 GB/s: fails");
    ok(j.nok == 0, "...and the check has no passing finding beside it (%zu)", j.nok);
    ok(strstr(j.hint, "below what the map's golden node measured for this node type") &&
           !strstr(j.hint, "read and written"),
       "...the hint: below the golden node's figure, nothing of bytes counted twice (%s)", j.hint);
    n->bw[0]->v[0].value = 1000;
    judge(n, &th, &j);
    ok(!j.nfail, "local copy at the map's 1000 GB/s exactly: passes (%s)", j.fails);
    n->bw[0]->v[0].value = 1990;
    n->bw[0]->v[0].counts_rw = 1;
    judge(n, &th, &j);
    is_str(j.fails, "gpu.mem.bw node/gpu0",
           "1990 GB/s counted read + written is 995 copied: fails against 1000");
    ok(strstr(j.hint, "counts a local copy's bytes read and written") != NULL,
       "...the hint says the tool counts a local copy's bytes read and written (%s)", j.hint);
    n->bw[0]->v[0].value = 2010;
    judge(n, &th, &j);
    ok(!j.nfail, "2010 GB/s counted read + written is 1005 copied: passes");
    topo_node_destroy(n);

    /* host copies on a node whose links are not listed: a map's floor judges them, under 1 GB/s
     * too; a floor of 0 judges nothing, and the figure is listed as not judged (no bound) */
    {
        static const struct {
            double floor;
            size_t nok, nunjudged;
        } h[] = { { 0.5, 1, 0 }, { 0, 0, 1 } };
        for (size_t k = 0; k < sizeof(h) / sizeof(h[0]); k++) {
            struct map_thresholds hth;
            topo_map_thresholds_unset(&hth);
            hth.h2d_gbps = h[k].floor;
            n = synthetic(NULL, 1);
            put(n, TOPO_BW_H2D, 0, -1, 0.6, "h2d");
            judge(n, &hth, &j);
            ok(!j.nfail && j.nok == h[k].nok && j.nunjudged == h[k].nunjudged,
               "host copy 0.6 GB/s, the map's h2d_gbps %g: %zu judged, %zu not (%zu, %zu)",
               h[k].floor, h[k].nok, h[k].nunjudged, j.nok, j.nunjudged);
            topo_node_destroy(n);
        }
    }

    n = synthetic(NULL, 2);
    put(n, TOPO_BW_L2_LATENCY, 0, -1, 0.19, "l2");
    put(n, TOPO_BW_LAUNCH_LATENCY, 1, -1, 7.9, "launch");
    put(n, TOPO_BW_P2P_LATENCY, 0, 1, 3.9, "p2p latency");
    judge(n, &th, &j);
    ok(!j.nfail, "latencies under the map's ceilings pass");
    n->bw[0]->v[0].value = 0.21;
    n->bw[0]->v[1].value = 8.1;
    n->bw[0]->v[2].value = 4.1;
    judge(n, &th, &j);
    is_str(j.fails,
           "gpu.l2.latency node/gpu0;gpu.launch.latency node/gpu1;gpu.p2p.latency node/gpu0-gpu1",
           "each latency over its ceiling fails its own check");
    n->bw[0]->v[0].value = 0.2;
    n->bw[0]->v[1].value = 8;
    n->bw[0]->v[2].value = 4;
    judge(n, &th, &j);
    ok(!j.nfail, "each latency at its ceiling exactly passes (%s)", j.fails);
    n->bw[0]->v[1].value = 8.1;
    judge(n, &th, &j);
    ok(strstr(j.hint, "above what the map's golden node measured for this node type") != NULL,
       "a latency over its ceiling: above what the golden node measured (%s)", j.hint);
    /* a pair without peer access goes through the host: not the peer ceiling's */
    topo_bw_capture_gpu(n->bw[0], 1);
    n->bw[0]->peer[0 * 2 + 1] = n->bw[0]->peer[1 * 2 + 0] = 0;
    n->bw[0]->v[0].value = 0.1;
    n->bw[0]->v[1].value = 1;
    judge(n, &th, &j);
    ok(!strstr(j.fails, "gpu.p2p.latency"),
       "a pair without peer access: the peer ceiling does not judge it");
    topo_node_destroy(n);
}

/* host<->GPU and memory latencies: the node's own GPUs (three times the median and the median
 * plus 5 us, whichever is higher), the map's ceiling, the millisecond no healthy path takes */
static void latency_rules(void)
{
    static const struct {
        double med, v;
        const char *fails, *what;
    } sib[] = {
        { 2, 6.9, "",
          "median 2 us, 6.9: above 3 x the median, under the median + 5 (binding): passes" },
        { 2, 7.1, "gpu.pcie.latency node/gpu3", "median 2 us, 7.1: over the median + 5: fails" },
        { 4, 11.9, "",
          "median 4 us, 11.9: above the median + 5, under 3 x the median (binding): passes" },
        { 4, 12.1, "gpu.pcie.latency node/gpu3", "median 4 us, 12.1: over 3 x the median: fails" },
        { 2, 7, "", "median 2 us, 7: at the median + 5 exactly: passes" },
        { 4, 12, "", "median 4 us, 12: at 3 x the median exactly: passes" },
    };
    struct map_thresholds th;
    struct topo_node *n;
    struct judged j;

    for (size_t k = 0; k < sizeof(sib) / sizeof(sib[0]); k++) {
        n = synthetic(NULL, 4);
        for (int g = 0; g < 4; g++)
            put(n, TOPO_BW_HOST_LATENCY, g, -1, g == 3 ? sib[k].v : sib[k].med, "host latency");
        judge(n, NULL, &j);
        is_str(j.fails, sib[k].fails, "host latency: %s", sib[k].what);
        topo_node_destroy(n);
    }
    /* one GPU: no siblings; the millisecond is the ceiling */
    n = synthetic(NULL, 1);
    put(n, TOPO_BW_MEM_LATENCY, 0, -1, 999, "mem latency");
    judge(n, NULL, &j);
    is_str(j.fails, "", "memory latency 999 us on a lone GPU: under the millisecond, passes");
    n->bw[0]->v[0].value = 1001;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.mem.latency node/gpu0",
           "memory latency 1001 us: over the millisecond, fails");
    /* over the millisecond, the hint says where to look: a copy staged through host memory (a
     * pair without peer access) at the destination's host path, a peer path at both links */
    {
        static const struct {
            enum topo_bw_kind kind;
            const char *fails, *hint;
        } ms[] = {
            { TOPO_BW_P2P_HOST_LATENCY, "gpu.p2p.latency node/gpu0-gpu1",
              "a copy staged through host memory takes milliseconds" },
            { TOPO_BW_P2P_LATENCY, "gpu.p2p.latency node/gpu0-gpu1",
              "the path answers in milliseconds: look at both GPUs' links" },
        };
        for (size_t k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
            struct topo_node *p = synthetic(NULL, 2);
            put(p, ms[k].kind, 0, 1, 1500, "pair latency");
            judge(p, NULL, &j);
            ok(!strcmp(j.fails, ms[k].fails) && strstr(j.hint, ms[k].hint),
               "a pair's latency of 1500 us (%s): fails, the hint '%s' (%s)",
               ms[k].kind == TOPO_BW_P2P_LATENCY ? "peer" : "through host memory", ms[k].hint,
               j.hint);
            topo_node_destroy(p);
        }
    }
    /* the map's ceiling, the binding term below the millisecond */
    topo_map_thresholds_unset(&th);
    th.mem_latency_us = 0.8;
    n->bw[0]->v[0].value = 0.79;
    judge(n, &th, &j);
    is_str(j.fails, "", "memory latency 0.79 us, the map's ceiling 0.8: passes");
    n->bw[0]->v[0].value = 0.81;
    judge(n, &th, &j);
    is_str(j.fails, "gpu.mem.latency node/gpu0",
           "memory latency 0.81 us over the map's 0.8: fails");
    topo_node_destroy(n);
}

/* GPUDirect RDMA loops through a NIC: the port's rate, the host-memory loop beside it */
/* an RDMA NIC mlx5_0 with one active NDR port (400 Gb/s) */
static struct topo_nic *ndr_nic(struct topo_node *n)
{
    struct topo_nic *nic = topo_node_add_nic(n);
    struct topo_port *pt;

    nic->name = xstrdup("mlx5_0");
    nic->rdma = 1;
    pt = topo_nic_add_port(nic);
    pt->num = 1;
    pt->state = 4;
    pt->rate_gbps = 400;
    return nic;
}

static void gdr_rules(void)
{
    struct map_thresholds th;
    struct topo_node *n = synthetic(NULL, 2);
    struct topo_nic *nic;
    struct topo_bw x = { .kind = TOPO_BW_GDR, .a = 0, .b = -1, .line = 1, .nic1 = 1 };
    struct judged j;

    nic = ndr_nic(n);
    /* NDR: 50 GB/s, floor 0.75: 37.5 */
    x.value = 37.6;
    x.group = topo_bw_capture_group(n->bw[0], "gdr_loopback_write");
    topo_bw_capture_add(n->bw[0], &x);
    judge(n, NULL, &j);
    ok(!j.nfail && j.nok == 1, "GPU memory through an NDR port at 37.6 GB/s: above 0.75 x 50");
    n->bw[0]->v[0].value = 37.4;
    judge(n, NULL, &j);
    is_str(j.fails, "gpu.gdr.bw node/gpu0", "... at 37.4 GB/s: below, gpu.gdr.bw fails");
    ok(strstr(j.observed, " through mlx5_0") != NULL,
       "... the figure names the NIC it went "
       "through, the node's first and only (%s)",
       j.observed);
    /* host memory through the same port at 47: GPU memory must reach 0.80 x 47 = 37.6 */
    n->bw[0]->v[0].value = 37.5;
    x.kind = TOPO_BW_NIC_LOOP;
    x.value = 47;
    x.group = topo_bw_capture_group(n->bw[0], "nic_loopback_write_host");
    topo_bw_capture_add(n->bw[0], &x);
    judge(n, NULL, &j);
    is_str(
        j.fails, "gpu.gdr.bw node/gpu0",
        "GPU memory 37.5 against host memory's 47 through the same NIC: fails (GPUDirect slower)");
    ok(strstr(j.fails, "nic.loopback.bw") == NULL, "... and the host loop itself passes");
    n->bw[0]->v[0].value = 37.6;
    judge(n, NULL, &j);
    ok(!j.nfail, "GPU memory at 37.6, 0.80 x 47 exactly: passes (%s)", j.fails);
    n->bw[0]->v[0].value = 37.5;
    n->bw[0]->v[1].value = 30;
    judge(n, NULL, &j);
    is_str(j.fails, "nic.loopback.bw node/gpu0",
           "a host loop at 30 GB/s fails the NIC's own check; GPU memory at 37.5 passes");
    /* the fastest active port bounds the loop: a faster port that is down does not, and an
     * active 1 Gb/s port still does (0.75 x 0.125 GB/s) */
    {
        struct topo_node *t = synthetic(NULL, 1);
        struct topo_nic *m = ndr_nic(t);
        struct topo_port *q = topo_nic_add_port(m);
        struct topo_bw y = { .kind = TOPO_BW_GDR, .a = 0, .b = -1, .line = 1, .nic1 = 1 };
        q->num = 2;
        q->state = 1;
        q->rate_gbps = 800;
        m->ports[0].rate_gbps = 200; /* active: 25 GB/s, floor 18.75 */
        y.value = 20;
        y.group = topo_bw_capture_group(t->bw[0], "gdr_loopback_write");
        topo_bw_capture_add(t->bw[0], &y);
        judge(t, NULL, &j);
        ok(!j.nfail && j.nok == 1, "20 GB/s through an active 200 Gb/s port beside a down 800 "
                                   "Gb/s one: passes");
        m->ports[0].rate_gbps = 1;
        t->bw[0]->v[0].value = 0.09;
        judge(t, NULL, &j);
        is_str(j.fails, "gpu.gdr.bw node/gpu0",
               "0.09 GB/s through an active 1 Gb/s port: below "
               "0.75 x 0.125");
        topo_node_destroy(t);
    }
    /* a figure through no NIC (0) or one the node lacks (2) has no port to bound it */
    for (int k = 0; k <= 2; k += 2) {
        struct topo_node *t = synthetic(NULL, 1);
        struct topo_bw y = { .kind = TOPO_BW_GDR, .a = 0, .b = -1, .line = 1, .nic1 = k };
        ndr_nic(t);
        y.value = 1;
        y.group = topo_bw_capture_group(t->bw[0], "gdr_loopback_write");
        topo_bw_capture_add(t->bw[0], &y);
        judge(t, NULL, &j);
        ok(!j.nfail && j.nunjudged == 1, "GPU memory at 1 GB/s through NIC %d of 1: no bound", k);
        topo_node_destroy(t);
    }
    /* the map's gdr_bw_gbps takes the place of the port's rate */
    n->bw[0]->v[0].value = 36;
    n->bw[0]->v[1].value = 37;
    topo_map_thresholds_unset(&th);
    th.gdr_bw_gbps = 35;
    judge(n, &th, &j);
    is_str(j.fails, "nic.loopback.bw node/gpu0",
           "the map's gdr_bw_gbps 35: GPU memory at 36 passes (the port's 37.5 does not judge it)");
    /* a software RDMA device: no bound */
    free(nic->name);
    nic->name = xstrdup("rxe_a0");
    n->bw[0]->v[0].value = 1;
    n->bw[0]->v[1].value = 1.1;
    judge(n, NULL, &j);
    ok(!j.nfail && j.nunjudged == 1,
       "through a Soft-RoCE port: nothing judged against its rate, said so");
    topo_node_destroy(n);
}

/* a golden node's figures as the map's thresholds */
static void golden(void)
{
    struct map_thresholds th;
    struct topo_node *n;
    char warn[512];

    n = synthetic(NULL, 8);
    for (int i = 0; i < 8; i++) {
        put(n, TOPO_BW_H2D, i, -1, 27, "h2d");
        put(n, TOPO_BW_D2H, i, -1, i == 6 ? 20 : 26, "d2h");
        put(n, TOPO_BW_L2_LATENCY, i, -1, 0.12, "l2");
        put(n, TOPO_BW_LOCAL, i, -1, 3000, "local");
    }
    n->bw[0]->v[n->bw[0]->n - 1].counts_rw = 1;
    topo_map_thresholds_unset(&th);
    th.rail_bw_gbps = 7;
    is_int(topo_bw_golden(n, &th, warn, sizeof(warn)), 2,
           "gpu6's D2H 20 and gpu7's local copy counted twice lie beyond what the node sets");
    ok(fabs(th.h2d_gbps - 22.1) < 1e-9,
       "h2d_gbps: 0.85 x the slower test's median (D2H 26, not H2D 27), rounded down (22.1)");
    ok(fabs(th.l2_latency_us - 0.18) < 1e-9, "l2_latency_us: 1.5 x the median 0.12 (0.18)");
    ok(fabs(th.local_gbps - 2550) < 1e-9, "local_gbps: 0.85 x the median 3000 (2550)");
    ok(th.nvlink_pair_gbps < 0 && th.launch_latency_us < 0, "quantities not measured stay unset");
    is_int((int)th.rail_bw_gbps, 7, "a threshold set before is kept");
    ok(strstr(warn, "line 1: gpu6 d2h 20.00 is beyond the map's h2d_gbps 22.10") != NULL,
       "the warning names the GPU, the test, the figure and the floor");
    topo_node_destroy(n);

    /* peer copies: only pairs with peer access count; a ceiling rounds up */
    n = synthetic(NULL, 3);
    topo_bw_capture_gpu(n->bw[0], 2);
    n->bw[0]->peer[0 * 3 + 2] = n->bw[0]->peer[2 * 3 + 0] = 0;
    put(n, TOPO_BW_P2P, 0, 1, 360, "p2p");
    put(n, TOPO_BW_P2P, 1, 2, 370, "p2p");
    put(n, TOPO_BW_P2P, 0, 2, 20, "p2p");
    put(n, TOPO_BW_P2P_LATENCY, 0, 1, 2.001, "p2p latency");
    topo_map_thresholds_unset(&th);
    is_int(topo_bw_golden(n, &th, warn, sizeof(warn)), 0,
           "a pair without peer access is no outlier");
    ok(fabs(th.nvlink_pair_gbps - 310.2) < 1e-9,
       "nvlink_pair_gbps: 0.85 x 365 (310.25) down to 310.2");
    ok(fabs(th.p2p_latency_us - 3.01) < 1e-9, "p2p_latency_us: 1.5 x 2.001 (3.0015) up to 3.01");
    topo_node_destroy(n);

    /* a figure exactly at the floor or ceiling it sets is no outlier; a pair is named as one,
     * its second GPU gpu0 included */
    n = synthetic(NULL, 4);
    for (int i = 0; i < 4; i++) {
        put(n, TOPO_BW_H2D, i, -1, i == 3 ? 8.5 : 10, "h2d");
        put(n, TOPO_BW_L2_LATENCY, i, -1, i == 3 ? 3 : 2, "l2");
    }
    topo_map_thresholds_unset(&th);
    is_int(topo_bw_golden(n, &th, warn, sizeof(warn)), 0,
           "H2D 8.5 at the floor 0.85 x 10 and L2 3 us at the ceiling 1.5 x 2: no outliers");
    ok(fabs(th.h2d_gbps - 8.5) < 1e-9 && fabs(th.l2_latency_us - 3) < 1e-9,
       "... the floor 8.5 and the ceiling 3");
    topo_node_destroy(n);
    n = synthetic(NULL, 2);
    put(n, TOPO_BW_P2P, 0, 1, 370, "p2p");
    put(n, TOPO_BW_P2P, 1, 0, 100, "p2p");
    put(n, TOPO_BW_P2P, 0, 1, 360, "p2p");
    topo_map_thresholds_unset(&th);
    is_int(topo_bw_golden(n, &th, warn, sizeof(warn)), 1, "one pair's figure below 0.85 x 360");
    ok(strstr(warn, ": gpu1->gpu0 ") != NULL, "the warning names the pair gpu1->gpu0 (%s)", warn);
    topo_node_destroy(n);

    /* a test whose figures are all 0 (copies that moved nothing) sets no floor: the other test
     * does; of two tests' latencies below 1 us, the higher ceiling, whichever came first; no
     * outlier leaves the warning empty, whatever it held */
    n = synthetic(NULL, 3);
    for (int i = 0; i < 3; i++) {
        put(n, TOPO_BW_H2D, i, -1, 0, "h2d");
        put(n, TOPO_BW_D2H, i, -1, 10, "d2h");
        put(n, TOPO_BW_L2_LATENCY, i, -1, 0.2, "l2 a");
        put(n, TOPO_BW_L2_LATENCY, i, -1, 0.12, "l2 b");
    }
    topo_map_thresholds_unset(&th);
    snprintf(warn, sizeof(warn), "left from before");
    topo_bw_golden(n, &th, warn, sizeof(warn));
    ok(fabs(th.h2d_gbps - 8.5) < 1e-9,
       "h2d_gbps from the D2H test (8.5), not the test of zeros (%g)", th.h2d_gbps);
    ok(fabs(th.l2_latency_us - 0.3) < 1e-9, "l2_latency_us 1.5 x 0.2, the higher (%g)",
       th.l2_latency_us);
    topo_node_destroy(n);
    n = synthetic(NULL, 3);
    for (int i = 0; i < 3; i++)
        put(n, TOPO_BW_H2D, i, -1, 10, "h2d");
    topo_map_thresholds_unset(&th);
    snprintf(warn, sizeof(warn), "left from before");
    is_int(topo_bw_golden(n, &th, warn, sizeof(warn)), 0, "three GPUs at 10: no outlier");
    is_str(warn, "", "... and the warning is empty");
    topo_node_destroy(n);

    /* a floor that rounds down to 0 is none, and a threshold of a quantity not measured is kept;
     * six outliers: counted, four named */
    n = synthetic(NULL, 14);
    for (int i = 0; i < 14; i++) {
        put(n, TOPO_BW_H2D, i, -1, 0.05, "h2d");
        put(n, TOPO_BW_LOCAL, i, -1, i < 8 ? 3000 : 100, "local");
    }
    topo_map_thresholds_unset(&th);
    th.p2p_latency_us = 7;
    is_int(topo_bw_golden(n, &th, warn, sizeof(warn)), 6,
           "six local copies of 14 below 0.85 x the median: six outliers");
    ok(th.h2d_gbps < 0, "h2d_gbps: 0.85 x 0.05 rounds down to 0: no floor (%g)", th.h2d_gbps);
    ok(fabs(th.p2p_latency_us - 7) < 1e-9, "p2p_latency_us, not measured, kept (%g)",
       th.p2p_latency_us);
    {
        int lines = *warn ? 1 : 0;
        for (const char *p = warn; (p = strchr(p, '\n')); p++)
            lines++;
        is_int(lines, 4, "the warning names four of them");
    }
    topo_node_destroy(n);
}

int main(void)
{
    const char *shared = getenv("RAILYARD_SHARED_FIXTURES"), *src = getenv("RAILYARD_SRCDIR");

    if (shared)
        snprintf(fixdir, sizeof(fixdir), "%s/gpu-bandwidth", shared);
    else
        snprintf(fixdir, sizeof(fixdir), "%s/../shared/fixtures/gpu-bandwidth", src ? src : ".");
    fixtures();
    bad_input();
    reader_edges();
    rules();
    map_rules();
    latency_rules();
    gdr_rules();
    golden();
    return done_testing();
}
