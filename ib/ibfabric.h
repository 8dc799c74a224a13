#ifndef RAILYARD_IB_IBFABRIC_H
#define RAILYARD_IB_IBFABRIC_H

/* ib/: the InfiniBand fabric, from ibnetdiscover dumps or live through libibnetdisc, its
 * links and port counters, judged against the map (ib/ibcheck.h). */

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "topo/iba.h"

/* An InfiniBand fabric as railyard sees it: nodes (switches, HCAs, routers), their ports with
 * the link each one trains (width, speed, state) and the port at the other end of the cable,
 * and optionally two samples of the PMA port counters. It is filled either from the text
 * `ibnetdiscover` prints (ibf_parse_ibnetdiscover) or live through libibnetdisc and libibmad
 * (ibf_discover), and judged by ibf_analyze (ib/ibcheck.h). */

enum ibf_node_type { IBF_CA = 1, IBF_SWITCH = 2, IBF_ROUTER = 3 };

struct ibf_sample {
    int valid;
    int extended;  /* the data counters are the 64-bit PortCountersExtended ones */
    int other_end; /* ... read at the other end of the cable, directions crossed (one_end) */
    double t;      /* seconds (CLOCK_MONOTONIC) */
    uint64_t v[IBF_NCTR];
};

struct ibf_port {
    int num;
    int present; /* the node has this port (switch ports exist even when not cabled) */
    uint64_t guid;
    int lid;
    int width;            /* lanes: 1, 2, 4, 8, 12; 0 not known */
    enum ibf_speed speed; /* per lane */
    int state, phys;      /* 0 not known */
    int remote;           /* node index of the other end, -1 none */
    int remote_port;
    int line; /* line of the dump that describes the port, 0 live */
    struct ibf_sample s[2];
    char *error; /* why the counters could not be read, or NULL */
};

struct ibf_node {
    enum ibf_node_type type;
    uint64_t guid;
    char *id;   /* "S-0c42a10300001000" / "H-..." (ibnetdiscover's node id) */
    char *desc; /* NodeDescription */
    char *name; /* how railyard names it: "gpu02/mlx5_1", "leaf-r2-0", or the id */
    char *host; /* for an HCA: the host ("gpu02"), or NULL */
    char *hca;  /* for an HCA: the device ("mlx5_1"), or NULL when not known */
    int nports;
    int lid;                /* switch: port 0's LID */
    struct ibf_port *ports; /* [0..nports] */
    int line;
    int pma_ext; /* PMA ClassPortInfo offers PortCountersExtended: 1, 0, or -1 not asked */
};

struct ibf_fabric {
    struct ibf_node *nodes;
    size_t n, alloc;
    char *source;     /* "ibnetdiscover file X" or "live, ca ibsim0 port 1" */
    int hops_limited; /* the dump says it covers a limited number of hops */
    /* ibnetdiscover's own error and warning lines found in a dump (its stderr mixed in):
     * "line 1: DR path 0,1,1,31: Connection timed out"; discovery was incomplete */
    char **discovery_errors;
    size_t ndiscovery_errors;
    int nsamples;    /* 0, 1 or 2 counter samples */
    double interval; /* seconds between the samples */
};

/* Add a node (strings copied); returns its index. ports are allocated for 0..nports. */
size_t ibf_add_node(struct ibf_fabric *f, enum ibf_node_type type, uint64_t guid, const char *id,
                    const char *desc, int nports);
int ibf_find_guid(const struct ibf_fabric *f, uint64_t guid); /* node index or -1 */
void ibf_fabric_free(struct ibf_fabric *f);

/* A node-name map (ibnetdiscover --node-name-map: lines "0xGUID "name"", also the
 * "H-<guid> name" form). */
struct ibf_namemap {
    uint64_t *guid;
    char **name;
    size_t n;
};
int ibf_namemap_load(struct ibf_namemap *m, const char *path, ry_error_t *err);
const char *ibf_namemap_get(const struct ibf_namemap *m, uint64_t guid);
void ibf_namemap_free(struct ibf_namemap *m);

/* Give every node its name, host and hca: from the name map (may be NULL), or an HCA whose
 * NodeDescription is "<host> <hca>", or a NodeDescription that is one word and unique, else the
 * id. */
