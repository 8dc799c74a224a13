#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "fabric/port_counters.h"
#include "fabric/verbs.h"
#include "tests/tap/tap.h"

/* The verbs transport's device-free parts: window accounting, the meaning given to completion
 * statuses and errnos, and RDMA port counters read from a real mlx5 port's sysfs files. */

static void test_window(void)
{
    struct fabric_window w;
    int slots[64], seen[64] = { 0 }, qp, bad = 0, over = 0;
    uint64_t ids[64];

    fabric_window_init(&w, 3, 4);
    for (int i = 0; i < 12; i++) {
        qp = fabric_window_pick(&w);
        if (qp < 0)
            break;
        ids[i] = fabric_window_post(&w, qp, &slots[i]);
        if (slots[i] < 0 || slots[i] >= 12 || seen[slots[i]]++)
            bad++;
    }
    is_int(w.inflight, 12, "3 queue pairs x 4: twelve requests in flight");
    is_int(bad, 0, "every request in flight has its own slot");
    is_int(fabric_window_pick(&w), -1, "a full window takes no more posts");
    is_int((long long)(ids[0] >> 48), 0, "posts go round-robin: qp 0 first");
    is_int((long long)(ids[1] >> 48), 1, "then qp 1");
    is_int((long long)(ids[2] >> 48), 2, "then qp 2");
    is_int(fabric_window_complete(&w, ids[1] + 1, NULL), -1,
           "a completion that is not the oldest of its queue pair is refused");
    is_int(fabric_window_complete(&w, ((uint64_t)7 << 48), NULL), -1,
           "a completion for a queue pair that does not exist is refused");
    {
        int slot = -1;
        is_int(fabric_window_complete(&w, ids[1], &slot), 0, "the oldest completes");
        is_int(slot, slots[1], "and gives back its slot");
    }
    is_int(fabric_window_complete(&w, ids[1], NULL), -1, "a duplicate completion is refused");
    is_int(fabric_window_pick(&w), 1, "the freed queue pair takes the next post");
    /* drain, then a long run: posts while there is room, completions of the oldest request of
     * a queue pair in turn; no queue pair ever passes its depth */
    for (int i = 0; i < 12; i++)
        if (i != 1)
            fabric_window_complete(&w, ids[i], NULL);
    is_int(w.inflight, 0, "every request completed: nothing in flight");
    for (int round = 0, next = 0; round < 1000; round++) {
        int s;
        qp = fabric_window_pick(&w);
        if (qp >= 0)
            fabric_window_post(&w, qp, &s);
        for (int k = 0; k < 3; k++)
            if (w.posted[k] - w.completed[k] > 4)
                over++;
        if (round % 3 == 0 || qp < 0) {
            int q = next++ % 3;
            if (w.completed[q] < w.posted[q] &&
                fabric_window_complete(&w, ((uint64_t)q << 48) | w.completed[q], NULL) < 0)
                over++;
        }
    }
    is_int(over, 0, "1000 rounds: never beyond the window, completions accepted in order");
    is_int((long long)w.done, (long long)(w.completed[0] + w.completed[1] + w.completed[2]),
           "completions are counted");
    fabric_window_free(&w);
}

