#ifndef RAILYARD_TOP_TOP_H
#define RAILYARD_TOP_TOP_H

/* top/: the live console (railyard top): its model, sources and views, apart from the
 * terminal. */

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* railyard top (railyard-top(1)): the live console's model and layout, kept apart from the
 * terminal so that both are tested without one. A source (top/source.c) fills one row per port
 * and pushes counter samples; top_model_derive turns the last two samples into rates and
 * judges every port; the layout functions write the lines of each view for a given width. */

enum top_state { TOP_STATE_UNKNOWN = 0, TOP_STATE_UP, TOP_STATE_DOWN };
enum top_sev { TOP_OK = 0, TOP_WARN, TOP_FAIL };
enum top_view {
    TOP_VIEW_PORTS = 0,
    TOP_VIEW_RAILS,
    TOP_VIEW_NVLINK,
    TOP_VIEW_FINDINGS,
    TOP_VIEW_MATRIX, /* --follow: the pair matrix of a running railyard-fabric */
    TOP_VIEW_EVENTS  /* what railyard watch saw, newest first */
};

/* a cell of the pair matrix */
enum top_cell {
    TOP_CELL_NONE = 0, /* not measured (yet) */
    TOP_CELL_GOOD,     /* >= 90% of the rail's reference */
    TOP_CELL_FAIR,     /* >= 50% */
    TOP_CELL_LOW,      /* below half */
    TOP_CELL_FAILED    /* the link failed */
};
enum top_sort {
    TOP_SORT_NODE = 0,
    TOP_SORT_RAIL,
    TOP_SORT_TX,
    TOP_SORT_RX,
    TOP_SORT_ERRORS,
    TOP_SORT_STATE,
    TOP_NSORT
};

#define TOP_NAME 96

struct top_port {
    char node[TOP_NAME]; /* host, or switch name */
    char dev[64];        /* "mlx5_0", "rail1", "" for a switch */
    int port;            /* 0 for a netdev */
    int rail;            /* -1 not known */
    char peer[TOP_NAME]; /* the other end of the cable, "" not known */
    int peer_rail;       /* the rail of the switch the cable reaches, -1 not known */
    enum top_state state;
    char state_text[24];
    double rate_gbps;   /* the link's rate, NAN not known */
    double expect_gbps; /* what the map expects, NAN none */
    /* the last two counter samples: bytes each way, and the error counters' sum */
    int nsamples;
    double t[2];
    uint64_t tx[2], rx[2], err[2];
    char err_names[2][160]; /* "SymbolErrorCounter=3 LinkDownedCounter=1" at each sample */
    /* derived by top_model_derive */
    double tx_gbps, rx_gbps, err_per_s; /* NAN not known */
    char rising[160];                   /* the error counters that rose */
    char unread[160]; /* set by the source: why this refresh could not read the counters */
    int src;          /* the source's own index of the port (fabric: flat port), -1 none */
    size_t name_rank; /* its place by (node, dev, port) in natural order (top_model_view) */
    char watch[160];  /* what railyard watch says of it now ("port.flapping: 3 flaps ..."), "" */
    enum top_sev sev;
    char why[160];
};

struct top_event { /* an event of railyard watch (the events view) */
    char when[24], host[64], kind[40], phase[16], subject[96], counter[48], figures[200];
    enum top_sev sev;
};

struct top_finding { /* a live check result (the fabric source's ibf_analyze) */
    enum top_sev sev;
    char check[48], subject[160], text[256];
};