void ibf_name_nodes(struct ibf_fabric *f, const struct ibf_namemap *m);

/* Name the HCA with this node GUID host/hca whatever its NodeDescription says (railyard check
 * --fabric knows its own HCAs' GUIDs). 1 when the fabric has it, 0 when not. */
int ibf_name_hca(struct ibf_fabric *f, uint64_t guid, const char *host, const char *hca);
/* "f877:faff:fea2:1afc" or "0xf877faff..." (sysfs, ibstat) -> the GUID, 0 when unreadable */
uint64_t ibf_guid_parse(const char *s);

/* "gpu02/mlx5_1:1" */
const char *ibf_port_label(const struct ibf_fabric *f, int node, int port, char *buf, size_t len);

/* Parse the text of `ibnetdiscover` (file name used in messages). 0, or -1 with err naming
 * FILE:LINE. */
int ibf_parse_ibnetdiscover(struct ibf_fabric *f, const char *path, ry_error_t *err);
int ibf_parse_ibnetdiscover_buffer(struct ibf_fabric *f, const char *buf, size_t len,
                                   const char *name, ry_error_t *err);

/* Live discovery from a local HCA port (ca NULL and port 0: the first usable one) through
 * libibnetdisc; timeout_ms for each MAD. Without libibnetdisc: -1 saying so. */
struct ibf_live_opts {
    const char *ca;
    int port;
    int timeout_ms;
    int retries;
    const char *only_host; /* read the counters of this host's cables only (NULL: all) */
    void *mad;             /* a MAD port kept open across samples (ibf_mad_open), or NULL */
    int one_end;       /* an HCA's data counters are read at its leaf's port only (what it receives
                        * the HCA sent): one PortCountersExtended per HCA cable instead of two */
    const char *cache; /* ibf_discover: also save the discovery there (libibnetdisc's cache) */
    /* ibf_sample_counters: read only the ports for which want() says 1 (NULL: all); the
     * others keep their samples and their error */
    int (*want)(const struct ibf_fabric *f, int node, int port, void *arg);
    void *want_arg;
};
int ibf_discover(struct ibf_fabric *f, const struct ibf_live_opts *o, ry_error_t *err);
/* The fabric of an earlier discovery from its cache (ibf_live_opts.cache), no MAD sent: its
 * source says when it was saved. 0, or -1 with err naming the file. */
int ibf_discover_cached(struct ibf_fabric *f, const char *path, ry_error_t *err);
/* Read PortCounters (and PortCountersExtended where ClassPortInfo says so) of every cabled port
 * into sample slot (0 or 1). Ports that do not answer keep an error string; -1 only when no port
 * at all could be read. */
int ibf_sample_counters(struct ibf_fabric *f, const struct ibf_live_opts *o, int slot,
                        ry_error_t *err);
int ibf_live_available(void);
/* Keep one MAD port open for every ibf_sample_counters call (a console sampling each second
 * does not register its agents again every time). 0, or -1 with err. */
int ibf_mad_open(struct ibf_live_opts *o, ry_error_t *err);
void ibf_mad_close(struct ibf_live_opts *o);

/* A port of this node read through MADs, as railyard watch reads a port whose sysfs has no
 * counters (libumad2sim's view of an ibsim HCA; a driver that leaves them to the PMA): its state
 * and physical state from its own PortInfo (a directed-route SMP with no hop), its error
 * counters from its PMA's PortCounters (LID-routed: unread, -1, while no subnet manager has
 * given it a LID). The MAD port is opened once (timeout_ms for each MAD, one retry) and kept
 * for the reads. Without libibmad, the open says so. */
struct ibf_port_read {
    int state; /* PortState: 1 Down, 2 Init, 3 Armed, 4 Active */
    int phys;  /* PortPhysicalState: 5 LinkUp */
    long long link_downed, link_recovery, symbol, rcv_errors, local_integrity, buffer_overrun;
};
/* NULL with err when it cannot be opened */
void *ibf_port_mad_open(const char *ca, int port, int timeout_ms, ry_error_t *err);
/* 0, or -1 with err when the port did not answer */
int ibf_port_mad_read(void *mad, const char *ca, int port, struct ibf_port_read *r,
                      ry_error_t *err);
void ibf_port_mad_close(void *mad);

#endif