static void test_hints(void)
{
    ok(fabric_wc_hint(0) == NULL, "success has no hint");
    ok(fabric_wc_hint(12) && strstr(fabric_wc_hint(12), "stopped acknowledging"),
       "retry exceeded: the peer stopped acknowledging");
    ok(fabric_wc_hint(13) && strstr(fabric_wc_hint(13), "no receive posted"),
       "RNR retry exceeded: no receive posted");
    ok(fabric_wc_hint(10) && strstr(fabric_wc_hint(10), "key"), "remote access: address or key");
    ok(fabric_wc_hint(5) && strstr(fabric_wc_hint(5), "flushed"), "flush: an earlier failure");
    ok(fabric_wc_hint(999) == NULL, "an unknown status has no hint");
    ok(fabric_verbs_errno_hint("ibv_reg_mr", ENOMEM) &&
           strstr(fabric_verbs_errno_hint("ibv_reg_mr", ENOMEM), "ulimit -l"),
       "ibv_reg_mr ENOMEM: the locked-memory limit");
    ok(fabric_verbs_errno_hint("ibv_reg_dmabuf_mr", EOPNOTSUPP) != NULL,
       "ibv_reg_dmabuf_mr EOPNOTSUPP: no dma-buf import");
    ok(fabric_verbs_errno_hint("ibv_reg_mr(device memory)", EFAULT) &&
           strstr(fabric_verbs_errno_hint("ibv_reg_mr(device memory)", EFAULT), "nvidia-peermem"),
       "ibv_reg_mr on device memory EFAULT: nvidia-peermem");
    ok(fabric_verbs_errno_hint("ibv_modify_qp(RTR)", EINVAL) != NULL, "RTR EINVAL: GID index");
    ok(fabric_verbs_errno_hint("ibv_post_send", ENOMEM) == NULL, "no made-up hints");
    is_int(fabric_verbs_op_parse("read"), FABRIC_OP_READ, "op 'read'");
    is_int(fabric_verbs_op_parse("atomic"), -1, "op 'atomic' is unknown");
    is_str(fabric_verbs_op_name(FABRIC_OP_SEND), "send", "op name");
}

static int write_u64(const char *dir, const char *name, unsigned long long v)
{
    char path[4096];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(fp = fopen(path, "w")))
        return -1;
    fprintf(fp, "%llu\n", v);
    return fclose(fp);
}

