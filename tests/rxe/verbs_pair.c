#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fabric/transport.h"
#include "fabric/verbs.h"

/* The verbs transport between the two ends of one rail, without MPI: verbs_pair NETDEV_A
 * NETDEV_B [GID_INDEX [SECONDS [PINGS [QP_TIMEOUT]]]]. A forked child sets up B; the endpoints
 * cross over pipes; A writes to B for SECONDS (B verifies the data), then ping-pongs (ACK timeout
 * 4.096 us x 2^QP_TIMEOUT). Prints "bw_gbps X p50_us Y p99_us Z" or the error, exit 0 or 1. Run
 * by tests/rxe/guest-tests.sh on Soft-RoCE rails. */

static int xfer(int fd, void *buf, size_t len, int writing)
{
    size_t done = 0;

    while (done < len) {
        ssize_t n = writing ? write(fd, (char *)buf + done, len - done)
                            : read(fd, (char *)buf + done, len - done);
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const struct fabric_transport *t = &fabric_transport_verbs;
    int a2b[2], b2a[2], status = 1;
    double seconds = argc > 4 ? atof(argv[4]) : 2;
    struct fabric_endpoint ea, eb;
    struct fabric_stats s;
    ry_error_t err = { "" };
    void *st = NULL;
    struct fabric_verbs_opts o;
    pid_t child;

    if (argc < 3) {
        fprintf(stderr,
                "usage: verbs_pair NETDEV_A NETDEV_B [GID_INDEX [SECONDS [PINGS [QP_TIMEOUT]]]]\n");
        return 2;
    }
    fabric_verbs_opts_init(&o);
    if (argc > 3)
        o.gid_index = atoi(argv[3]);
    if (argc > 6)
        o.qp_timeout = atoi(argv[6]);
    if (pipe(a2b) < 0 || pipe(b2a) < 0)
        return 2;
    if ((child = fork()) == 0) { /* B: receive, then pong */
        double dl;
        struct fabric_setup su = { argv[2], NULL, &o, 0, NULL };
        if (t->setup(&su, &eb, &st, &err) < 0) {
            fprintf(stderr, "B: %s\n", err.text);
            eb.ok = 0;
        }
        if (xfer(b2a[1], &eb, sizeof(eb), 1) < 0 || xfer(a2b[0], &ea, sizeof(ea), 0) < 0)
            _exit(2);
        if (!eb.ok || !ea.ok)
            _exit(1);
        dl = fabric_now() + seconds + 30;
        if (t->recv(st, &ea, 1, fabric_now() + 10, dl, &s, &err) < 0 ||
            t->pong(st, &ea, fabric_now() + 30, &err) < 0) {
            fprintf(stderr, "B: %s\n", err.text);
            _exit(1);
        }
        t->teardown(st);
        _exit(0);
    }
    if (t->setup(&(struct fabric_setup){ argv[1], NULL, &o, 0, NULL }, &ea, &st, &err) < 0) {
        fprintf(stderr, "A: %s\n", err.text);
        ea.ok = 0;
    }
    if (xfer(a2b[1], &ea, sizeof(ea), 1) < 0 || xfer(b2a[0], &eb, sizeof(eb), 0) < 0)
        goto out;
    if (!ea.ok || !eb.ok) {
        fprintf(stderr, "%s\n", !ea.ok ? ea.error : eb.error);
        goto out;
    }
    if (t->send(st, &eb, seconds, 1, fabric_now() + 10, fabric_now() + seconds + 30, &s, &err) <
        0) {
        fprintf(stderr, "A: %s\n", err.text);
        goto out;
    }
    printf("bw_gbps %.4f", s.bw_gbps);
    if (t->ping(st, &eb, argc > 5 ? atoi(argv[5]) : 200, fabric_now() + 60, &s, &err) < 0) {
        fprintf(stderr, "\nA: %s\n", err.text);
        goto out;
    }
    printf(" p50_us %.1f p99_us %.1f\n", s.lat_p50_us, s.lat_p99_us);
    status = 0;
out:
    if (st)
        t->teardown(st);
    {
        int cs = 0;
        if (waitpid(child, &cs, 0) == child && (!WIFEXITED(cs) || WEXITSTATUS(cs)))
            status = 1;
    }
    return status;
}
