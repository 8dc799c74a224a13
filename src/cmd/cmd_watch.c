#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "reports/archive.h"
#include "reports/eventlog.h"
#include "reports/watch_json.h"
#include "reports/watch_prom.h"
#include "src/cmd/cmd.h"
#include "topo/map.h"
#include "watch/events.h"
#include "watch/sysfs.h"

/* railyard watch: this node's ports sampled every interval (watch/sysfs.c, each read with a
 * deadline), judged into debounced events (watch/events.c), each event appended to the log and
 * printed, and the state file rewritten after every sample for the health check and the
 * preflight (railyard-watch(1)). */

enum {
    OPT_INTERVAL = 1000,
    OPT_DEADLINE,
    OPT_NETDEV,
    OPT_LOG,
    OPT_STATE,
    OPT_COUNT,
    OPT_GRACE,
    OPT_FLAP_COUNT,
    OPT_FLAP_WINDOW,
    OPT_DOWN_AFTER,
    OPT_HOLD,
    OPT_SYSFS,
    OPT_LOG_BYTES,
    OPT_TEXTFILE,
    OPT_MAP,
};

struct watch_cli {
    double interval, deadline;
    const char *log, *state, *sysfs_root, *textfile, *map;
    const char *netdev[64];
    size_t nnetdev;
    long count;
    struct watch_limits l;
    size_t log_bytes;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

/* a number in [lo, hi] for option name, else a message and -1 */
static int number(const char *name, const char *arg, double lo, double hi, double *v)
{
    char *end;

    *v = strtod(arg, &end);
    if (end == arg || *end || !(*v >= lo && *v <= hi)) {
        cmd_error("watch: --%s takes a number from %g to %g, not '%s'", name, lo, hi, arg);
        return -1;
    }
    return 0;
}

/* a whole number in [lo, hi] */
static int whole(const char *name, const char *arg, double lo, double hi, double *v)
{
    if (number(name, arg, lo, hi, v) < 0)
        return -1;
    if (*v != floor(*v)) {
        cmd_error("watch: --%s takes a whole number, not '%s'", name, arg);
        return -1;
    }
    return 0;
}

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct watch_cli *c = ctx;
    double v;