static void test_counters(void)
{
    const char *shared = getenv("RAILYARD_SHARED_FIXTURES");
    const char *src = getenv("RAILYARD_SRCDIR");
    char fix[4096], root[] = "/tmp/ry-hwc-XXXXXX", cmd[12288], dir[4200], text[256], dev[64];
    struct fabric_hwc a, b;
    int port = 0;
    long long d;

    if (shared)
        snprintf(fix, sizeof(fix), "%s/sysfs/gpud_h100_sys-class-infiniband", shared);
    else
        snprintf(fix, sizeof(fix), "%s/../shared/fixtures/sysfs/gpud_h100_sys-class-infiniband",
                 src ? src : ".");
    if (access(fix, R_OK) != 0 || !mkdtemp(root)) {
        for (int i = 0; i < 14; i++)
            ok(1, "# SKIP shared fixture %s not found", fix);
        return;
    }
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/class' && cp -r '%s' '%s/class/infiniband'", root, fix,
             root);
    if (system(cmd) != 0) {
        ok(0, "cannot copy %s", fix);
        return;
    }
    /* an IB port has no congestion counters: give it the one a RoCE port has */
    snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx5_4/ports/1/hw_counters", root);
    write_u64(dir, "np_cnp_sent", 0);
    is_int(fabric_hwc_sample(root, "mlx5_4", 1, &a), 0, "mlx5_4 port 1: counters read");
    ok(a.n >= 20, "error and congestion counters found (%d)", a.n);
    is_int(fabric_hwc_sample(root, "mlx5_99", 1, &b), -1, "no such device: no counters");
    /* the port takes errors and CNPs during the "round" */
    snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx5_4/ports/1/hw_counters", root);
    write_u64(dir, "out_of_sequence", 3);
    write_u64(dir, "np_cnp_sent", 120);
    write_u64(dir, "rp_cnp_handled", 9); /* appears only now: not a rise */
    snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx5_4/ports/1/counters", root);
    write_u64(dir, "symbol_error", 5);
    /* and receives 1,000 packets, 10 of them resent after their ack was lost */
    write_u64(dir, "port_rcv_packets", 317548853677ULL + 1000);
    snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx5_4/ports/1/hw_counters", root);
    write_u64(dir, "duplicate_request", 10);
    fabric_hwc_sample(root, "mlx5_4", 1, &b);
    d = fabric_hwc_delta(&a, &b, text, sizeof(text));
    is_int(d, 18,
           "errors summed: out_of_sequence, duplicate_request and symbol_error, not the CNPs");
    ok(!strstr(text, "port_rcv_packets"), "the packets received are traffic, not named: %s", text);
    {
        struct fabric_hwc_rx rx;
        is_int(fabric_hwc_received(&a, &b, &rx), 0, "what the port received is known");
        ok(rx.pkts == 1000 && rx.wasted == 3 && rx.marked == -1,
           "1,000 packets, 3 thrown away out of sequence (not the 10 duplicates), no ECN "
           "counter: %lld %lld %lld",
           rx.pkts, rx.wasted, rx.marked);
        is_int(fabric_hwc_received(&b, &b, &rx), -1, "no packet received: nothing to weigh");
        /* rxe counts its own packets (hw_counters rcvd_pkts): those, not the PMA's */
        snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx5_4/ports/1/hw_counters", root);
        write_u64(dir, "rcvd_pkts", 0);
        write_u64(dir, "out_of_seq_request", 0);
        fabric_hwc_sample(root, "mlx5_4", 1, &a);
        write_u64(dir, "rcvd_pkts", 400);
        write_u64(dir, "out_of_seq_request", 7);
        fabric_hwc_sample(root, "mlx5_4", 1, &b);
        fabric_hwc_received(&a, &b, &rx);
        ok(rx.pkts == 400 && rx.wasted == 7,
           "rxe's own packet count, and out_of_seq_request: "
           "%lld %lld",
           rx.pkts, rx.wasted);
        write_u64(dir, "sent_pkts", 0);
        fabric_hwc_sample(root, "mlx5_4", 1, &a);
        write_u64(dir, "sent_pkts", 55);
        fabric_hwc_sample(root, "mlx5_4", 1, &b);
        fabric_hwc_received(&a, &b, &rx);
        is_int(rx.sent, 55, "the packets it sent: rxe's sent_pkts, not the PMA's");
        /* receive-not-ready NAKs meanwhile: what was thrown away is not the wire's */
        write_u64(dir, "send_rnr_err", 0);
        fabric_hwc_sample(root, "mlx5_4", 1, &a);
        write_u64(dir, "rcvd_pkts", 900);
        write_u64(dir, "out_of_seq_request", 20);
        write_u64(dir, "send_rnr_err", 13);
        fabric_hwc_sample(root, "mlx5_4", 1, &b);
        is_int(fabric_hwc_received(&a, &b, &rx), -1,
               "RNR NAKs sent meanwhile: the waste is not judged (%lld)", rx.wasted);
    }
    ok(strstr(text, "out_of_sequence +3") && strstr(text, "symbol_error +5") &&
           strstr(text, "np_cnp_sent +120") && strstr(text, "np_cnp_sent") > strstr(text, "out_of"),
       "the text names them, errors first: %s", text);
    ok(!strstr(text, "rp_cnp_handled"), "a counter missing from the first sample is not a rise");
    is_int(fabric_hwc_delta(&b, &b, text, sizeof(text)), 0, "no change, nothing counted");
    is_int(fabric_rdma_port(root, "ib9", dev, sizeof(dev), &port), -1,
           "a netdev without an RDMA port");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        diag("cannot remove %s", root);
}

/* Faults injected into real captures: every counter of every port of the /sys/class/infiniband
 * captures, one at a time, rises by one between two samples. An error counter's rise is counted
 * (exactly 1) and named alone ("NAME +1"); a congestion counter's is named and not counted; a
 * traffic counter's neither. A line per class: cases, caught, extra or wrong. */
