#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "fabric/transport.h"
#include "fabric/verbs.h"
#include "probes/gdr_loop.h"
#include "topo/gpubw.h"

/* The receiving half of a loop, run on a thread of its own while this one sends. */
struct half {
    const struct fabric_transport *tr;
    void *state;
    struct fabric_endpoint peer;
    double connect_by, deadline;
    struct fabric_stats stats;
    ry_error_t err;
    int rc;
};

static void *receive(void *arg)
{
    struct half *h = arg;

    h->rc = h->tr->recv(h->state, &h->peer, 1, h->connect_by, h->deadline, &h->stats, &h->err);
    return NULL;
}

int gdr_loopback(const char *netdev, const char *mem, double seconds, struct gdr_loop *out,
                 ry_error_t *err)
{
    const struct fabric_transport *tr = &fabric_transport_verbs;
    struct fabric_verbs_opts o;
    struct fabric_setup su = { netdev, NULL, &o, 0, NULL };
    struct fabric_endpoint tx, rx;
    struct fabric_stats sent;
    struct half h;
    void *tx_state = NULL, *rx_state = NULL;
    pthread_t thread;
    double now;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));
    memset(&h, 0, sizeof(h));
    memset(&sent, 0, sizeof(sent));
    fabric_verbs_opts_init(&o);
    o.op = FABRIC_OP_WRITE;
    o.mem = mem;
    if (!tr->recv) { /* built without libibverbs: its setup says so */
        tr->setup(&su, &tx, &tx_state, err);
        goto out;
    }
    /* two ends on the same port: the data leaves the HCA and comes back to it */
    if (tr->setup(&su, &tx, &tx_state, err) < 0 || tr->setup(&su, &rx, &rx_state, err) < 0)
        goto out;
    if (!tx.ok || !rx.ok) {
        ry_errorf(err, "%s", !tx.ok ? tx.error : rx.error);
        goto out;
    }
    now = fabric_now();
    h.tr = tr;
    h.state = rx_state;
    h.peer = tx;
    h.connect_by = now + 10;
    h.deadline = now + seconds + 30;
    if (pthread_create(&thread, NULL, receive, &h) != 0) {
        ry_errorf(err, "cannot start the receiving thread");
        goto out;
    }
    rc = tr->send(tx_state, &rx, seconds, 1, h.connect_by, h.deadline, &sent, err);
    pthread_join(thread, NULL);
    if (rc == 0 && h.rc < 0) {
        ry_errorf(err, "%s", h.err.text);
        rc = -1;
    }
    if (rc == 0) {
        out->gbytes = h.stats.bw_gbps / 8;
        snprintf(out->mem, sizeof(out->mem), "%s", h.stats.mem[0] ? h.stats.mem : sent.mem);
    }
out:
    if (tx_state && tr->teardown)
        tr->teardown(tx_state);
    if (rx_state && tr->teardown)
        tr->teardown(rx_state);
    return rc;
}

/* the netdev of NIC n's first active port, NULL none */
static const char *active_netdev(const struct topo_nic *n)
{
    for (size_t p = 0; p < n->nports; p++)
        if (n->ports[p].state == 4)
            return n->ports[p].netdev ? n->ports[p].netdev : n->netdev;
    return NULL;
}

static void put(struct topo_bw_capture *c, enum topo_bw_kind k, int gpu, int nic, double v,
                const char *group)
{
    struct topo_bw x = { .kind = k, .a = gpu, .b = -1, .value = v, .nic1 = nic + 1 };

    x.group = topo_bw_capture_group(c, group);
    topo_bw_capture_add(c, &x);
}

int gdr_probe_run(struct topo_node *node, double seconds, char *notes, size_t notes_len,
                  ry_error_t *err)
{
    struct topo_bw_capture *c = topo_bw_capture_new("(this node)", "railyard probe gdr");
    int figures = 0;

    if (notes && notes_len)
        notes[0] = '\0';
    if (!node->ngpus) {
        topo_bw_capture_free(c);
        return ry_errorf(err, "no GPU in the node's topology: no GPU memory to loop");
    }
    for (size_t g = 0; g < node->ngpus; g++) {
        const struct topo_gpu *gpu = &node->gpus[g];
        int n = topo_node_nearest_nic(node, g);
        const char *netdev;
        struct gdr_loop host, dev;
        ry_error_t e = { "" };
        char spec[48];

        topo_bw_capture_gpu(c, (int)g);
        c->node_gpu[g] = (int)g;
        if (gpu->model)
            c->model[g] = xstrdup(gpu->model);
        if (gpu->loc.busid[0])
            c->busid[g] = xstrdup(gpu->loc.busid);
        if (n < 0 || !node->nics[n].rdma || !(netdev = active_netdev(&node->nics[n]))) {
            ry_appendf(notes, notes_len,
                       "gdr: gpu%zu has no RDMA NIC with an active port and a netdev "
                       "near it: not looped\n",
                       g);
            continue;
        }
        if (gdr_loopback(netdev, "host", seconds, &host, &e) < 0) {
            ry_appendf(notes, notes_len, "gdr: %s (%s) host memory: %s\n", node->nics[n].name,
                       netdev, e.text);
            continue;
        }
        put(c, TOPO_BW_NIC_LOOP, (int)g, n, host.gbytes, "nic_loopback_write_host");
        figures++;
        if (gpu->loc.busid[0])
            snprintf(spec, sizeof(spec), "cuda:%s", gpu->loc.busid);
        else
            snprintf(spec, sizeof(spec), "cuda:%zu", g);
        if (gdr_loopback(netdev, spec, seconds, &dev, &e) < 0) {
            ry_appendf(notes, notes_len, "gdr: gpu%zu through %s: %s\n", g, node->nics[n].name,
                       e.text);
            continue;
        }
        put(c, TOPO_BW_GDR, (int)g, n, dev.gbytes, "gdr_loopback_write");
        ry_appendf(notes, notes_len, "gdr: gpu%zu through %s: %s\n", g, node->nics[n].name,
                   dev.mem);
        figures++;
    }
    if (!figures) {
        topo_bw_capture_free(c);
        return ry_errorf(err, "no NIC could be looped (see the notes)");
    }
    node->bw = xrealloc(node->bw, (node->nbw + 1) * sizeof(*node->bw));
    node->bw[node->nbw++] = c;
    return figures;
}
