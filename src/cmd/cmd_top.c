#include "config.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_NCURSESW
#include <curses.h>
#endif

#include "common/sysfs.h"
#include "probes/gpu.h"
#include "readers/nvml.h"
#include "src/cmd/cmd.h"
#include "top/source.h"
#include "top/test.h"
#include "top/top.h"
#include "topo/gpubw.h"
#include "topo/map.h"

/* railyard top: the live console (railyard-top(1)). Each refresh reads one sample from the
 * source, derives rates and judgements (top/model.c) and draws the current view: through
 * ncursesw on a terminal, as plain text with --batch (or when stdout is not a terminal). */

/* where root's console keeps the fabric's last discovery */
#define RY_FABRIC_CACHE_DIR "/var/cache/railyard"

enum {
    OPT_SOURCE = 400,
    OPT_SYSFS,
    OPT_NETDEV,
    OPT_VIEW,
    OPT_SORT,
    OPT_FILTER,
    OPT_CA,
    OPT_PORT,
    OPT_TEST_CMD,
    OPT_PEER,
    OPT_TEST_TIMEOUT,
    OPT_FOLLOW,
    OPT_FABRIC_CACHE,
    OPT_READ_ALL,
    OPT_WATCH
};

struct top_cli {
    const char *source, *sysfs_root, *map, *node, *netdev, *view, *sort, *filter, *ca;
    const char *test_cmd, *peer, *follow, *fabric_cache, *watch;
    double test_timeout;
    const struct topo_map *mapped;
    double delay;
    long count;
    int batch, port;
    long read_all;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct top_cli *c = ctx;
    char *end;

    switch (opt) {
    case OPT_SOURCE: c->source = arg; return 0;
    case OPT_SYSFS: c->sysfs_root = arg; return 0;
    case OPT_NETDEV: c->netdev = arg; return 0;
    case OPT_VIEW: c->view = arg; return 0;
    case OPT_SORT: c->sort = arg; return 0;
    case OPT_FILTER: c->filter = arg; return 0;
    case OPT_CA: c->ca = arg; return 0;
    case OPT_TEST_CMD: c->test_cmd = arg; return 0;
    case OPT_PEER: c->peer = arg; return 0;
    case OPT_FOLLOW: c->follow = arg; return 0;
    case OPT_FABRIC_CACHE: c->fabric_cache = arg; return 0;
    case OPT_WATCH: c->watch = arg; return 0;
    case OPT_READ_ALL:
        c->read_all = strtol(arg, &end, 10);
        if (end == arg || *end || c->read_all < 1) {
            cmd_error("top: --read-all takes a number of ports (>= 1), not '%s'", arg);
            return -1;
        }
        return 0;
    case OPT_TEST_TIMEOUT:
        c->test_timeout = strtod(arg, &end);
        if (end == arg || *end || !(c->test_timeout >= 1 && c->test_timeout <= 86400)) {
            cmd_error("top: --test-timeout takes seconds (1 to 86400), not '%s'", arg);
            return -1;
        }
        return 0;
    case 'm': c->map = arg; return 0;
    case 'N': c->node = arg; return 0;
    case 'b': c->batch = 1; return 0;
    case OPT_PORT:
        c->port = (int)strtol(arg, &end, 10);
        if (end == arg || *end || c->port < 1 || c->port > 254) {
            cmd_error("top: --port takes a port number, not '%s'", arg);
            return -1;
        }
        return 0;
    case 'd':
        c->delay = strtod(arg, &end);
        if (end == arg || *end || !(c->delay >= 0.1 && c->delay <= 3600)) {
            cmd_error("top: -d takes seconds between 0.1 and 3600, not '%s'", arg);
            return -1;
        }
        return 0;
    case 'n':
        c->count = strtol(arg, &end, 10);
        if (end == arg || *end || c->count < 1) {
            cmd_error("top: -n takes a number of refreshes (>= 1), not '%s'", arg);
            return -1;
        }
        return 0;
    }
    return -1;
}