static void test_counters_injected(void)
{
    static const char *const captures[] = { "gpud_h100_sys-class-infiniband",
                                            "hwloc-stampede-c412-603_sys-class-infiniband" };
    const char *shared = getenv("RAILYARD_SHARED_FIXTURES");
    const char *src = getenv("RAILYARD_SRCDIR");
    const char *cls[3] = { "counter-congestion", "counter-error", "counter-traffic" };
    int cases[3] = { 0 }, caught[3] = { 0 }, wrong[3] = { 0 }, ports = 0, read = 0;

    for (size_t c = 0; c < sizeof(captures) / sizeof(captures[0]); c++) {
        char fix[4096], root[] = "/tmp/ry-hwc-XXXXXX", cmd[12288];
        if (shared)
            snprintf(fix, sizeof(fix), "%s/sysfs/%s", shared, captures[c]);
        else
            snprintf(fix, sizeof(fix), "%s/../shared/fixtures/sysfs/%s", src ? src : ".",
                     captures[c]);
        if (access(fix, R_OK) != 0 || !mkdtemp(root)) {
            ok(1, "# SKIP shared fixture %s not found", fix);
            continue;
        }
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s/class' && cp -r '%s' '%s/class/infiniband'", root,
                 fix, root);
        if (system(cmd) != 0) {
            ok(0, "cannot copy %s", fix);
            continue;
        }
        read++;
        char **devs = NULL;
        size_t ndev = 0;
        if (ry_sysfs_list(root, &devs, &ndev, NULL, "class/infiniband") < 0)
            ndev = 0;
        for (size_t d = 0; d < ndev; d++) {
            const char *dev = devs[d];
            for (int port = 1; port <= 2; port++) {
                struct fabric_hwc a, b;
                if (fabric_hwc_sample(root, dev, port, &a) < 0)
                    continue;
                ports++;
                for (int i = 0; i < a.n; i++) {
                    char dir[4200], text[256], want[64];
                    int e = a.error[i];
                    long long got;
                    snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d/counters/%s", root,
                             dev, port, a.name[i]);
                    if (access(dir, F_OK) != 0)
                        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d/hw_counters",
                                 root, dev, port);
                    else
                        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d/counters", root,
                                 dev, port);
                    write_u64(dir, a.name[i], a.val[i] + 1);
                    fabric_hwc_sample(root, dev, port, &b);
                    got = fabric_hwc_delta(&a, &b, text, sizeof(text));
                    write_u64(dir, a.name[i], a.val[i]);
                    snprintf(want, sizeof(want), "%s +1", a.name[i]);
                    if (e == FABRIC_HWC_TRAFFIC)
                        e = 2;
                    cases[e]++;
                    if (e == 2 ? got == 0 && !*text : !strcmp(text, want) && got == (e == 1))
                        caught[e]++;
                    else
                        wrong[e]++;
                    if (e == 2)
                        is_str(got == 0 ? text : "counted", "",
                               "%s %s/%d: %s rose: traffic, neither counted nor named", captures[c],
                               dev, port, a.name[i]);
                    else
                        ok(!strcmp(text, want) && got == (e == 1),
                           "%s %s/%d: %s rose by 1: %s (%lld counted, %s)", captures[c], dev, port,
                           a.name[i],
                           e ? "an error, counted and named alone"
                             : "congestion, named and not counted",
                           got, text);
                }
            }
        }
        ry_sysfs_list_free(devs, ndev);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        if (system(cmd) != 0)
            diag("cannot remove %s", root);
    }
    if (read < 2)
        return;
    /* the H100 node's 8 ConnectX-7 and its bond's port, the Stampede node's ConnectX-3 */
    ok(ports == 10 && cases[1] >= 10 * 8,
       "ports sampled in the two captures: %d (10), error "
       "counters %d",
       ports, cases[1]);
    for (int e = 0; e < 3; e++)
        diag("class %s: cases %d, caught %d, extra or wrong %d", cls[e], cases[e], caught[e],
             wrong[e]);
}

int main(void)
{
    test_window();
    test_hints();
    test_counters();
    test_counters_injected();
    return done_testing();
}
