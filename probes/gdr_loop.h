#ifndef RAILYARD_PROBES_GDR_LOOP_H
#define RAILYARD_PROBES_GDR_LOOP_H

#include <stddef.h>

#include "common/error.h"
#include "topo/model.h"

/* GPUDirect RDMA measured on one node: RDMA writes looped back through one HCA port (both queue
 * pairs on the same port, as node health checks do it), by the verbs transport of
 * railyard-fabric (fabric/verbs.c) with a sender and a receiver on the port's netdev. The
 * memory is that transport's --mem: "host" (bound to the NIC's NUMA node), "cuda" (the GPU
 * nearest the NIC, registered by dma-buf, else peer memory), "cuda:N". */

struct gdr_loop {
    double gbytes; /* GB/s the receiver saw */
    char mem[160]; /* the memory the data moved through ("cuda gpu2 0000:1b:00.0 (PIX), dma-buf") */
};

/* Loop seconds of writes through netdev's RDMA port with memory mem. 0, or -1 with err (no verbs
 * in this build, no RDMA port on netdev, memory that cannot be had: err says which). */
int gdr_loopback(const char *netdev, const char *mem, double seconds, struct gdr_loop *out,
                 ry_error_t *err);

/* Run the loop on every active RDMA port of node that has a netdev: host memory, then GPU
 * memory of the GPU nearest it. The figures become one capture ("railyard probe gdr") in
 * node->bw, judged as GPU figures are (gpu.gdr.bw). Returns the figures measured; -1 with err
 * when no port could be looped. notes gets what was left out and why. */
int gdr_probe_run(struct topo_node *node, double seconds, char *notes, size_t notes_len,
                  ry_error_t *err);

#endif
