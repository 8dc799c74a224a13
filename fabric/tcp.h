#ifndef RAILYARD_FABRIC_TCP_H
#define RAILYARD_FABRIC_TCP_H

#include <stddef.h>

#include "common/error.h"
#include "fabric/transport.h"

/* The tcp transport's control-channel helpers (fabric/tcp.c) for other transports: state is
 * what fabric_transport_tcp.setup made. */
int fabric_tcp_dial(void *tcp_state, const struct fabric_endpoint *peer, double deadline,
                    ry_error_t *err);
int fabric_tcp_accept(void *tcp_state, const struct fabric_endpoint *peer, double deadline,
                      ry_error_t *err);
int fabric_tcp_xfer(int fd, void *buf, size_t len, int writing, double deadline, ry_error_t *err);

/* What TCP_INFO says of a connection's data so far, summed into c (the counters it starts with
 * at 0); a kernel too old for a counter leaves it -1 in c. fabric/tcp_info.c: the kernel's
 * struct tcp_info, which glibc's lacks most of. 0, or -1 when fd says nothing. */
struct fabric_tcp_counts {
    long long bytes_sent;    /* data handed to IP, retransmissions included */
    long long bytes_retrans; /* of which retransmitted */
    long long segs_retrans;  /* segments retransmitted */
    long long delivered;     /* segments delivered (acknowledged) */
    long long delivered_ce;  /* of which the receiver echoed as CE-marked (ECN) */
    long long dsack_dups;    /* resends the receiver reported it already had (D-SACK) */
};
void fabric_tcp_counts_init(struct fabric_tcp_counts *c);
/* The bytes a connection that delivered `bytes` put on the wire for them: those and what it
 * sent again because they were lost. A resend the receiver reported it already had (D-SACK: the
 * sender's timer fired before the acknowledgement came, as on a starved host) was not lost and
 * is left out, at the mean size of a resent segment. -1 when c lacks the resent bytes. */
long long fabric_tcp_wire_bytes(long long bytes, const struct fabric_tcp_counts *c);
int fabric_tcp_counts_add(int fd, struct fabric_tcp_counts *c);

#endif
