#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "fabric/analyze.h"
#include "fabric/tcp.h"
#include "fabric/transport.h"

/* The tcp transport: plain TCP over the rail's netdev, bound to its address (and to the device
 * with SO_BINDTODEVICE where allowed), non-blocking sockets and poll() with deadlines. */

#define TCP_BUF     (256 * 1024)
#define MAX_STREAMS 16
#define PING_SIZE   64

struct tcp_state {
    char netdev[IF_NAMESIZE];
    struct sockaddr_in local;
    int listen_fd;
    char *buf;
};

double fabric_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void fabric_stats_clear(struct fabric_stats *s)
{
    memset(s, 0, sizeof(*s));
    s->retrans = s->wire_bytes = -1;
    s->ce_frac = -1;
}

static int ms_left(double deadline)
{
    double left = deadline - fabric_now();

    if (left <= 0)
        return 0;
    return left > 1000 ? 1000000 : (int)(left * 1000) + 1;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* wait for events on fd until the deadline: 1 ready, 0 timed out, -1 error */
static int wait_fd(int fd, short events, double deadline)
{
    struct pollfd p = { .fd = fd, .events = events };
    int rc;

    for (;;) {
        int ms = ms_left(deadline);
        if (ms == 0)
            return 0;
        rc = poll(&p, 1, ms);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return -1;
        if (rc > 0)
            return 1;
    }
}

static int tcp_setup(const struct fabric_setup *su, struct fabric_endpoint *local, void **state,
                     ry_error_t *err)
{
    const char *netdev = su->netdev;
    struct tcp_state *st;
    struct ifaddrs *ifa, *i;
    socklen_t len;
    int found = 0, one = 1;

    memset(local, 0, sizeof(*local));
    if (getifaddrs(&ifa) < 0)
        return ry_errorf(err, "getifaddrs: %s", strerror(errno));
    st = xcalloc(1, sizeof(*st));
    st->listen_fd = -1;
    snprintf(st->netdev, sizeof(st->netdev), "%s", netdev);
    for (i = ifa; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !strcmp(i->ifa_name, netdev)) {
            memcpy(&st->local, i->ifa_addr, sizeof(st->local));
            found = 1;
            break;
        }
    freeifaddrs(ifa);
    *state = st;
    if (!found) {
        snprintf(local->error, sizeof(local->error), "netdev %s has no IPv4 address", netdev);
        return 0; /* the rank takes part; its links fail and are reported */
    }
    st->local.sin_port = 0;
    if ((st->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        setsockopt(st->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(st->listen_fd, (struct sockaddr *)&st->local, sizeof(st->local)) < 0 ||
        listen(st->listen_fd, MAX_STREAMS * 2) < 0 || set_nonblock(st->listen_fd) < 0) {
        snprintf(local->error, sizeof(local->error), "%s: listen: %s", netdev, strerror(errno));
        return 0;
    }
    len = sizeof(st->local);
    getsockname(st->listen_fd, (struct sockaddr *)&st->local, &len);
    inet_ntop(AF_INET, &st->local.sin_addr, local->addr, sizeof(local->addr));
    local->port = ntohs(st->local.sin_port);
    local->ok = 1;
    st->buf = xmalloc(TCP_BUF);
    memset(st->buf, 0x5a, TCP_BUF);
    return 0;
}

static void tcp_teardown(void *state)
{
    struct tcp_state *st = state;

    if (!st)
        return;
    if (st->listen_fd >= 0)
        close(st->listen_fd);
    free(st->buf);
    free(st);
}

/* a socket bound to the rail and connected to peer, or -1 with err */
static int dial(struct tcp_state *st, const struct fabric_endpoint *peer, double deadline,
                ry_error_t *err)
{
    struct sockaddr_in to = { .sin_family = AF_INET }, from = st->local;
    int fd, soerr = 0, one = 1;
    socklen_t len = sizeof(soerr);

    if (st->listen_fd < 0 || !st->buf)
        return ry_errorf(err, "%s is not set up", st->netdev);
    if (inet_pton(AF_INET, peer->addr, &to.sin_addr) != 1)
        return ry_errorf(err, "bad peer address '%s'", peer->addr);
    to.sin_port = htons(peer->port);
    from.sin_port = 0;
    if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return ry_errorf(err, "socket: %s", strerror(errno));
    /* keep the traffic on this rail even where routes would pick another interface; without
     * the privilege the source address alone has to do */
    (void)setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, st->netdev, (socklen_t)strlen(st->netdev));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&from, sizeof(from)) < 0 || set_nonblock(fd) < 0) {
        ry_errorf(err, "bind %s: %s", st->netdev, strerror(errno));
        close(fd);
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0 && errno != EINPROGRESS) {
        ry_errorf(err, "connect %s:%u: %s", peer->addr, peer->port, strerror(errno));
        close(fd);
        return -1;
    }
    switch (wait_fd(fd, POLLOUT, deadline)) {
    case 0:
        ry_errorf(err, "connect %s:%u: no answer before the deadline", peer->addr, peer->port);
        close(fd);
        return -1;
    case -1:
        ry_errorf(err, "connect %s:%u: %s", peer->addr, peer->port, strerror(errno));
        close(fd);
        return -1;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr) {
        ry_errorf(err, "connect %s:%u: %s", peer->addr, peer->port,
                  strerror(soerr ? soerr : errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* the next connection from peer; late connections of an earlier, failed round and strangers
 * are closed */
static int accept_one(struct tcp_state *st, const struct fabric_endpoint *peer, double deadline,
                      ry_error_t *err)
{
    struct sockaddr_in from;
    socklen_t len;
    char addr[48];
    int fd, one = 1;

    if (st->listen_fd < 0)
        return ry_errorf(err, "%s is not set up", st->netdev);
    for (;;) {
        switch (wait_fd(st->listen_fd, POLLIN, deadline)) {
        case 0: return ry_errorf(err, "no peer connected before the deadline");
        case -1: return ry_errorf(err, "poll: %s", strerror(errno));
        }
        len = sizeof(from);
        fd = accept4(st->listen_fd, (struct sockaddr *)&from, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
            inet_ntop(AF_INET, &from.sin_addr, addr, sizeof(addr));
            if (!strcmp(addr, peer->addr))
                break;
            close(fd);
            continue;
        }
        if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
            return ry_errorf(err, "accept: %s", strerror(errno));
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* write or read exactly len bytes before the deadline */
static int xfer_all(int fd, void *buf, size_t len, int writing, double deadline, ry_error_t *err)
{
    size_t done = 0;

    while (done < len) {
        ssize_t n;
        if (wait_fd(fd, writing ? POLLOUT : POLLIN, deadline) <= 0)
            return ry_errorf(err, "%s: deadline passed", writing ? "send" : "receive");
        n = writing ? send(fd, (char *)buf + done, len - done, MSG_NOSIGNAL)
                    : recv(fd, (char *)buf + done, len - done, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n <= 0)
            return ry_errorf(err, "%s: %s", writing ? "send" : "receive",
                             n == 0 ? "connection closed by the peer" : strerror(errno));
        done += (size_t)n;
    }
    return 0;
}

static int tcp_send(void *state, const struct fabric_endpoint *peer, double duration, int streams,
                    double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct tcp_state *st = state;
    struct pollfd p[MAX_STREAMS];
    int64_t reply[2];
    double start, stop;
    int n = 0, rc = -1;

    fabric_stats_clear(out);
    if (streams < 1 || streams > MAX_STREAMS)
        return ry_errorf(err, "streams must be 1..%d", MAX_STREAMS);
    for (; n < streams; n++) {
        if ((p[n].fd = dial(st, peer, connect_by < deadline ? connect_by : deadline, err)) < 0)
            goto out;
        p[n].events = POLLOUT;
    }
    start = fabric_now();
    stop = start + duration;
    if (stop > deadline)
        stop = deadline;
    while (fabric_now() < stop) {
        int ms = (int)((stop - fabric_now()) * 1000) + 1,
            r = poll(p, (nfds_t)n, ms > 100 ? 100 : ms);
        if (r < 0 && errno != EINTR) {
            ry_errorf(err, "poll: %s", strerror(errno));
            goto out;
        }
        for (int i = 0; i < n && r > 0; i++) {
            ssize_t w;
            if (!(p[i].revents & (POLLOUT | POLLERR | POLLHUP)))
                continue;
            w = send(p[i].fd, st->buf, TCP_BUF, MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN && errno != EINTR) {
                ry_errorf(err, "send to %s: %s", peer->addr, strerror(errno));
                goto out;
            }
        }
    }
    /* end of data; the receiver answers with what it measured */
    for (int i = 0; i < n; i++)
        shutdown(p[i].fd, SHUT_WR);
    if (xfer_all(p[0].fd, reply, sizeof(reply), 0, deadline, err) < 0)
        goto out;
    out->bytes = reply[0];
    out->seconds = (double)reply[1] / 1e9;
    out->bw_gbps = out->seconds > 0 ? (double)out->bytes * 8 / out->seconds / 1e9 : 0;
    {
        /* every byte was read by the receiver, so every byte sent is acknowledged: on the wire
         * went what arrived and what TCP sent again (tcpi_bytes_sent would also count what the
         * sender's own host dropped before the wire, a full local queue, which TCP then sends as
         * new data: not the link's loss) */
        struct fabric_tcp_counts c;
        int known = 1;
        fabric_tcp_counts_init(&c);
        for (int i = 0; i < n; i++)
            known &= fabric_tcp_counts_add(p[i].fd, &c) == 0;
        out->retrans = known ? c.segs_retrans : -1;
        out->wire_bytes = known && out->bytes > 0 ? fabric_tcp_wire_bytes(out->bytes, &c) : -1;
        out->ce_frac = known && c.delivered > 0 && c.delivered_ce >= 0
                           ? (double)c.delivered_ce / (double)c.delivered
                           : -1;
    }
    rc = 0;
out:
    for (int i = 0; i < n; i++)
        close(p[i].fd);
    return rc;
}

static int tcp_recv(void *state, const struct fabric_endpoint *peer, int streams, double connect_by,
                    double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct tcp_state *st = state;
    struct pollfd p[MAX_STREAMS];
    int n = 0, open_streams, rc = -1;
    double first = -1, last = -1;
    long long bytes = 0;
    int64_t reply[2];

    fabric_stats_clear(out);
    if (streams < 1 || streams > MAX_STREAMS)
        return ry_errorf(err, "streams must be 1..%d", MAX_STREAMS);
    for (; n < streams; n++) {
        if ((p[n].fd = accept_one(st, peer, connect_by < deadline ? connect_by : deadline, err)) <
            0)
            goto out;
        p[n].events = POLLIN;
    }
    open_streams = n;
    while (open_streams > 0) {
        int r, ms = ms_left(deadline);
        if (ms == 0) {
            ry_errorf(err, "data still flowing at the deadline");
            goto out;
        }
        r = poll(p, (nfds_t)n, ms > 100 ? 100 : ms);
        if (r < 0 && errno != EINTR) {
            ry_errorf(err, "poll: %s", strerror(errno));
            goto out;
        }
        for (int i = 0; i < n && r > 0; i++) {
            ssize_t got;
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLERR | POLLHUP)))
                continue;
            got = recv(p[i].fd, st->buf, TCP_BUF, 0);
            if (got > 0) {
                double t = fabric_now();
                if (first < 0)
                    first = t;
                last = t;
                bytes += got;
            } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                p[i].events = 0; /* end of this stream */
                p[i].fd = -p[i].fd - 1;
                open_streams--;
            }
        }
    }
    for (int i = 0; i < n; i++)
        p[i].fd = p[i].fd < 0 ? -p[i].fd - 1 : p[i].fd;
    out->bytes = bytes;
    out->seconds = first >= 0 && last > first ? last - first : 0;
    out->bw_gbps = out->seconds > 0 ? (double)bytes * 8 / out->seconds / 1e9 : 0;
    reply[0] = bytes;
    reply[1] = (int64_t)(out->seconds * 1e9);
    if (xfer_all(p[0].fd, reply, sizeof(reply), 1, deadline, err) < 0)
        goto out;
    rc = 0;
out:
    for (int i = 0; i < n; i++)
        close(p[i].fd < 0 ? -p[i].fd - 1 : p[i].fd);
    return rc;
}

static int tcp_ping(void *state, const struct fabric_endpoint *peer, int iters, double deadline,
                    struct fabric_stats *out, ry_error_t *err)
{
    struct tcp_state *st = state;
    char msg[PING_SIZE];
    double *lat;
    int fd, rc = -1;

    if (iters < 1)
        return 0;
    if ((fd = dial(st, peer, deadline, err)) < 0)
        return -1;
    lat = xcalloc((size_t)iters, sizeof(*lat));
    memset(msg, 0x2a, sizeof(msg));
    for (int i = 0; i < iters; i++) {
        double t0 = fabric_now();
        if (xfer_all(fd, msg, sizeof(msg), 1, deadline, err) < 0 ||
            xfer_all(fd, msg, sizeof(msg), 0, deadline, err) < 0)
            goto out;
        lat[i] = (fabric_now() - t0) / 2 * 1e6;
    }
    out->lat_p50_us = fabric_percentile(lat, (size_t)iters, 50);
    out->lat_p99_us = fabric_percentile(lat, (size_t)iters, 99);
    rc = 0;
out:
    free(lat);
    close(fd);
    return rc;
}

static int tcp_pong(void *state, const struct fabric_endpoint *peer, double deadline,
                    ry_error_t *err)
{
    struct tcp_state *st = state;
    char msg[PING_SIZE];
    int fd, rc = 0;

    if ((fd = accept_one(st, peer, deadline, err)) < 0)
        return -1;
    for (;;) {
        size_t done = 0;
        while (done < sizeof(msg)) {
            ssize_t n;
            if (wait_fd(fd, POLLIN, deadline) <= 0) {
                rc = ry_errorf(err, "ping-pong: deadline passed");
                goto out;
            }
            n = recv(fd, msg + done, sizeof(msg) - done, 0);
            if (n == 0 && done == 0)
                goto out; /* the client is done */
            if (n < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (n <= 0) {
                rc = ry_errorf(err, "ping-pong: %s", n == 0 ? "closed early" : strerror(errno));
                goto out;
            }
            done += (size_t)n;
        }
        if (xfer_all(fd, msg, sizeof(msg), 1, deadline, err) < 0) {
            rc = -1;
            goto out;
        }
    }
out:
    close(fd);
    return rc;
}

const struct fabric_transport fabric_transport_tcp = {
    .name = "tcp",
    .setup = tcp_setup,
    .send = tcp_send,
    .recv = tcp_recv,
    .ping = tcp_ping,
    .pong = tcp_pong,
    .teardown = tcp_teardown,
};

/* The control channel of other transports (verbs): a connection on the rail, through the tcp
 * transport's listener. */
int fabric_tcp_dial(void *tcp_state, const struct fabric_endpoint *peer, double deadline,
                    ry_error_t *err)
{
    return dial(tcp_state, peer, deadline, err);
}

int fabric_tcp_accept(void *tcp_state, const struct fabric_endpoint *peer, double deadline,
                      ry_error_t *err)
{
    return accept_one(tcp_state, peer, deadline, err);
}

int fabric_tcp_xfer(int fd, void *buf, size_t len, int writing, double deadline, ry_error_t *err)
{
    return xfer_all(fd, buf, len, writing, deadline, err);
}