#define MAX_LINES 4096

/* one refresh: a sample from the source, rates, judgements, the view */
static void refresh_model(struct top_source *src, struct top_model *m)
{
    ry_error_t err;

    if (top_source_sample(src, m, top_now(), &err) < 0) {
        snprintf(m->empty_why, sizeof(m->empty_why), "%.250s", err.text);
        /* nothing read: what the ports showed is no longer known, and the header says why */
        snprintf(m->source_error, sizeof(m->source_error), "%.250s", err.text);
        for (size_t i = 0; i < m->n; i++)
            m->p[i].nsamples = 0;
    } else
        m->source_error[0] = '\0';
    top_nvlink_sample(src, m, top_now());
    top_watch_refresh(&src->watch, m, src->host, top_wall_now());
    top_model_derive(m);
    top_model_view(m);
    m->refreshes++;
}

static void print_batch(const struct top_model *m, struct top_line *lines)
{
    struct top_line head[2];
    size_t n = top_layout_view(m, 200, lines, MAX_LINES);

    top_layout_header(m, 200, head);
    printf("%s\n%s\n", head[0].text, head[1].text);
    if (m->status[0])
        printf("%s\n", m->status);
    for (size_t i = 0; i < n; i++)
        printf("%s%s\n",
               lines[i].sev == TOP_FAIL   ? "! "
               : lines[i].sev == TOP_WARN ? "? "
                                          : "  ",
               lines[i].text);
    printf("\n");
    fflush(stdout);
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (!stop_signal && nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

#ifdef HAVE_NCURSESW
static int curses_on;
/* While the screen is drawn, what libraries write to stderr (libibmad's ibwarn lines) goes to
 * a temporary file, and is shown when the terminal is given back. */
static FILE *err_log;
static int err_saved = -1;

static void stderr_capture(void)
{
    if (!isatty(STDERR_FILENO) || !(err_log = tmpfile()))
        return;
    fflush(stderr);
    if ((err_saved = dup(STDERR_FILENO)) < 0 || dup2(fileno(err_log), STDERR_FILENO) < 0) {
        fclose(err_log);
        err_log = NULL;
    }
}

static void stderr_restore(void)
{
    char line[512];
    int n = 0;

    if (!err_log)
        return;
    fflush(stderr);
    dup2(err_saved, STDERR_FILENO);
    close(err_saved);
    rewind(err_log);
    while (fgets(line, sizeof(line), err_log) && n++ < 20)
        fprintf(stderr, "%s%s", n == 1 ? "railyard top: said while the console ran:\n  " : "  ",
                line);
    fclose(err_log);
    err_log = NULL;
}

static void curses_end(void)
{
    if (curses_on) {
        endwin();
        curses_on = 0;
        stderr_restore();
    }
}

static void draw(const struct top_model *m, struct top_line *lines, const char *prompt)
{
    struct top_line head[2], foot;
    int rows = LINES, cols = COLS, body = rows - 4;
    size_t n, first = 0;

    erase();
    top_layout_header(m, cols, head);
    for (int i = 0; i < 2 && i < rows; i++) {
        attrset(head[i].sev == TOP_FAIL   ? COLOR_PAIR(1) | A_BOLD
                : head[i].sev == TOP_WARN ? COLOR_PAIR(2) | A_BOLD
                                          : A_BOLD);
        mvaddstr(i, 0, head[i].text);
    }
    n = top_layout_view(m, cols, lines, MAX_LINES);
    /* keep the selected row on screen */
    if (body > 1 && m->view == TOP_VIEW_PORTS && m->selected + 2 > (size_t)body)
        first = m->selected + 2 - (size_t)body;
    if (body > 1 && m->view == TOP_VIEW_NVLINK && m->nv_selected + 2 > (size_t)body)
        first = m->nv_selected + 2 - (size_t)body;
    for (size_t i = 0, y = 3; i < n && (int)y < rows - 1; i++) {
        if (i > 0 && i < first + 1)
            continue;
        attrset(lines[i].header            ? A_REVERSE
                : lines[i].sev == TOP_FAIL ? COLOR_PAIR(1)
                : lines[i].sev == TOP_WARN ? COLOR_PAIR(2)
                                           : A_NORMAL);
        if (lines[i].selected)
            attron(A_REVERSE);
        mvaddstr((int)y++, 0, lines[i].text);
    }
    if (m->status[0] && rows > 2) {
        struct top_line st;
        top_layout_status(m, cols, &st);
        attrset(st.sev == TOP_FAIL   ? COLOR_PAIR(1) | A_BOLD
                : st.sev == TOP_WARN ? COLOR_PAIR(2) | A_BOLD
                                     : A_BOLD);
        move(rows - 2, 0);
        clrtoeol();
        mvaddstr(rows - 2, 0, st.text);
    }
    attrset(A_REVERSE);
    if (prompt) {
        mvaddnstr(rows - 1, 0, prompt, cols);
    } else {
        top_layout_footer(m, cols, &foot);
        mvaddstr(rows - 1, 0, foot.text);
    }
    attrset(A_NORMAL);
    refresh();
}

/* the p2p probe of railyard-probe(1) on GPUs a and b (64 MiB copies, 5 samples): the figures on
 * the status line */
static void p2p_run(struct top_model *m, const char *a, const char *b)
{
    struct gpu_probe_opts go = { .only = GPU_PROBE_P2P,
                                 .copy_bytes = (size_t)64 << 20,
                                 .samples = 5 };
    struct topo_node *node = topo_node_create();
    ry_error_t err = { "" };
    char fig[400] = "";
    size_t used = 0;

    go.pair[0] = a;
    go.pair[1] = b;
    if (gpu_probe_run(node, &go, NULL, 0, &err) < 0) {
        m->status_sev = TOP_WARN;
        snprintf(m->status, sizeof(m->status), "P2P %s <-> %s: %.500s", a, b, err.text);
        topo_node_destroy(node);
        return;
    }
    for (size_t i = 0; node->nbw && i < node->bw[0]->n && used < sizeof(fig); i++) {
        const struct topo_bw *v = &node->bw[0]->v[i];
        const char *what = v->kind == TOPO_BW_P2P_BIDIR        ? "both ways"
                           : v->kind == TOPO_BW_P2P_HOST_BIDIR ? "both ways through host"
                           : v->kind == TOPO_BW_P2P_HOST       ? "through host"
                           : v->kind == TOPO_BW_P2P && v->sm   ? "read"
                           : v->kind == TOPO_BW_P2P            ? "write"
                           : v->kind == TOPO_BW_P2P_LATENCY    ? "latency"
                                                               : NULL;
        if (!what)
            continue;
        used += (size_t)snprintf(fig + used, sizeof(fig) - used, "%s%s %d->%d %.*f %s",
                                 used ? ", " : "", what, v->a, v->b,
                                 topo_bw_is_latency(v->kind) ? 2 : 1, v->value,
                                 topo_bw_is_latency(v->kind) ? "us" : "GB/s");
    }
    m->status_sev = TOP_OK;
    snprintf(m->status, sizeof(m->status), "P2P 0=%s 1=%s: %.500s", a, b,
             fig[0] ? fig : "no figure");
    topo_node_destroy(node);
}

/* keys: 1 when the view changed (redraw), -1 to quit */
/* t: the active test of the selected port */
static void start_test(struct top_model *m, const struct top_cli *c, struct top_test *t)
{
    const struct top_port *p;
    char peer[TOP_NAME];
    ry_error_t err;

    m->status_sev = TOP_WARN;
    if (m->view != TOP_VIEW_PORTS || !m->nshown) {
        snprintf(m->status, sizeof(m->status), "test: select a port in the ports view (p)");
        return;
    }
    p = &m->p[m->order[m->selected]];
    if (!c->test_cmd) {
        snprintf(m->status, sizeof(m->status),
                 "test: no test command (--test-cmd or $RAILYARD_TOP_TEST; railyard-top(1))");
        return;
    }
    if (p->rail < 0) {
        snprintf(m->status, sizeof(m->status), "test: %.80s %.40s has no rail (give the map)",
                 p->node, p->dev);
        return;
    }
    if (c->peer)
        snprintf(peer, sizeof(peer), "%s", c->peer);
    else if (top_test_peer(m, c->mapped, p, peer, sizeof(peer)) < 0) {
        snprintf(m->status, sizeof(m->status),
                 "test: no peer for %.80s rail %d (--peer, or a map naming the nodes)", p->node,
                 p->rail);
        return;
    }
    if (top_test_start(t, c->test_cmd, p, peer, c->test_timeout, &err) < 0) {
        snprintf(m->status, sizeof(m->status), "test: %.240s", err.text);
        return;
    }
    m->status_sev = TOP_OK;
    snprintf(m->status, sizeof(m->status), "test %.80s rail %d <-> %.80s: running", p->node,
             p->rail, peer);
}

static int key(struct top_model *m, int ch, char *filter_edit, int *editing)
{
    if (*editing) {
        size_t l = strlen(filter_edit);
        if (ch == '\n' || ch == KEY_ENTER) {
            snprintf(m->filter, sizeof(m->filter), "%s", filter_edit);
            *editing = 0;
        } else if (ch == 27) {
            *editing = 0;
        } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && l > 0) {
            filter_edit[l - 1] = '\0';
        } else if (ch >= 0x20 && ch < 0x7f && l + 1 < sizeof(m->filter)) {
            filter_edit[l] = (char)ch;
            filter_edit[l + 1] = '\0';
        }
        top_model_view(m);
        return 1;
    }
    switch (ch) {
    case 'q':
    case 'Q': return -1;
    case 'p': m->view = TOP_VIEW_PORTS; break;
    case 'r': m->view = TOP_VIEW_RAILS; break;
    case 'n': m->view = TOP_VIEW_NVLINK; break;
    case 'f': m->view = TOP_VIEW_FINDINGS; break;
    case 'e': m->view = TOP_VIEW_EVENTS; break;
    case 'm':
        if (!m->matrix)
            return 0;
        m->view = TOP_VIEW_MATRIX;
        break;
    case 's': m->sort = (enum top_sort)((m->sort + 1) % TOP_NSORT); break;
    case 'S': m->reverse = !m->reverse; break;
    case '/':
        *editing = 1;
        snprintf(filter_edit, sizeof(m->filter), "%s", m->filter);
        break;
    case KEY_UP:
        if (m->view == TOP_VIEW_NVLINK) {
            if (m->nv_selected > 0)
                m->nv_selected--;
        } else if (m->selected > 0)
            m->selected--;
        break;
    case KEY_DOWN:
        if (m->view == TOP_VIEW_NVLINK) {
            if (m->nv_selected + 1 < m->nnv)
                m->nv_selected++;
        } else if (m->selected + 1 < m->nshown)
            m->selected++;
        break;
    case KEY_RESIZE: break;
    default: return 0;
    }
    top_model_view(m);
    return 1;
}

static int run_curses(struct top_source *src, struct top_model *m, const struct top_cli *c,
                      struct top_line *lines, struct top_test *t)
{
    char filter_edit[64] = "", prompt[128];
    int editing = 0;

    setlocale(LC_ALL, "");
    stderr_capture();
    if (!initscr()) {
        stderr_restore();
        cmd_error("top: cannot start the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
        return RY_EXIT_ERROR;
    }
    curses_on = 1;
    atexit(curses_end);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
        init_pair(1, COLOR_RED, -1);
        init_pair(2, COLOR_YELLOW, -1);
    }
    while (!stop_signal) {
        double next;
        refresh_model(src, m);
        draw(m, lines, NULL);
        if (c->count && m->refreshes >= c->count)
            break;
        next = top_now() + c->delay;
        while (!stop_signal) { /* keys until the next refresh */
            double left = next - top_now();
            int ch, k;
            if (left <= 0)
                break;
            if (top_test_running(t)) { /* the test's output, read as it comes */
                if (top_test_poll(t, m) || top_test_running(t))
                    draw(m, lines, NULL);
                if (left > 0.2)
                    left = 0.2;
            }
            timeout((int)(left * 1000) + 1);
            if ((ch = getch()) == ERR)
                continue;
            if (!editing && ch == 't') {
                start_test(m, c, t);
                draw(m, lines, NULL);
                continue;
            }
            if (!editing && ch == 'P') {
                char a[TOPO_BUSID_LEN + 8], b[TOPO_BUSID_LEN + 8];
                if (top_p2p_select(m, a, b, sizeof(a))) {
                    m->status_sev = TOP_OK;
                    snprintf(m->status, sizeof(m->status), "P2P %s <-> %s: measuring...", a, b);
                    draw(m, lines, NULL);
                    p2p_run(m, a, b);
                }
                draw(m, lines, NULL);
                continue;
            }
            if ((k = key(m, ch, filter_edit, &editing)) < 0) {
                curses_end();
                return RY_EXIT_OK;
            }
            snprintf(prompt, sizeof(prompt), "filter: %s_", filter_edit);
            if (k)
                draw(m, lines, editing ? prompt : NULL);
        }
    }
    curses_end();
    return RY_EXIT_OK;
}
#endif

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "source", required_argument, NULL, OPT_SOURCE },
        { "sysfs-root", required_argument, NULL, OPT_SYSFS },
        { "netdev", required_argument, NULL, OPT_NETDEV },
        { "map", required_argument, NULL, 'm' },
        { "node", required_argument, NULL, 'N' },
        { "ca", required_argument, NULL, OPT_CA },
        { "port", required_argument, NULL, OPT_PORT },
        { "delay", required_argument, NULL, 'd' },
        { "iterations", required_argument, NULL, 'n' },
        { "batch", no_argument, NULL, 'b' },
        { "view", required_argument, NULL, OPT_VIEW },
        { "sort", required_argument, NULL, OPT_SORT },
        { "filter", required_argument, NULL, OPT_FILTER },
        { "test-cmd", required_argument, NULL, OPT_TEST_CMD },
        { "peer", required_argument, NULL, OPT_PEER },
        { "test-timeout", required_argument, NULL, OPT_TEST_TIMEOUT },
        { "follow", required_argument, NULL, OPT_FOLLOW },
        { "fabric-cache", required_argument, NULL, OPT_FABRIC_CACHE },
        { "read-all", required_argument, NULL, OPT_READ_ALL },
        { "watch", required_argument, NULL, OPT_WATCH },
        { NULL, 0, NULL, 0 },
    };
    struct top_cli c = { .delay = 1.0, .test_timeout = 60 };
    struct top_test test;
    struct cmd_common common;
    struct top_source src;
    struct top_model m;
    struct topo_map *map = NULL;
    struct top_line *lines = NULL;
    struct sigaction sa;
    char host[256] = "localhost";
    ry_error_t err;
    int idx, rc = RY_EXIT_ERROR;

    if ((idx = cmd_parse(&cmd_top, argc, argv, &common, extra, "m:d:n:b", on_opt, &c)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc) {
        cmd_error("top: unexpected argument '%s'", argv[idx]);
        return RY_EXIT_ERROR;
    }
    top_model_init(&m);
    top_test_init(&test);
    memset(&src, 0, sizeof(src));
    if (!c.test_cmd && getenv("RAILYARD_TOP_TEST") && *getenv("RAILYARD_TOP_TEST"))
        c.test_cmd = getenv("RAILYARD_TOP_TEST");
    if (c.view && top_view_parse(c.view, &m.view) < 0) {
        cmd_error("top: unknown view '%s' (ports, rails, nvlink, findings, matrix, events)",
                  c.view);
        return RY_EXIT_ERROR;
    }
    if (c.sort && top_sort_parse(c.sort, &m.sort) < 0) {
        cmd_error("top: unknown sort key '%s' (node, rail, tx, rx, errors, state)", c.sort);
        return RY_EXIT_ERROR;
    }
    if (c.filter)
        snprintf(m.filter, sizeof(m.filter), "%s", c.filter);
    if (c.map && !(map = topo_map_load(c.map, &err))) {
        cmd_error("top: %s", err.text);
        return RY_EXIT_ERROR;
    }
    if (gethostname(host, sizeof(host) - 1) < 0)
        snprintf(host, sizeof(host), "localhost");
    src.host = c.node ? c.node : host;
    src.sysfs_root = c.sysfs_root;
    src.netdev_match = c.netdev;
    src.map = map;
    c.mapped = map;
    src.live.ca = c.ca;
    src.live.port = c.port;
    src.live.retries = -1;
    src.live.one_end = 1; /* traffic of an HCA cable read at the leaf: half the queries */
    /* the last discovery, kept for the console's next first screen: --fabric-cache, else
     * $RAILYARD_FABRIC_CACHE, else RY_FABRIC_CACHE for root ("none": no cache) */
    if (!c.fabric_cache)
        c.fabric_cache = getenv("RAILYARD_FABRIC_CACHE");
    if (!c.fabric_cache && c.source && !strcmp(c.source, "fabric") && geteuid() == 0 &&
        (mkdir(RY_FABRIC_CACHE_DIR, 0755) == 0 || errno == EEXIST))
        c.fabric_cache = RY_FABRIC_CACHE_DIR "/fabric.cache";
    if (c.fabric_cache && *c.fabric_cache && strcmp(c.fabric_cache, "none"))
        src.live.cache = c.fabric_cache;
    src.cache_first = !c.batch && isatty(STDOUT_FILENO);
    src.read_all = (size_t)c.read_all;
    src.follow_dir = c.follow;
    top_watch_init(&src.watch, c.watch);
    if (c.follow) {
        if (c.source) {
            cmd_error("top: --follow reads a run directory: no --source with it");
            goto out;
        }
        src.kind = TOP_SRC_FOLLOW;
        if (!c.view)
            m.view = TOP_VIEW_MATRIX;
    } else if (c.view && m.view == TOP_VIEW_MATRIX) {
        cmd_error("top: the matrix view is --follow's");
        goto out;
    } else if (!c.source || !strcmp(c.source, "auto"))
        src.kind =
            ry_sysfs_exists(c.sysfs_root, "class/infiniband") ? TOP_SRC_SYSFS : TOP_SRC_NETDEV;
    else if (!strcmp(c.source, "sysfs"))
        src.kind = TOP_SRC_SYSFS;
    else if (!strcmp(c.source, "netdev"))
        src.kind = TOP_SRC_NETDEV;
    else if (!strcmp(c.source, "fabric"))
        src.kind = TOP_SRC_FABRIC;
    else {
        cmd_error("top: unknown source '%s' (sysfs, netdev, fabric)", c.source);
        goto out;
    }
    if (src.kind == TOP_SRC_FABRIC && !ibf_live_available()) {
        cmd_error("top: --source fabric needs libibnetdisc and libibmad (built without them)");
        goto out;
    }
    snprintf(m.source, sizeof(m.source), "%s %.120s",
             src.kind == TOP_SRC_SYSFS    ? "sysfs"
             : src.kind == TOP_SRC_NETDEV ? "netdev"
             : src.kind == TOP_SRC_FOLLOW ? "follow"
                                          : "fabric",
             src.kind == TOP_SRC_FABRIC   ? "(PMA)"
             : src.kind == TOP_SRC_FOLLOW ? c.follow
                                          : src.host);
    top_nvlink_open(&src, &m); /* the NVLink view: the driver's counters, or why none */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    lines = calloc(MAX_LINES, sizeof(*lines));
    if (!lines) {
        cmd_error("top: out of memory");
        goto out;
    }
#ifdef HAVE_NCURSESW
    if (!c.batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
        rc = run_curses(&src, &m, &c, lines, &test);
        goto out;
    }
#else
    if (!c.batch)
        fprintf(stderr, "railyard top: built without ncursesw: batch output\n");
#endif
    while (!stop_signal) {
        refresh_model(&src, &m);
        print_batch(&m, lines);
        if (c.count && m.refreshes >= c.count)
            break;
        sleep_s(c.delay);
    }
    rc = RY_EXIT_OK;
out:
    top_test_stop(&test);
    free(lines);
    top_source_free(&src);
    top_model_free(&m);
    topo_map_destroy(map);
    return rc;
}