    switch (opt) {
    case OPT_INTERVAL: return number("interval", arg, 0.05, 3600, &c->interval);
    case OPT_DEADLINE: return number("deadline", arg, 0.01, 600, &c->deadline);
    case OPT_LOG: c->log = arg; return 0;
    case OPT_STATE: c->state = arg; return 0;
    case OPT_TEXTFILE: c->textfile = strcmp(arg, "none") ? arg : NULL; return 0;
    case OPT_MAP: c->map = arg; return 0;
    case OPT_SYSFS: c->sysfs_root = arg; return 0;
    case OPT_NETDEV:
        if (c->nnetdev == sizeof(c->netdev) / sizeof(*c->netdev)) {
            cmd_error("watch: at most 64 --netdev");
            return -1;
        }
        c->netdev[c->nnetdev++] = arg;
        return 0;
    case OPT_COUNT:
        if (whole("count", arg, 1, 1e9, &v) < 0)
            return -1;
        c->count = (long)v;
        return 0;
    case OPT_GRACE: return number("grace", arg, 0, 86400, &c->l.grace);
    case OPT_FLAP_WINDOW: return number("flap-window", arg, 1, 86400, &c->l.flap_window);
    case OPT_DOWN_AFTER: return number("down-after", arg, 0, 86400, &c->l.down_after);
    case OPT_HOLD: return number("hold", arg, 0, 86400, &c->l.hold);
    case OPT_FLAP_COUNT:
        if (whole("flap-count", arg, 1, 64, &v) < 0)
            return -1;
        c->l.flap_count = (int)v;
        return 0;
    case OPT_LOG_BYTES:
        if (whole("log-bytes", arg, 4096, 1e12, &v) < 0)
            return -1;
        c->log_bytes = (size_t)v;
        return 0;
    default: return -1;
    }
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct run {
    struct watch_cli *c;
    char host[256];
    double off; /* wall - monotonic */
    int json, log_failed;
    struct ry_watch_kept *kept; /* open events and those closed within the window */
    size_t nkept, alloc;
    const struct watch_src *ports;
    size_t nports;
    long (*opened)[WATCH_NKIND]; /* per port and kind: events opened since the start */
    int changed;                 /* an event opened or closed since the textfile was written */
};

/* keep ev in the state's list: replaced where it is (same kind, subject and counter) */
static void keep(struct run *r, enum watch_phase ph, const struct watch_event *e)
{
    struct ry_watch_kept *k = NULL;

    for (size_t i = 0; i < r->nkept; i++)
        if (r->kept[i].e.kind == e->kind && r->kept[i].e.ctr == e->ctr &&
            !strcmp(r->kept[i].subject, e->subject) && r->kept[i].phase != WATCH_CLOSE)
            k = &r->kept[i];
    if (!k) {
        xgrow(&r->kept, &r->alloc, r->nkept + 1, sizeof(*r->kept));
        k = &r->kept[r->nkept++];
    }
    k->phase = ph;
    k->e = *e;
    snprintf(k->subject, sizeof(k->subject), "%s", e->subject);
    for (size_t i = 0; i < r->nkept; i++) /* e.subject points into each one's own copy */
        r->kept[i].e.subject = r->kept[i].subject;
}

/* closed events older than the window leave the state's list */
static void expire(struct run *r, double now)
{
    size_t k = 0;

    for (size_t i = 0; i < r->nkept; i++)
        if (r->kept[i].phase != WATCH_CLOSE || r->kept[i].e.last >= now - r->c->l.flap_window)
            r->kept[k++] = r->kept[i];
    r->nkept = k;
    for (size_t i = 0; i < r->nkept; i++)
        r->kept[i].e.subject = r->kept[i].subject;
}

static void on_event(enum watch_phase ph, const struct watch_event *e, void *arg)
{
    struct run *r = arg;
    ry_error_t err = { "" };
    char *line = ry_watch_event_line(ph, e, r->host, r->off, &err);
    struct ry_eventlog_limits l = { r->c->log_bytes, 4 };

    keep(r, ph, e);
    for (size_t i = 0; i < r->nports; i++)
        if (ph == WATCH_OPEN && !strcmp(r->ports[i].subject, e->subject))
            r->opened[i][e->kind]++;
    r->changed |= ph != WATCH_UPDATE;
    if (line && r->c->log && ry_eventlog_append(r->c->log, line, &l, &err) < 0 && !r->log_failed) {
        cmd_error("watch: %s", err.text); /* said once; the events still go to the output */
        r->log_failed = 1;
    }
    if (r->json && line)
        printf("%s\n", line);
    else if (!r->json) {
        char when[32];
        ry_iso_time((time_t)(e->last + r->off), when, sizeof(when));
        printf("%s  %-6s %-18s %-12s %s\n", when,
               ph == WATCH_OPEN     ? "OPEN"
               : ph == WATCH_UPDATE ? "UPDATE"
                                    : "CLOSE",
               watch_kind_name(e->kind), e->subject, e->figures);
    }
    fflush(stdout);
    free(line);
}

/* node_exporter's textfile: each port's last sample, the events (the state's list) */
#define TEXTFILE_EVERY 10.0
static int textfile(const struct run *r, const struct watch_sample *s, char (*why)[160],
                    int stopped, double now)
{
    struct ry_watch_textfile tf = { r->host,
                                    stopped,
                                    now,
                                    r->nports,
                                    r->ports,
                                    s,
                                    (const char(*)[160])why,
                                    (const long(*)[WATCH_NKIND])r->opened,
                                    r->kept,
                                    r->nkept };
    ry_error_t err = { "" };

    if (ry_watch_textfile_write(r->c->textfile, &tf, &err) < 0) {
        cmd_error("watch: %s", err.text);
        return -1;
    }
    return 0;
}

/* the limits and the interval: the options given, else the map's watch: keys, else the
 * defaults */
static int limits(struct watch_cli *c, ry_error_t *err)
{
    struct watch_limits d;
    struct topo_map *map = NULL;
    double interval = 1;
    int rc = 0;

    watch_limits_default(&d);
    if (c->map && (!(map = topo_map_load(c->map, err)) ||
                   watch_limits_from_map(&d, &interval, &map->watch, c->map, err) < 0))
        rc = -1;
    topo_map_destroy(map);
    if (c->interval < 0)
        c->interval = interval;
    if (c->l.flap_count < 0)
        c->l.flap_count = d.flap_count;
    if (c->l.flap_window < 0)
        c->l.flap_window = d.flap_window;
    if (c->l.grace < 0)
        c->l.grace = d.grace;
    if (c->l.down_after < 0)
        c->l.down_after = d.down_after;
    if (c->l.hold < 0)
        c->l.hold = d.hold;
    memcpy(c->l.burst_per_s, d.burst_per_s, sizeof(d.burst_per_s));
    return rc;
}

/* the default place of the log and the state: the archive's watch/ folder */
static const char *in_archive(const char *given, const char *file, char *buf, size_t len)
{
    const char *root = ry_archive_default();

    if (given)
        return strcmp(given, "none") ? given : NULL;
    if (!root)
        return NULL;
    snprintf(buf, len, "%s/watch", root);
    mkdir(root, 0755);
    mkdir(buf, 0755);
    snprintf(buf, len, "%s/watch/%s", root, file);
    return buf;
}

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "interval", required_argument, NULL, OPT_INTERVAL },
        { "deadline", required_argument, NULL, OPT_DEADLINE },
        { "netdev", required_argument, NULL, OPT_NETDEV },
        { "log", required_argument, NULL, OPT_LOG },
        { "log-bytes", required_argument, NULL, OPT_LOG_BYTES },
        { "state", required_argument, NULL, OPT_STATE },
        { "count", required_argument, NULL, OPT_COUNT },
        { "grace", required_argument, NULL, OPT_GRACE },
        { "flap-count", required_argument, NULL, OPT_FLAP_COUNT },
        { "flap-window", required_argument, NULL, OPT_FLAP_WINDOW },
        { "down-after", required_argument, NULL, OPT_DOWN_AFTER },
        { "hold", required_argument, NULL, OPT_HOLD },
        { "sysfs-root", required_argument, NULL, OPT_SYSFS },
        { "textfile", required_argument, NULL, OPT_TEXTFILE },
        { "map", required_argument, NULL, OPT_MAP },
        { NULL, 0, NULL, 0 },
    };
    /* -1: not given (the map's, else the default) */
    struct watch_cli c = {
        .interval = -1,
        .deadline = -1,
        .log_bytes = 16u << 20,
        .l = { .flap_count = -1, .flap_window = -1, .grace = -1, .down_after = -1, .hold = -1 }
    };
    struct run r = { .c = &c };
    struct cmd_common common;
    struct watch_src *ports = NULL;
    struct watch_sample *s;
    struct watch_sampler *sampler;
    struct watch *w;
    struct sigaction sa;
    char(*why)[160], logbuf[4096], statebuf[4096], (*said)[160];
    ry_error_t err = { "" };
    size_t n = 0;
    double started, textfile_at = -1e18;
    int idx, rc = RY_EXIT_OK;

    if ((idx = cmd_parse(&cmd_watch, argc, argv, &common, extra, "", on_opt, &c)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc) {
        cmd_error("watch: unexpected argument '%s'", argv[idx]);
        return RY_EXIT_ERROR;
    }
    if (limits(&c, &err) < 0) {
        cmd_error("watch: %s", err.text);
        return RY_EXIT_ERROR;
    }
    if (c.deadline < 0)
        c.deadline = c.interval < 2 ? c.interval * 0.8 : 2;
    r.json = common.json;
    c.log = in_archive(c.log, "events.jsonl", logbuf, sizeof(logbuf));
    c.state = in_archive(c.state, "state.json", statebuf, sizeof(statebuf));
    if (gethostname(r.host, sizeof(r.host) - 1) < 0)
        snprintf(r.host, sizeof(r.host), "localhost");
    if (watch_sysfs_ports(c.sysfs_root, c.netdev, c.nnetdev, &ports, &n, &err) < 0) {
        cmd_error("watch: %s", err.text);
        return RY_EXIT_ERROR;
    }
    if (!n) {
        cmd_error("watch: no port to watch under %s/class/infiniband (and no --netdev)",
                  c.sysfs_root ? c.sysfs_root : "/sys");
        free(ports);
        return RY_EXIT_ERROR;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    s = xcalloc(n, sizeof(*s));
    why = xcalloc(n, sizeof(*why));
    said = xcalloc(n, sizeof(*said));
    r.ports = ports;
    r.nports = n;
    r.opened = xcalloc(n, sizeof(*r.opened));
    w = watch_new(&c.l);
    sampler = watch_sampler_new(c.sysfs_root, ports, n);
    started = clock_s(CLOCK_REALTIME);
    if (!r.json)
        printf("railyard watch: %zu port%s every %g s (flaps: %d within %g s, grace %g s; down "
               "after %g s)%s%s\n",
               n, n == 1 ? "" : "s", c.interval, c.l.flap_count, c.l.flap_window, c.l.grace,
               c.l.down_after, c.log ? ", log " : ", no log", c.log ? c.log : "");
    fflush(stdout);
    for (long k = 0; !stop_signal && (!c.count || k < c.count); k++) {
        double t = clock_s(CLOCK_MONOTONIC), next = t + c.interval;
        struct ry_watch_state st;
        r.off = clock_s(CLOCK_REALTIME) - t;
        watch_sampler_read(sampler, t, c.deadline, s, why);
        for (size_t i = 0; i < n; i++) {
            if (!why[i][0])
                watch_feed(w, ports[i].subject, &s[i], on_event, &r);
            if (strcmp(why[i], said[i]) && why[i][0] && !strstr(why[i], "still hangs"))
                cmd_error("watch: %s: not sampled: %s", ports[i].subject, why[i]);
            memcpy(said[i], why[i], sizeof(said[i]));
        }
        expire(&r, t);
        st = (struct ry_watch_state){ .host = r.host,
                                      .pid = (long)getpid(),
                                      .started = started,
                                      .updated = t + r.off,
                                      .interval = c.interval,
                                      .window = c.l.flap_window,
                                      .nports = n,
                                      .ports = ports,
                                      .why = (const char(*)[160])why,
                                      .events = r.kept,
                                      .nevents = r.nkept,
                                      .wall_minus_mono = r.off };
        if (c.state && ry_watch_state_write(c.state, &st, &err) < 0) {
            cmd_error("watch: %s", err.text);
            rc = RY_EXIT_ERROR;
            break;
        }
        /* the textfile: every 10 s at most, and when an event opened or closed */
        if (c.textfile && (r.changed || t - textfile_at >= TEXTFILE_EVERY)) {
            if (textfile(&r, s, why, 0, t + r.off) < 0) {
                rc = RY_EXIT_ERROR;
                break;
            }
            textfile_at = t;
            r.changed = 0;
        }
        if (c.count && k + 1 >= c.count)
            break;
        while (!stop_signal && (t = clock_s(CLOCK_MONOTONIC)) < next) {
            struct timespec nap = { 0, (long)(fmin(next - t, 0.2) * 1e9) };
            nanosleep(&nap, NULL);
        }
    }
    if (c.state) { /* the watch ends: a reader must not take its last state for a live one */
        struct ry_watch_state st = { .host = r.host,
                                     .pid = (long)getpid(),
                                     .started = started,
                                     .updated = clock_s(CLOCK_REALTIME),
                                     .interval = c.interval,
                                     .window = c.l.flap_window,
                                     .stopped = 1,
                                     .nports = n,
                                     .ports = ports,
                                     .why = (const char(*)[160])why,
                                     .events = r.kept,
                                     .nevents = r.nkept,
                                     .wall_minus_mono = r.off };
        if (ry_watch_state_write(c.state, &st, &err) < 0) {
            cmd_error("watch: %s", err.text);
            rc = RY_EXIT_ERROR;
        }
    }
    if (c.textfile && textfile(&r, s, why, 1, clock_s(CLOCK_REALTIME)) < 0)
        rc = RY_EXIT_ERROR;
    watch_sampler_free(sampler);
    watch_free(w);
    free(s);
    free(why);
    free(said);
    free(r.kept);
    free(r.opened);
    free(ports);
    return rc;
}

const struct cmd_entry cmd_watch = {
    .name = "watch",
    .run = run,
    .usage = "watch [--interval S] [--netdev NAME]... [--log FILE] [--state FILE] [--count N]",
    .summary = "sample this node's ports always: flaps, downs, error bursts as debounced events",
    .options =
        "  --interval <s>       seconds between samples (default 1)\n"
        "  --deadline <s>       a port's read that takes longer is said to hang (default 0.8 of\n"
        "                       the interval, at most 2)\n"
        "  --netdev <name>      also watch this network interface (repeatable)\n"
        "  --log <file>         append the events here, one JSON line each (default\n"
        "                       /var/lib/railyard/watch/events.jsonl for root; none: no log)\n"
        "  --log-bytes <n>      rotate the log past this size (default 16 MiB; 4 kept)\n"
        "  --state <file>       the state the health check reads (default\n"
        "                       /var/lib/railyard/watch/state.json for root; none: no state)\n"
        "  --map <file>         the thresholds of the map's watch: keys (the options win)\n"
        "  --textfile <file>    node_exporter's textfile: ports, counters, events (every 10 s\n"
        "                       and at each event; default none)\n"
        "  --count <n>          stop after n samples (default: until SIGTERM)\n"
        "  --grace <s>          flaps this soon after a port appears are its training (120)\n"
        "  --flap-count <n>     port.flapping: at least n flaps ... (2)\n"
        "  --flap-window <s>    ... within this many seconds (300)\n"
        "  --down-after <s>     port.down: down longer than this (7)\n"
        "  --hold <s>           a burst ends this long after its rate falls back (60)\n"
        "  --sysfs-root <dir>   read sysfs from <dir> (it stands for /sys)\n",
    .no_node_inputs = 1,
};