struct top_model {
    struct top_port *p;
    size_t n, alloc;
    size_t hint;  /* where top_model_port looks first: sources add ports in the same order */
    size_t *slot; /* a hash of the ports by (node, dev, port): index + 1, 0 empty */
    size_t nslot;
    struct top_port *nv; /* NVLink links (the NVLink view): node the GPU, dev "nvlinkN" */
    size_t nnv, nvalloc;
    struct top_finding *f;
    size_t nf, falloc;
    int source_findings;    /* the source judges (f): ports are not counted again */
    char source[160];       /* "sysfs /", "netdev", "fabric (PMA), ca ibsim0" */
    char empty_why[256];    /* why there is no port, when none */
    char source_error[256]; /* why the last refresh could not read the source ("" it could) */
    char nvlink_why[256];   /* why the NVLink view is empty */
    struct top_event *ev;   /* railyard watch's events, newest first (at most TOP_EVENTS) */
    size_t nev;
    char watch_why[320]; /* the watch: running, since when; or why there is none */
    int refreshes;
    /* view */
    enum top_view view;
    enum top_sort sort;
    int reverse;
    char filter[64];
    size_t *order;   /* the rows shown, in order */
    size_t ranked;   /* how many ports have their name_rank: all of them, or rank again */
    size_t *by_name; /* the ports' indexes in name order (ranked of them) */
    size_t nshown;
    size_t selected;    /* index into order */
    size_t nv_selected; /* the NVLink view's selected row (index into nv) */
    char p2p_mark[64];  /* the NVLink view: the GPU marked for a peer probe ("GPU0 0000:..."), "" */
    char status[640];   /* the active test's line, "" none */
    enum top_sev status_sev;
    /* --follow: the pair matrix, nodes x nodes per rail (sender by row), and the progress */
    int mnodes, mrails;
    char (*mnames)[TOP_NAME];
    unsigned char *matrix; /* enum top_cell, [(rail * mnodes + from) * mnodes + to] */
    int mcomplete;         /* the run is over: a cell not measured will not be */
    char progress[256];
};

void top_model_init(struct top_model *m);
void top_model_free(struct top_model *m);
/* Forget every port (a source whose ports changed wholesale: a new discovery). */
void top_model_clear_ports(struct top_model *m);
/* The port (node, dev, port): found, or added with rail -1 and unknown values. */
struct top_port *top_model_port(struct top_model *m, const char *node, const char *dev, int port);
/* A counter sample at time t (seconds): bytes sent and received, the error counters' sum and
 * their "name=value" list. */
void top_port_sample(struct top_port *p, double t, uint64_t tx, uint64_t rx, uint64_t err,
                     const char *err_names);
/* An NVLink link of a GPU (the NVLink view): found, or added like a port. */
struct top_port *top_model_nvlink(struct top_model *m, const char *gpu, int link);
/* An event of railyard watch, the newest: first in the events view (the oldest beyond
 * TOP_EVENTS go). */
#define TOP_EVENTS 500
void top_model_add_event(struct top_model *m, const struct top_event *e);
void top_model_add_finding(struct top_model *m, enum top_sev sev, const char *check,
                           const char *subject, const char *text);
void top_model_clear_findings(struct top_model *m);
/* Rates from the last two samples, and every port judged: down, error counters rising
 * (fail), trained below what the map expects, cabled to another rail's leaf (warn/fail). */
void top_model_derive(struct top_model *m);
/* Apply filter and sort to fill order. */
void top_model_view(struct top_model *m);
const char *top_sort_name(enum top_sort s);
/* --view and --sort by name: 0, or -1 for a name that is not one */
int top_view_parse(const char *s, enum top_view *v);
int top_sort_parse(const char *s, enum top_sort *v);

/* P in the NVLink view: the pair of GPUs to probe, from the selected row's GPU and the GPU at
 * the other end of its link, or (NVSwitch systems: the link ends at a switch) the GPU an earlier
 * P marked (m->p2p_mark). 1 with the two PCI addresses in a and b, 0 with m->status saying what
 * to do next (or why there is nothing to select). */
int top_p2p_select(struct top_model *m, char *a, char *b, size_t len);

/* ---- layout: lines of text for a width, with the severity that colours them ---- */
struct top_line {
    char text[512];
    enum top_sev sev;
    int selected;
    int header; /* a column header line */
};

/* The header meters: ports up/total, error rate, findings, refresh; two lines. */
void top_layout_header(const struct top_model *m, int width, struct top_line out[2]);
/* The active test's line (empty text when there is none). */
void top_layout_status(const struct top_model *m, int width, struct top_line *out);
/* The footer: the keys of the current view. */
void top_layout_footer(const struct top_model *m, int width, struct top_line *out);
/* The current view's lines (a header line first), at most max; returns the count. When the
 * view is empty the only line after the header says why. */
size_t top_layout_view(const struct top_model *m, int width, struct top_line *out, size_t max);

/* "1.23", "123", "n/a": a rate in a few characters */
const char *top_fmt_gbps(double v, char *buf, size_t len);

#endif
