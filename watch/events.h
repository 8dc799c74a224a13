#ifndef RAILYARD_WATCH_EVENTS_H
#define RAILYARD_WATCH_EVENTS_H

/* watch/: railyard watch, the always-on sampler of a node's ports: what it samples
 * (watch/sysfs.h) and the debounced events it judges from the samples (this header). */

#include <stddef.h>

#include "common/error.h"

/* The judging core of railyard watch: samples of a node's ports in, debounced events out. Pure:
 * no clock, no file, no device (the sampler gives each sample its time), so that a quiet hour,
 * a flap inside the boot-time grace or a burst of errors are tested on a fake clock
 * (tests/unit/test_watch_events.c).
 *
 * A port's link goes down and comes up again: that is a flap. A flap is seen in the link state
 * from one sample to the next, and where the link went down and up between two samples, in the
 * counter of its downs (LinkDownedCounter; an Ethernet port: its netdev's carrier_changes, two
 * for each down and up). Flaps that begin within the grace after the port was first seen are
 * its training (the driver loaded, the node booted), not events.
 *
 * An NVLink (a sample with nvlink set, its state active or not) is judged as a port is, with its
 * own kinds (nvlink.flapping, nvlink.down, nvlink.errors), and one rule more: a link inactive
 * from its first sample is down once the grace is over, when any NVLink of the node has been
 * seen active (a link that never trained is not healthy; GPUs none of whose links is active are
 * PCIe cards without a bridge, not a fault). A port first seen down is not judged: a port no
 * cable is plugged into is common. */

enum watch_state { WATCH_UNKNOWN = 0, WATCH_UP, WATCH_DOWN };

/* The counters a sample may carry, -1 when not read. Error counters count errors; the
 * congestion ones (RoCE's hw_counters) count notifications and marked packets. */
enum watch_ctr {
    WATCH_CARRIER_CHANGES, /* netdev: each carrier edge, down or up */
    WATCH_LINK_DOWNED,     /* LinkDownedCounter: each time the link went down */
    WATCH_LINK_RECOVERY,   /* LinkErrorRecoveryCounter */
    WATCH_SYMBOL_ERRORS,   /* SymbolErrorCounter */
    WATCH_RCV_ERRORS,      /* PortRcvErrors */
    WATCH_LOCAL_INTEGRITY, /* LocalLinkIntegrityErrors */
    WATCH_BUFFER_OVERRUN,  /* ExcessiveBufferOverrunErrors */
    WATCH_OUT_OF_SEQUENCE, /* RoCE: out_of_sequence */
    WATCH_SEQ_ERR,         /* RoCE: packet_seq_err */
    WATCH_CNP_SENT,        /* RoCE: np_cnp_sent */
    WATCH_CNP_HANDLED,     /* RoCE: rp_cnp_handled */
    WATCH_ECN_MARKED,      /* RoCE: np_ecn_marked_roce_packets */
    WATCH_NVL_REPLAY,      /* NVLink (NVML): data link replays */
    WATCH_NVL_RECOVERY,    /* NVLink: link recoveries (retraining) */
    WATCH_NVL_CRC_FLIT,    /* NVLink: flits with a CRC error */
    WATCH_NVL_CRC_DATA,    /* NVLink: data with a CRC error (not on every GPU) */
    WATCH_NCTR
};

/* The counter's name as sysfs and the PMA give it ("SymbolErrorCounter", "np_cnp_sent"). */
const char *watch_ctr_name(enum watch_ctr c);
/* 1: an error counter (a burst is port.errors.burst, an NVLink's nvlink.errors); 0: congestion
 * (port.congestion) or a link event counter (carrier_changes, LinkDownedCounter: flaps). */
int watch_ctr_is_error(enum watch_ctr c);
int watch_ctr_is_congestion(enum watch_ctr c);

struct watch_sample {
    double t;   /* seconds on the sampler's clock (monotonic) */
    int nvlink; /* an NVLink of a GPU (its state: active or not), not a NIC's port */
    enum watch_state state;
    long long ctr[WATCH_NCTR]; /* -1: not read */
};

/* Limits; watch_limits_default fills the documented defaults (railyard-watch(1)). */
struct watch_limits {
    int flap_count;     /* port.flapping: at least this many flaps ... */
    double flap_window; /* ... within this many seconds (2 within 300) */
    double grace;       /* flaps that begin this long after a port is first seen: training (120) */
    double down_after;  /* port.down: down longer than this (7: NCCL's IB timeout at defaults) */
    double burst_per_s[WATCH_NCTR]; /* a counter's rate above this: a burst (<0: not judged) */
    double hold; /* a burst or congestion event ends after this long below its limit */
};

void watch_limits_default(struct watch_limits *l);
/* The map's watch: keys over l (and *interval): its counter limits by the names
 * watch_ctr_name gives. 0, or -1 with err naming the map, line and column of a counter the
 * watch does not read. */
struct map_watch;
int watch_limits_from_map(struct watch_limits *l, double *interval, const struct map_watch *mw,
                          const char *map_path, ry_error_t *err);

enum watch_kind {
    WATCH_EV_FLAPPING,     /* port.flapping */
    WATCH_EV_DOWN,         /* port.down */
    WATCH_EV_BURST,        /* port.errors.burst (one event per counter) */
    WATCH_EV_CONGESTION,   /* port.congestion (one event per counter) */
    WATCH_EV_NVL_FLAPPING, /* nvlink.flapping */
    WATCH_EV_NVL_DOWN,     /* nvlink.down */
    WATCH_EV_NVL_ERRORS,   /* nvlink.errors (one event per counter) */
    WATCH_NKIND
};

const char *watch_kind_name(enum watch_kind k);
/* 1 for a kind of one counter (a burst, congestion, an NVLink's errors): its event names it */
int watch_kind_has_counter(enum watch_kind k);
/* 1 for an NVLink's kind (nvlink.*), 0 for a port's */
int watch_kind_is_nvlink(enum watch_kind k);

enum watch_phase { WATCH_OPEN, WATCH_UPDATE, WATCH_CLOSE };

struct watch_event {
    enum watch_kind kind;
    const char *subject; /* the port, as the sampler named it ("mlx5_3/1") */
    enum watch_ctr ctr;  /* BURST, CONGESTION: the counter */
    double first, last;  /* when it began and when it was last seen so */
    double value;        /* FLAPPING: flaps in the window; DOWN: seconds down; BURST,
                            CONGESTION, NVL_ERRORS: the highest rate seen (per second) */
    double limit;        /* the limit it passed */
    char figures[200];   /* the figures in words: "3 flaps in 41 s (limit 2 in 300 s)" */
};

typedef void (*watch_event_fn)(enum watch_phase phase, const struct watch_event *e, void *arg);

struct watch;

struct watch *watch_new(const struct watch_limits *l);
void watch_free(struct watch *w);

/* One sample of the port subject. Samples of a port come in time order; a sample older than the
 * last is refused (-1). Each event that opens, changes its figures or closes is handed to fn. */
int watch_feed(struct watch *w, const char *subject, const struct watch_sample *s,
               watch_event_fn fn, void *arg);

/* The port is gone (its device removed, the driver unloaded): its open events close at t, and if
 * it comes back it is new (in its grace again). */
void watch_forget(struct watch *w, const char *subject, double t, watch_event_fn fn, void *arg);

/* The events open now, port by port (in the order the ports were first fed). */
size_t watch_open_events(const struct watch *w, const struct watch_event **v, size_t max);

#endif
