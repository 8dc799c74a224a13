#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/tap/tap.h"
#include "watch/sysfs.h"

static char root[64];

/* write ROOT/rel (its folders made) */
static void put(const char *rel, const char *text)
{
    char path[512], *slash;
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0755);
        *slash = '/';
    }
    fp = fopen(path, "w");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

/* a port as the kernel lays it out: state, physical state, the PMA counters */
static void ib_port(const char *dev, int port, const char *state, const char *phys, int symbol)
{
    char rel[256], val[32];
    static const char *const zero[] = { "link_downed", "link_error_recovery", "port_rcv_errors",
                                        "local_link_integrity_errors",
                                        "excessive_buffer_overrun_errors" };

    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/state", dev, port);
    put(rel, state);
    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/phys_state", dev, port);
    put(rel, phys);
    snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/counters/symbol_error", dev, port);
    snprintf(val, sizeof(val), "%d\n", symbol);
    put(rel, val);
    for (size_t i = 0; i < sizeof(zero) / sizeof(*zero); i++) {
        snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/counters/%s", dev, port, zero[i]);
        put(rel, "0\n");
    }
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    struct watch_src *v = NULL;
    struct watch_sample s[8];
    char why[8][160];
    size_t n = 0;
    ry_error_t err;

    snprintf(root, sizeof(root), "/tmp/railyard-watch-sysfs.XXXXXX");
    if (!mkdtemp(root))
        skip_all("cannot make a scratch folder");
    ib_port("mlx5_10", 1, "4: ACTIVE\n", "5: LinkUp\n", 3);
    ib_port("mlx5_2", 1, "4: ACTIVE\n", "5: LinkUp\n", 7);
    ib_port("mlx5_2", 2, "1: DOWN\n", "3: Disabled\n", 0);
    ib_port("mlx5_3", 1, "2: INIT\n", "5: LinkUp\n", 0);
    put("class/infiniband/mlx5_2/ports/1/gid_attrs/ndevs/0", "ens1f0\n");
    put("class/infiniband/mlx5_2/ports/1/hw_counters/np_cnp_sent", "1234\n");
    put("class/net/ens1f0/carrier_changes", "4\n");
    put("class/net/ens1f0/operstate", "up\n");
    put("class/net/eth2/operstate", "down\n");
    put("class/net/eth2/carrier_changes", "9\n");

    {
        const char *nd[] = { "eth2" }, *bad[] = { "eth9" };
        int rc = watch_sysfs_ports(root, nd, 1, &v, &n, &err);
        ok(rc == 0 && n == 5, "five ports found (%zu)", n);
        ok(n == 5 && !strcmp(v[0].subject, "mlx5_2/1") && !strcmp(v[1].subject, "mlx5_2/2") &&
               !strcmp(v[2].subject, "mlx5_3/1") && !strcmp(v[3].subject, "mlx5_10/1") &&
               !strcmp(v[4].subject, "eth2"),
           "... the RDMA ports in natural order (mlx5_2 before mlx5_10), then the netdev");
        is_str(n ? v[0].netdev : "", "ens1f0", "a RoCE port's netdev, from its first GID");
        {
            struct watch_src *v2;
            size_t n2;
            ok(watch_sysfs_ports(root, bad, 1, &v2, &n2, &err) < 0 && strstr(err.text, "eth9") &&
                   strstr(err.text, root),
               "an interface that is not there: refused, named (%s)", err.text);
        }
    }
    if (n != 5)
        return done_testing();
    ok(watch_sysfs_read(root, &v[0], 10, &s[0], &err) == 0 && s[0].state == WATCH_UP &&
           s[0].t == 10,
       "ACTIVE: up, at the time given");
    ok(s[0].ctr[WATCH_SYMBOL_ERRORS] == 7 && s[0].ctr[WATCH_LINK_DOWNED] == 0 &&
           s[0].ctr[WATCH_CNP_SENT] == 1234 && s[0].ctr[WATCH_CARRIER_CHANGES] == 4,
       "... its counters, its hw_counters and its netdev's carrier_changes");
    ok(s[0].ctr[WATCH_SEQ_ERR] == -1, "... a counter the port does not have: -1");
    ok(watch_sysfs_read(root, &v[1], 10, &s[1], &err) == 0 && s[1].state == WATCH_DOWN &&
           s[1].ctr[WATCH_CARRIER_CHANGES] == -1,
       "DOWN: down; no netdev, no carrier_changes");
    ok(watch_sysfs_read(root, &v[2], 10, &s[2], &err) == 0 && s[2].state == WATCH_UP,
       "INIT with the physical link up: up (no subnet manager yet is not a flap)");
    put("class/infiniband/mlx5_3/ports/1/phys_state", "2: Polling\n");
    ok(watch_sysfs_read(root, &v[2], 11, &s[2], &err) == 0 && s[2].state == WATCH_DOWN,
       "INIT with the physical link polling: down");
    ok(watch_sysfs_read(root, &v[4], 10, &s[4], &err) == 0 && s[4].state == WATCH_DOWN &&
           s[4].ctr[WATCH_CARRIER_CHANGES] == 9,
       "a netdev: operstate down, carrier_changes 9");
    { /* no counters in sysfs: RoCE's port read from sysfs all the same; an InfiniBand one is
       * asked through MADs (there is no HCA here: its read fails, naming it) */
        struct watch_src p = v[0];
        put("class/infiniband/roce_x/ports/1/state", "4: ACTIVE\n");
        put("class/infiniband/roce_x/ports/1/phys_state", "5: LinkUp\n");
        put("class/infiniband/roce_x/ports/1/link_layer", "Ethernet\n");
        put("class/infiniband/ibsim_x/ports/1/state", "4: ACTIVE\n");
        put("class/infiniband/ibsim_x/ports/1/phys_state", "5: LinkUp\n");
        snprintf(p.dev, sizeof(p.dev), "roce_x");
        p.netdev[0] = '\0';
        ok(watch_sysfs_read(root, &p, 10, &s[5], &err) == 0 && s[5].state == WATCH_UP &&
               s[5].ctr[WATCH_SYMBOL_ERRORS] == -1,
           "a RoCE port without counters/: its state from sysfs, its counters unread");
        snprintf(p.dev, sizeof(p.dev), "ibsim_x");
        err.text[0] = '\0';
        ok(watch_sysfs_read(root, &p, 10, &s[5], &err) < 0 && strstr(err.text, "ibsim_x port 1"),
           "an InfiniBand port without counters/: asked through MADs, none here: %s", err.text);
    }
    { /* Soft-RoCE names two counters its own way; mlx5's name is read where both are */
        struct watch_src rxe = v[0];
        ib_port("rxe_a0", 1, "4: ACTIVE\n", "5: LinkUp\n", 0);
        put("class/infiniband/rxe_a0/ports/1/hw_counters/out_of_seq_request", "41\n");
        put("class/infiniband/rxe_a0/ports/1/hw_counters/rcvd_seq_err", "5\n");
        put("class/infiniband/rxe_a0/ports/1/hw_counters/link_downed", "6\n");
        snprintf(rxe.dev, sizeof(rxe.dev), "rxe_a0");
        rxe.netdev[0] = '\0';
        ok(watch_sysfs_read(root, &rxe, 10, &s[5], &err) == 0 &&
               s[5].ctr[WATCH_OUT_OF_SEQUENCE] == 41 && s[5].ctr[WATCH_SEQ_ERR] == 5,
           "rdma_rxe's out_of_seq_request and rcvd_seq_err read as out_of_sequence and "
           "packet_seq_err (%lld, %lld)",
           s[5].ctr[WATCH_OUT_OF_SEQUENCE], s[5].ctr[WATCH_SEQ_ERR]);
        ok(s[5].ctr[WATCH_LINK_DOWNED] == 0,
           "... its hw_counters/link_downed not taken for LinkDownedCounter (%lld)",
           s[5].ctr[WATCH_LINK_DOWNED]);
        put("class/infiniband/mlx5_2/ports/1/hw_counters/out_of_sequence", "7\n");
        put("class/infiniband/mlx5_2/ports/1/hw_counters/out_of_seq_request", "99\n");
        ok(watch_sysfs_read(root, &v[0], 11, &s[6], &err) == 0 &&
               s[6].ctr[WATCH_OUT_OF_SEQUENCE] == 7,
           "both names there: mlx5's out_of_sequence is read (%lld)",
           s[6].ctr[WATCH_OUT_OF_SEQUENCE]);
    }
    {
        struct watch_src gone = v[0];
        snprintf(gone.dev, sizeof(gone.dev), "mlx5_9");
        ok(watch_sysfs_read(root, &gone, 10, &s[5], &err) < 0 && strstr(err.text, "mlx5_9"),
           "a port that is gone: an error naming it (%s)", err.text);
    }

    /* a read that hangs (a FIFO nobody writes: opening it blocks, as a counter query to a stuck
     * firmware does): reported, and the other ports sampled all the same */
    {
        char fifo[256];
        struct watch_sampler *w;
        double t0;
        size_t got;
        snprintf(fifo, sizeof(fifo), "%s/class/infiniband/mlx5_10/ports/1/counters/symbol_error",
                 root);
        unlink(fifo);
        if (mkfifo(fifo, 0600) < 0)
            skip_all("cannot make a FIFO");
        w = watch_sampler_new(root, v, n);
        t0 = mono();
        got = watch_sampler_read(w, 20, 0.3, s, why);
        ok(got == 4 && mono() - t0 < 1.5, "one port's read hangs: the other four sampled in %.2f s",
           mono() - t0);
        ok(strstr(why[3], "did not come back in time") != NULL, "... the hung one said: %s",
           why[3]);
        ok(!why[0][0] && s[0].state == WATCH_UP && s[0].t == 20,
           "... a sampled one: no reason, its sample");
        got = watch_sampler_read(w, 21, 0.3, s, why);
        ok(got == 4 && strstr(why[3], "still hangs"), "the next sample: still hangs (%s)", why[3]);
        {
            int fd = open(fifo, O_WRONLY); /* the stuck read gets its answer */
            if (fd >= 0) {
                ssize_t put_ = write(fd, "5\n", 2);
                (void)put_;
                close(fd);
            }
        }
        unlink(fifo); /* and the firmware is well again: a plain counter from now on */
        put("class/infiniband/mlx5_10/ports/1/counters/symbol_error", "5\n");
        usleep(200000);
        got = watch_sampler_read(w, 22, 0.3, s, why);
        if (got < 5) /* its late answer may be taken first; the next read is whole */
            got = watch_sampler_read(w, 23, 0.3, s, why);
        ok(got == 5 && s[3].ctr[WATCH_SYMBOL_ERRORS] == 5,
           "once it answered: read again, all five sampled (%zu; %s)", got, why[3]);
        watch_sampler_free(w);
        unlink(fifo);
    }
    free(v);
    return done_testing();
}
