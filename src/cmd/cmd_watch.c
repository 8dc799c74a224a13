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
#include "reports/watch_state.h"
#include "src/cmd/cmd.h"
#include "topo/map.h"
#include "watch/events.h"
#include "watch/nvlink.h"
#include "watch/sysfs.h"

/* railyard watch: this node's ports sampled every interval (watch/sysfs.c, each read with a
 * deadline) and its GPUs' NVLinks (watch/nvlink.c, NVML in a thread of its own, with one), judged
 * into debounced events (watch/events.c), each event appended to the log and printed, and the state
 * file rewritten after every sample for the health check and the preflight (railyard-watch(1)). */

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
    OPT_NVLINK,
};

struct watch_cli {
    double interval, deadline;
    const char *log, *state, *sysfs_root, *textfile, *map;
    const char *netdev[64];
    size_t nnetdev;
    long count;
    int nvlink; /* sample the GPUs' NVLinks (NVML) */
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
    case OPT_NVLINK:
        if (strcmp(arg, "auto") && strcmp(arg, "none")) {
            cmd_error("watch: --nvlink takes auto or none, not '%s'", arg);
            return -1;
        }
        c->nvlink = !strcmp(arg, "auto");
        return 0;
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
    struct ry_watch_kept_list kept; /* open events and those closed within the window */
    struct watch_subjects v;        /* the ports, then the NVLinks */
    int changed;                    /* an event opened or closed since the textfile was written */
    char nvl_failed[160];           /* NVML failed for good: why */
};

