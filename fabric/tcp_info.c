#include "config.h"

/* The kernel's struct tcp_info (linux/tcp.h): glibc's netinet/tcp.h stops before the byte
 * counters, and the two headers do not go together, so this file includes the kernel's alone. */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include "fabric/tcp.h"

void fabric_tcp_counts_init(struct fabric_tcp_counts *c)
{
    c->bytes_sent = c->bytes_retrans = c->segs_retrans = c->delivered = c->delivered_ce =
        c->dsack_dups = 0;
}

/* add a counter the kernel filled (its struct reaches past it), else mark it unknown */
#define ADD(field, to)                                                                             \
    do {                                                                                           \
        if (len >= offsetof(struct tcp_info, field) + sizeof(ti.field)) {                          \
            if (c->to >= 0)                                                                        \
                c->to += (long long)ti.field;                                                      \
        } else                                                                                     \
            c->to = -1;                                                                            \
    } while (0)

int fabric_tcp_counts_add(int fd, struct fabric_tcp_counts *c)
{
    struct tcp_info ti = { 0 };
    socklen_t len = sizeof(ti);

    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
        return -1;
    ADD(tcpi_bytes_sent, bytes_sent);
    ADD(tcpi_bytes_retrans, bytes_retrans);
    ADD(tcpi_total_retrans, segs_retrans);
    ADD(tcpi_delivered, delivered);
    ADD(tcpi_delivered_ce, delivered_ce);
    ADD(tcpi_dsack_dups, dsack_dups);
    return 0;
}

long long fabric_tcp_wire_bytes(long long bytes, const struct fabric_tcp_counts *c)
{
    long long dup = 0;

    if (c->bytes_retrans < 0)
        return -1;
    if (c->dsack_dups > 0 && c->segs_retrans > 0) {
        dup = c->dsack_dups >= c->segs_retrans
                  ? c->bytes_retrans
                  : (long long)((double)c->bytes_retrans * (double)c->dsack_dups /
                                    (double)c->segs_retrans +
                                0.5);
    }
    return bytes + c->bytes_retrans - dup;
}