const struct cmd_entry cmd_top = {
    .name = "top",
    .run = run,
    .usage = "top [--source sysfs|netdev|fabric | --follow <run dir>] [--map <file>] "
             "[-d <seconds>] [-n <count>] [--batch]",
    .summary = "the live console: ports, rails, NVLink and findings, refreshed",
    .no_node_inputs = 1,
    .options =
        "  --source <s>         sysfs (this node's RDMA ports), netdev (its network\n"
        "                       interfaces), fabric (every port through the PMA);\n"
        "                       default sysfs when there is an RDMA device, else netdev\n"
        "  --sysfs-root <dir>   read this directory as /sys (a capture)\n"
        "  --netdev <pattern>   netdev: the interfaces to show (default all but lo)\n"
        "  -m, --map <file>     rails and expected rates from the map\n"
        "  --node <name>        the node's name (default the host name)\n"
        "  --ca <hca>, --port <n>  fabric: discover from this local port\n"
        "  --fabric-cache <file> fabric: keep each discovery there and draw the console's\n"
        "                       first screen from it (default $RAILYARD_FABRIC_CACHE, for\n"
        "                       root " RY_FABRIC_CACHE_DIR "/fabric.cache; none: no cache)\n"
        "  --read-all <ports>   fabric: read every port each refresh up to this many cabled\n"
        "                       ports (default 4096); past it the rows on screen, the ports\n"
        "                       judged not ok and a sixteenth of the rest in turn\n"
        "  -d, --delay <s>      seconds between refreshes (default 1)\n"
        "  -n, --iterations <n> exit after n refreshes\n"
        "  -b, --batch          plain text, one screen per refresh (default when not on a\n"
        "                       terminal)\n"
        "  --view <v>           start in ports, rails, nvlink, findings or events\n"
        "  --watch <dir>        railyard watch's state and log (events view, marks; default\n"
        "                       the archive's watch/ folder; none: not read)\n"
        "  --sort <key>         node, rail, tx, rx, errors or state\n"
        "  --filter <text>      show the ports whose node, device, peer or rail match\n"
        "  --test-cmd <cmd>     the active test (key t): a command printing\n"
        "                       railyard-fabric's --json, with {node} {peer} {rail} {pairs}\n"
        "                       (default $RAILYARD_TOP_TEST)\n"
        "  --peer <node>        the node tests run against (default the next node)\n"
        "  --test-timeout <s>   stop a test after this long (default 60)\n"
        "  --follow <dir>       follow a railyard-fabric run (-o <dir>): the pair matrix\n"
        "                       filling in, progress and findings (view matrix)\n",
};
