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

#endif