static void on_event(enum watch_phase ph, const struct watch_event *e, void *arg)
{
    struct run *r = arg;
    ry_error_t err = { "" };
    char *line = ry_watch_event_line(ph, e, r->host, r->off, &err);
    struct ry_eventlog_limits l = { r->c->log_bytes, 4 };

    ry_watch_keep(&r->kept, ph, e);
    for (size_t i = 0; i < r->v.n; i++)
        if (ph == WATCH_OPEN && !strcmp(r->v.ports[i].subject, e->subject))
            r->v.opened[i][e->kind]++;
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
static int textfile(const struct run *r, int stopped, double now)
{
    struct ry_watch_textfile tf = { r->host,
                                    stopped,
                                    now,
                                    r->v.n,
                                    r->v.ports,
                                    r->v.s,
                                    (const char(*)[160])r->v.why,
                                    (const long(*)[WATCH_NKIND])r->v.opened,
                                    r->kept.v,
                                    r->kept.n };
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

/* the state file: the last sample's (stopped: the watch ends, a reader must not take its last
 * state for a live one) */
static int state(struct run *r, double started, double updated, int stopped, const char *nvl_why)
{
    struct ry_watch_state st = { .host = r->host,
                                 .pid = (long)getpid(),
                                 .started = started,
                                 .updated = updated,
                                 .interval = r->c->interval,
                                 .window = r->c->l.flap_window,
                                 .stopped = stopped,
                                 .nports = r->v.n,
                                 .ports = r->v.ports,
                                 .why = (const char(*)[160])r->v.why,
                                 .nvlink_why = nvl_why,
                                 .events = r->kept.v,
                                 .nevents = r->kept.n,
                                 .wall_minus_mono = r->off };
    ry_error_t err = { "" };

    if (r->c->state && ry_watch_state_write(r->c->state, &st, &err) < 0) {
        cmd_error("watch: %s", err.text);
        return -1;
    }
    return 0;
}

/* NVML's links read with a deadline (its first open waits longer: seconds on a node without
 * the persistence daemon); nvl_why: why there is none this time ("" there are; no driver: "").
 * The reader is freed once there is nothing to sample. */
#define NVML_OPEN_DEADLINE 15.0
static void read_nvlinks(struct run *r, struct watch_nvl **nvl, double t, char *nvl_why, size_t len)
{
    const struct topo_nvlink_sample *v;
    char why[160];
    long got;

    nvl_why[0] = '\0';
    if (!*nvl)
        return;
    got = watch_nvl_read(*nvl, r->c->deadline, NVML_OPEN_DEADLINE, &v, why, sizeof(why));
    if (got <= -2) { /* for good: said once */
        if (!r->json)
            printf("railyard watch: NVLinks not sampled: %s\n", why);
        if (got == -3)
            cmd_error("watch: NVLinks not sampled: %s", why);
        watch_nvl_free(*nvl);
        *nvl = NULL;
        snprintf(r->nvl_failed, sizeof(r->nvl_failed), "%s", got == -3 ? why : "");
    } else {
        size_t active, added = watch_subjects_nvlinks(&r->v, got, v, why, t, &active);
        if (added && !r->json)
            printf("railyard watch: %zu NVLink%s (%zu active)\n", added, added == 1 ? "" : "s",
                   active);
    }
    if (got == -1 && r->v.n == r->v.nsys) /* no link seen yet: the state says why */
        snprintf(nvl_why, len, "%s", why);
    else if (r->nvl_failed[0])
        snprintf(nvl_why, len, "%s", r->nvl_failed);
}

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "interval", required_argument, NULL, OPT_INTERVAL },
        { "deadline", required_argument, NULL, OPT_DEADLINE },
        { "netdev", required_argument, NULL, OPT_NETDEV },
        { "nvlink", required_argument, NULL, OPT_NVLINK },
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
        .nvlink = 1,
        .log_bytes = 16u << 20,
        .l = { .flap_count = -1, .flap_window = -1, .grace = -1, .down_after = -1, .hold = -1 }
    };
    struct run r = { .c = &c };
    struct cmd_common common;
    struct watch_sampler *sampler;
    struct watch_nvl *nvl = NULL;
    struct watch *w;
    struct sigaction sa;
    char logbuf[4096], statebuf[4096], nvl_why[160] = "";
    ry_error_t err = { "" };
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
    if (watch_sysfs_ports(c.sysfs_root, c.netdev, c.nnetdev, &r.v.ports, &r.v.nsys, &err) < 0) {
        cmd_error("watch: %s", err.text);
        return RY_EXIT_ERROR;
    }
    r.v.n = r.v.alloc[0] = r.v.nsys;
    watch_subjects_grow(&r.v, r.v.nsys + 1);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    w = watch_new(&c.l);
    sampler = watch_sampler_new(c.sysfs_root, r.v.ports, r.v.nsys);
    started = clock_s(CLOCK_REALTIME);
    if (!r.json)
        printf("railyard watch: %zu port%s every %g s (flaps: %d within %g s, grace %g s; down "
               "after %g s)%s%s\n",
               r.v.nsys, r.v.nsys == 1 ? "" : "s", c.interval, c.l.flap_count, c.l.flap_window,
               c.l.grace, c.l.down_after, c.log ? ", log " : ", no log", c.log ? c.log : "");
    fflush(stdout);
    if (c.nvlink) { /* NVML opened before the first sample, its links known */
        nvl = watch_nvl_new(NULL);
        read_nvlinks(&r, &nvl, clock_s(CLOCK_MONOTONIC), nvl_why, sizeof(nvl_why));
    }
    if (!r.v.n && !nvl) {
        cmd_error("watch: no port to watch under %s/class/infiniband (and no --netdev), and no "
                  "NVLink",
                  c.sysfs_root ? c.sysfs_root : "/sys");
        rc = RY_EXIT_ERROR;
        goto done;
    }
    fflush(stdout);
    for (long k = 0; !stop_signal && (!c.count || k < c.count); k++) {
        double t = clock_s(CLOCK_MONOTONIC), next = t + c.interval;
        r.off = clock_s(CLOCK_REALTIME) - t;
        watch_sampler_read(sampler, t, c.deadline, r.v.s, r.v.why);
        read_nvlinks(&r, &nvl, t, nvl_why, sizeof(nvl_why));
        for (size_t i = 0; i < r.v.n; i++) {
            if (!r.v.why[i][0])
                watch_feed(w, r.v.ports[i].subject, &r.v.s[i], on_event, &r);
            if (strcmp(r.v.why[i], r.v.said[i]) && r.v.why[i][0] &&
                !strstr(r.v.why[i], "still hangs"))
                cmd_error("watch: %s: not sampled: %s", r.v.ports[i].subject, r.v.why[i]);
            memcpy(r.v.said[i], r.v.why[i], sizeof(r.v.said[i]));
        }
        ry_watch_expire(&r.kept, t, c.l.flap_window);
        if (state(&r, started, t + r.off, 0, nvl_why) < 0) {
            rc = RY_EXIT_ERROR;
            break;
        }
        /* the textfile: every 10 s at most, and when an event opened or closed */
        if (c.textfile && (r.changed || t - textfile_at >= TEXTFILE_EVERY)) {
            if (textfile(&r, 0, t + r.off) < 0) {
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
    if (state(&r, started, clock_s(CLOCK_REALTIME), 1, nvl_why) < 0)
        rc = RY_EXIT_ERROR;
    if (c.textfile && textfile(&r, 1, clock_s(CLOCK_REALTIME)) < 0)
        rc = RY_EXIT_ERROR;
done:
    watch_sampler_free(sampler);
    watch_nvl_free(nvl);
    watch_free(w);
    watch_subjects_free(&r.v);
    free(r.kept.v);
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
        "  --nvlink auto|none   the GPUs' NVLinks through NVML where there is a driver (auto)\n"
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
