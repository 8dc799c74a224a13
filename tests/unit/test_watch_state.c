#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/watch_json.h"
#include "reports/watch_prom.h"
#include "reports/watch_state.h"
#include "tests/tap/tap.h"

#define NOW 1800000000.0

/* a fresh state: watching, updated at NOW, sampled every interval, events kept for window */
static struct ry_watch_read state(double interval, double window)
{
    struct ry_watch_read r;

    memset(&r, 0, sizeof(r));
    snprintf(r.host, sizeof(r.host), "n1");
    r.updated_s = NOW;
    r.interval_s = interval;
    r.window_s = window;
    r.watching = 1;
    r.nports = 4;
    r.nsampled[0] = 4;
    return r;
}

static struct ry_watch_seen seen(const char *kind, const char *subject, int open, double last)
{
    struct ry_watch_seen e;

    memset(&e, 0, sizeof(e));
    snprintf(e.kind, sizeof(e.kind), "%s", kind);
    snprintf(e.subject, sizeof(e.subject), "%s", subject);
    snprintf(e.figures, sizeof(e.figures), "figures of %s", kind);
    e.open = open;
    e.first_s = last - 10;
    e.last_s = last;
    return e;
}

/* the findings of r judged at now, "sev check subject" joined by ';' (ok ones too), and the
 * number of parts said not judged in *unjudged */
static const char *judge(const struct ry_watch_read *r, double now, size_t *unjudged)
{
    static char buf[4096];
    struct topo_findings f = { 0 };

    ry_watch_judge(r, "state.json", "node7", now, &f);
    buf[0] = '\0';
    for (size_t i = 0; i < f.n; i++) {
        const char *sev = f.v[i].sev == TOPO_SEV_FAIL   ? "fail"
                          : f.v[i].sev == TOPO_SEV_WARN ? "warn"
                                                        : "ok";
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s %s %s", buf[0] ? ";" : "", sev,
                 f.v[i].check, f.v[i].subject);
    }
    if (unjudged)
        *unjudged = f.nunjudged;
    topo_findings_free(&f);
    return buf;
}

#define QUIET "ok watch.port.flapping node7;ok watch.port.down node7"

static void freshness(void)
{
    size_t u;

    /* a watch that ended: not judged, nothing passed */
    struct ry_watch_read r = state(1, 300);
    r.watching = 0;
    is_str(judge(&r, NOW, &u), "", "ended: no finding");
    is_int((long long)u, 1, "...said not judged");
    /* stale at 3 intervals and 5 s: the interval's term binding at 10 s, the slack at 1 s */
    r = state(1, 300);
    is_str(judge(&r, NOW + 8, &u), QUIET, "interval 1 s, 8 s old: judged");
    is_int((long long)u, 0, "...nothing said not judged");
    is_str(judge(&r, NOW + 8.01, &u), "", "interval 1 s, 8.01 s old: not judged");
    is_int((long long)u, 1, "...and said so");
    r = state(10, 300);
    is_str(judge(&r, NOW + 35, &u), QUIET, "interval 10 s, 35 s old: judged");
    is_str(judge(&r, NOW + 35.01, &u), "", "interval 10 s, 35.01 s old: not judged");
    /* a state from ahead of this clock by more than the slack */
    r = state(1, 300);
    is_str(judge(&r, NOW - 5, &u), QUIET, "5 s ahead of this clock: judged");
    is_str(judge(&r, NOW - 5.01, &u), "", "5.01 s ahead: not judged");
    is_int((long long)u, 1, "...and said so");
}

static void window(void)
{
    struct ry_watch_seen ev[4];
    size_t u;

    /* closed events: within the window at its edge, out of it just past; two windows */
    for (int w = 0; w < 2; w++) {
        double win = w ? 60 : 300;
        struct ry_watch_read r = state(1, win);
        ev[0] = seen("port.flapping", "mlx5_0/1", 0, NOW - win);
        ev[1] = seen("port.down", "mlx5_1/1", 0, NOW - win - 0.01);
        r.events = ev;
        r.nevents = 2;
        is_str(judge(&r, NOW, &u),
               "fail watch.port.flapping node7/mlx5_0:1;ok watch.port.down node7",
               "window %.0f s: a flap closed at its edge fails, a down closed just before it "
               "does not",
               win);
        ev[0].last_s = NOW - win - 0.01;
        ev[1].last_s = NOW - win;
        is_str(judge(&r, NOW, &u),
               "fail watch.port.down node7/mlx5_1:1;ok watch.port.flapping node7",
               "window %.0f s: ...and the other way round", win);
    }
    /* an event still open fails however long ago it began */
    struct ry_watch_read r = state(1, 300);
    ev[0] = seen("port.down", "mlx5_2/1", 1, NOW - 5000);
    r.events = ev;
    r.nevents = 1;
    is_str(judge(&r, NOW, &u), "fail watch.port.down node7/mlx5_2:1;ok watch.port.flapping node7",
           "a port down for hours, still open: fails");
}

static void kinds(void)
{
    struct ry_watch_seen ev[6];
    struct ry_watch_read r = state(1, 300);
    struct topo_findings f = { 0 };
    size_t u;

    ev[0] = seen("port.errors.burst", "mlx5_0/1", 1, NOW);
    ev[1] = seen("port.congestion", "eth2", 0, NOW - 1);
    ev[2] = seen("nvlink.down", "GPU0/nvlink3", 1, NOW);
    ev[3] = seen("nvlink.errors", "GPU1/nvlink0", 1, NOW);
    ev[4] = seen("port.flapping", "a/b/x", 1, NOW);
    r.events = ev;
    r.nevents = 5;
    is_str(judge(&r, NOW, &u),
           "warn watch.port.errors.burst node7/mlx5_0:1;warn watch.port.congestion node7/eth2;"
           "fail watch.nvlink.down node7/GPU0/nvlink3;warn watch.nvlink.errors node7/GPU1/nvlink0;"
           "fail watch.port.flapping node7/a/b/x;ok watch.port.down node7",
           "bursts and congestion warn, downs and flaps fail; ports named as the check names "
           "them");
    /* the figures, the counter and whether it is still on, in observed */
    snprintf(ev[0].counter, sizeof(ev[0].counter), "symbol_error");
    r.nevents = 1;
    ry_watch_judge(&r, "state.json", "node7", NOW, &f);
    ok(f.n >= 1 &&
           strstr(f.v[0].observed, "figures of port.errors.burst (symbol_error), still on") &&
           !strcmp(f.v[0].expected, "none within 300 s"),
       "observed: %s, expected: %s", f.n ? f.v[0].observed : "-", f.n ? f.v[0].expected : "-");
    topo_findings_free(&f);
    /* ports not sampled: each said not judged; with none sampled nothing passes */
    char why[2][256] = { "mlx5_0/1: hung", "mlx5_1/1: hung" };
    r = state(1, 300);
    r.nports = 2;
    r.unsampled = why;
    r.nunsampled = 2;
    r.nsampled[0] = 0;
    is_str(judge(&r, NOW, &u), "", "no port sampled: nothing passed");
    is_int((long long)u, 2, "...each said not judged");
    r.nunsampled = 1;
    r.nsampled[0] = 1;
    is_str(judge(&r, NOW, &u), QUIET, "one of two sampled: judged");
    is_int((long long)u, 1, "...the other said not judged");
}

/* NVLinks: the events of one kind on several links of a GPU are one finding, their links
 * listed; one link alone is named; what passes is said for ports and NVLinks apart */
static void nvlink_judge(void)
{
    struct ry_watch_seen ev[20];
    struct ry_watch_read r = state(1, 300);
    struct topo_findings f = { 0 };
    size_t n = 0, u;

    r.nports = 4 + 36;
    r.nnvlinks = 36;
    r.nsampled[1] = 36;
    is_str(judge(&r, NOW, &u), QUIET ";ok watch.nvlink.flapping node7;ok watch.nvlink.down node7",
           "NVLinks sampled, no event: their own checks pass");
    r.nsampled[1] = 0;
    is_str(judge(&r, NOW, &u), QUIET, "NVLinks not sampled: nothing said of them passes");
    r.nsampled[1] = 36;
    /* GPU6: links 0-11 down (one closed before the window: left out), GPU2: link 4 alone */
    for (int k = 0; k < 13; k++) {
        char sub[32];
        snprintf(sub, sizeof(sub), "GPU6/nvlink%d", k == 12 ? 15 : k);
        ev[n++] = seen("nvlink.down", sub, k != 12, k == 12 ? NOW - 301 : NOW);
    }
    ev[n++] = seen("nvlink.down", "GPU2/nvlink4", 1, NOW);
    ev[n++] = seen("nvlink.flapping", "GPU6/nvlink3", 0, NOW - 10);
    r.events = ev;
    r.nevents = n;
    is_str(judge(&r, NOW, &u),
           "fail watch.nvlink.down node7/GPU6;fail watch.nvlink.down node7/GPU2/nvlink4;"
           "fail watch.nvlink.flapping node7/GPU6/nvlink3;" QUIET,
           "12 links of GPU6 down: one finding; GPU2's link on its own; another kind apart");
    ry_watch_judge(&r, "state.json", "node7", NOW, &f);
    ok(f.n >= 2 && strstr(f.v[0].observed, "NVLinks 0-11: figures of nvlink.down") &&
           !strstr(f.v[1].observed, "NVLinks"),
       "...the links listed as a range (%s), the lone one not (%s)", f.n ? f.v[0].observed : "-",
       f.n > 1 ? f.v[1].observed : "-");
    topo_findings_free(&f);
    /* links apart, and errors per counter */
    n = 0;
    ev[n++] = seen("nvlink.down", "GPU1/nvlink5", 1, NOW);
    ev[n++] = seen("nvlink.down", "GPU1/nvlink0", 1, NOW);
    ev[n++] = seen("nvlink.down", "GPU1/nvlink1", 1, NOW);
    ev[n++] = seen("nvlink.down", "GPU1/nvlink3", 1, NOW);
    ev[n] = seen("nvlink.errors", "GPU1/nvlink0", 1, NOW);
    snprintf(ev[n++].counter, sizeof(ev[0].counter), "nvlink_crc_flit_errors");
    ev[n] = seen("nvlink.errors", "GPU1/nvlink1", 1, NOW);
    snprintf(ev[n++].counter, sizeof(ev[0].counter), "nvlink_replay_errors");
    r.nevents = n;
    ry_watch_judge(&r, "state.json", "node7", NOW, &f);
    ok(f.n >= 3 && !strcmp(f.v[0].subject, "node7/GPU1") &&
           strstr(f.v[0].observed, "NVLinks 0-1, 3, 5: ") &&
           !strcmp(f.v[1].subject, "node7/GPU1/nvlink0") &&
           !strcmp(f.v[2].subject, "node7/GPU1/nvlink1") && f.v[1].sev == TOPO_SEV_WARN,
       "links 0, 1, 3, 5 listed as 0-1, 3, 5 (%s); errors of two counters apart",
       f.n ? f.v[0].observed : "-");
    topo_findings_free(&f);
}

#ifdef HAVE_JANSSON
static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

/* reading back: what ry_watch_state_write wrote, and files that are not that */
static void reading(void)
{
    char dir[] = "/tmp/test_watch_state.XXXXXX", path[128];
    struct ry_watch_read r;
    ry_error_t err = { "" };

    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof(path), "%s/state.json", dir);
    {
        struct watch_src ports[5] = { { "mlx5_0/1", "mlx5_0", 1, "", 0 },
                                      { "eth2", "", 0, "eth2", 0 },
                                      { "GPU0/nvlink0", "0000:18:00.0", 0, "", 1 },
                                      { "GPU0/nvlink1", "0000:18:00.0", 1, "", 1 },
                                      { "GPU0/nvlink2", "0000:18:00.0", 2, "", 1 } };
        char why[5][160] = { "", "its operstate read hung past 0.8 s", "NVML hung", "NVML hung",
                             "" };
        struct ry_watch_kept kept[2];
        struct ry_watch_state s = { .host = "n1",
                                    .pid = 42,
                                    .started = NOW - 100,
                                    .updated = NOW,
                                    .interval = 1,
                                    .window = 300,
                                    .nports = 5,
                                    .ports = ports,
                                    .why = (const char(*)[160])why,
                                    .nvlink_why = "NVML failed",
                                    .events = kept,
                                    .nevents = 2,
                                    .wall_minus_mono = NOW - 1000 };
        memset(kept, 0, sizeof(kept));
        kept[0].phase = WATCH_OPEN;
        kept[0].e.kind = WATCH_EV_FLAPPING;
        snprintf(kept[0].subject, sizeof(kept[0].subject), "mlx5_0/1");
        kept[0].e.subject = kept[0].subject;
        kept[0].e.first = 990;
        kept[0].e.last = 999;
        snprintf(kept[0].e.figures, sizeof(kept[0].e.figures), "3 flaps in 9 s");
        kept[1].phase = WATCH_CLOSE;
        kept[1].e.kind = WATCH_EV_BURST;
        kept[1].e.ctr = 0;
        snprintf(kept[1].subject, sizeof(kept[1].subject), "mlx5_0/1");
        kept[1].e.subject = kept[1].subject;
        kept[1].e.first = 900;
        kept[1].e.last = 950;
        is_int(ry_watch_state_write(path, &s, &err), 0, "a state written: %s", err.text);
    }
    is_int(ry_watch_state_read(path, &r, &err), 0, "...read back: %s", err.text);
    ok(r.watching && r.pid == 42 && !strcmp(r.host, "n1") && r.updated_s == NOW &&
           r.interval_s == 1 && r.window_s == 300 && r.nports == 5 && r.nnvlinks == 3 &&
           r.nsampled[0] == 1 && r.nsampled[1] == 1,
       "...its watch: watching, pid, host, updated, interval, window, ports and NVLinks");
    ok(r.nunsampled == 3 && !strcmp(r.unsampled[0], "eth2: its operstate read hung past 0.8 s"),
       "...the port not sampled, and why: %s", r.nunsampled ? r.unsampled[0] : "none");
    is_str(r.nunsampled > 1 ? r.unsampled[1] : "", "GPU0/nvlink0 and 1 more: NVML hung",
           "...two links not sampled for one reason: one line");
    is_str(r.nunsampled > 2 ? r.unsampled[2] : "", "NVLinks: NVML failed", "...NVML's own failure");
    ok(r.nevents == 2 && !strcmp(r.events[0].kind, "port.flapping") && r.events[0].open &&
           r.events[0].last_s == NOW - 1 && !strcmp(r.events[0].figures, "3 flaps in 9 s") &&
           !strcmp(r.events[1].kind, "port.errors.burst") && !r.events[1].open &&
           r.events[1].counter[0] && r.events[1].last_s == NOW - 50,
       "...its events: kind, phase, times, figures, counter");
    is_str(judge(&r, NOW + 1, NULL),
           "fail watch.port.flapping node7/mlx5_0:1;warn watch.port.errors.burst node7/mlx5_0:1;"
           "ok watch.port.down node7;ok watch.nvlink.flapping node7;ok watch.nvlink.down node7",
           "...judged");
    ry_watch_read_free(&r);

    static const struct {
        const char *text, *err;
    } bad[] = {
        { NULL, "No such file" },
        { "{\"schema_version\": 1,\n  \"updated_s\": }", "state.json:2: not JSON" },
        { "{\"schema_version\": 2}", "not a state file of railyard watch" },
        { "{\"schema_version\": 1, \"updated_s\": 1, \"interval_s\": 1, \"window_s\": 300, "
          "\"watching\": true, \"ports\": []}",
          "without updated_s, interval_s, window_s, watching, ports or events" },
        { "{\"schema_version\": 1, \"updated_s\": 1, \"interval_s\": 0, \"window_s\": 300, "
          "\"watching\": true, \"ports\": [], \"events\": []}",
          "without updated_s" },
        { "{\"schema_version\": 1, \"updated_s\": 1, \"interval_s\": 1, \"window_s\": 300, "
          "\"watching\": \"yes\", \"ports\": [], \"events\": []}",
          "without updated_s" },
        { "{\"schema_version\": 1, \"updated_s\": 1, \"interval_s\": 1, \"window_s\": 300, "
          "\"watching\": true, \"ports\": [{\"subject\": 3}], \"events\": []}",
          "port 1 of the state file" },
        { "{\"schema_version\": 1, \"updated_s\": 1, \"interval_s\": 1, \"window_s\": 300, "
          "\"watching\": true, \"ports\": [], \"events\": [{\"event\": \"port.down\", "
          "\"subject\": \"x/1\", \"first_s\": 1, \"last_s\": 2}, {\"event\": \"port.down\", "
          "\"subject\": \"x/1\", \"first_s\": 1}]}",
          "event 2 of the state file" },
        { "{\"schema_version\": 1, \"updated_s\": 1, \"interval_s\": 1, \"window_s\": 300, "
          "\"watching\": true, \"ports\": [], \"events\": [], \"nvlinks_why\": 7}",
          "nvlinks_why is not a string" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unlink(path);
        if (bad[i].text)
            write_file(path, bad[i].text);
        err.text[0] = '\0';
        ok(ry_watch_state_read(path, &r, &err) < 0 && strstr(err.text, bad[i].err) &&
               strstr(err.text, path) && r.nevents == 0 && !r.events,
           "bad state %zu refused, naming the file: %s", i + 1, err.text);
    }
    unlink(path);
    rmdir(dir);
}
#endif

static char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *fp = fopen(path, "r");
    size_t n = 0;

    buf[0] = '\0';
    if (fp) {
        n = fread(buf, 1, sizeof(buf) - 1, fp);
        fclose(fp);
    }
    buf[n] = '\0';
    return buf;
}

/* the node_exporter textfile: each port's state and counters as last read, what was not read
 * left out, the events opened since the start and those open now, labels escaped */
static void textfile(void)
{
    char dir[] = "/tmp/test_watch_prom.XXXXXX", path[128], *t;
    struct watch_src ports[5] = { { "mlx5_0/1", "mlx5_0", 1, "", 0 },
                                  { "mlx5_1/1", "mlx5_1", 1, "", 0 },
                                  { "eth\"2\n", "", 0, "eth2", 0 },
                                  { "GPU0/nvlink3", "0000:18:00.0", 3, "", 1 },
                                  { "GPU1/nvlink0", "0000:2a:00.0", 0, "", 1 } };
    struct watch_sample s[5];
    char why[5][160] = { "", "", "its operstate read hung", "", "" };
    long opened[5][WATCH_NKIND] = { { 0 }, { 2, 1, 0, 0 }, { 0 }, { 0 }, { 0 } };
    struct ry_watch_kept kept[3];
    ry_error_t err = { "" };

    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof(path), "%s/railyard_watch.prom", dir);
    memset(s, 0, sizeof(s));
    memset(kept, 0, sizeof(kept));
    for (int p = 0; p < 5; p++)
        for (int c = 0; c < WATCH_NCTR; c++)
            s[p].ctr[c] = -1;
    s[3].state = WATCH_UP;
    s[3].ctr[WATCH_NVL_CRC_FLIT] = 12;
    s[4].state = WATCH_DOWN;
    opened[4][WATCH_EV_NVL_DOWN] = 1;
    kept[2].phase = WATCH_OPEN;
    kept[2].e.kind = WATCH_EV_NVL_DOWN;
    kept[2].e.subject = "GPU1/nvlink0";
    s[0].state = WATCH_UP;
    s[0].ctr[WATCH_LINK_DOWNED] = 7;
    s[1].state = WATCH_DOWN;
    s[2].state = WATCH_UP;
    s[2].ctr[WATCH_CARRIER_CHANGES] = 4;
    kept[0].phase = WATCH_UPDATE;
    kept[0].e.kind = WATCH_EV_FLAPPING;
    kept[0].e.subject = "mlx5_1/1";
    kept[1].phase = WATCH_CLOSE;
    kept[1].e.kind = WATCH_EV_DOWN;
    kept[1].e.subject = "mlx5_1/1";
    struct ry_watch_textfile tf = {
        "n1", 0, NOW, 5, ports, s, (const char(*)[160])why, (const long(*)[WATCH_NKIND])opened,
        kept, 3
    };
    is_int(ry_watch_textfile_write(path, &tf, &err), 0, "textfile written: %s", err.text);
    t = slurp(path);
    ok(strstr(t, "railyard_watch_up{host=\"n1\"} 1\n") != NULL, "textfile: the watch up");
    ok(strstr(t, "railyard_watch_last_sample_timestamp_seconds{host=\"n1\"} 1800000000.000\n") !=
           NULL,
       "textfile: its last sample");
    ok(strstr(t, "railyard_watch_port_up{host=\"n1\",port=\"mlx5_0/1\"} 1\n") &&
           strstr(t, "railyard_watch_port_up{host=\"n1\",port=\"mlx5_1/1\"} 0\n"),
       "textfile: one port up, one down");
    ok(strstr(t, "railyard_watch_port_sampled{host=\"n1\",port=\"eth\\\"2\\n\"} 0\n") &&
           !strstr(t, "railyard_watch_port_up{host=\"n1\",port=\"eth"),
       "textfile: the port not read is sampled 0, its state left out, its name escaped");
    ok(strstr(t, "railyard_watch_port_counter{host=\"n1\",port=\"mlx5_0/1\",counter=\"") &&
           strstr(t, "\"} 7\n") && !strstr(t, "carrier_changes\"} 4"),
       "textfile: a counter read, the unread one's left out");
    ok(strstr(t, "railyard_watch_events_total{host=\"n1\",port=\"mlx5_1/1\",event=\"port."
                 "flapping\"} 2\n") &&
           strstr(t, "railyard_watch_events_total{host=\"n1\",port=\"mlx5_1/1\",event=\"port."
                     "down\"} 1\n"),
       "textfile: events opened, per kind");
    ok(strstr(t, "railyard_watch_event_open{host=\"n1\",port=\"mlx5_1/1\",event=\"port."
                 "flapping\"} 1\n") &&
           !strstr(t, "event_open{host=\"n1\",port=\"mlx5_1/1\",event=\"port.down"),
       "textfile: the open event a gauge, the closed one not");
    ok(strstr(t, "railyard_watch_nvlink_up{host=\"n1\",gpu=\"0\",link=\"3\"} 1\n") &&
           strstr(t, "railyard_watch_nvlink_up{host=\"n1\",gpu=\"1\",link=\"0\"} 0\n") &&
           strstr(t, "railyard_watch_nvlink_counter{host=\"n1\",gpu=\"0\",link=\"3\",counter="
                     "\"nvlink_crc_flit_errors\"} 12\n") &&
           strstr(t, "railyard_watch_nvlink_sampled{host=\"n1\",gpu=\"1\",link=\"0\"} 1\n"),
       "textfile: NVLinks by GPU and link, active or not, their counters");
    ok(!strstr(t, "railyard_watch_port_up{host=\"n1\",port=\"GPU") &&
           !strstr(t, "railyard_watch_nvlink_up{host=\"n1\",port="),
       "textfile: NVLinks are not ports, ports not NVLinks");
    ok(strstr(t, "railyard_watch_events_total{host=\"n1\",gpu=\"1\",link=\"0\",event=\"nvlink."
                 "down\"} 1\n") &&
           !strstr(t, "events_total{host=\"n1\",gpu=\"1\",link=\"0\",event=\"port.") &&
           !strstr(t, "events_total{host=\"n1\",port=\"mlx5_0/1\",event=\"nvlink."),
       "textfile: events opened per NVLink, of the NVLinks' kinds only");
    ok(strstr(t, "railyard_watch_event_open{host=\"n1\",gpu=\"1\",link=\"0\",event=\"nvlink."
                 "down\"} 1\n") != NULL,
       "textfile: an NVLink's open event");
    tf.stopped = 1;
    ry_watch_textfile_write(path, &tf, &err);
    ok(strstr(slurp(path), "railyard_watch_up{host=\"n1\"} 0\n") != NULL,
       "textfile: the watch ended: up 0");
    snprintf(path, sizeof(path), "%s/nosuch/railyard_watch.prom", dir);
    ok(ry_watch_textfile_write(path, &tf, &err) < 0 && strstr(err.text, "nosuch"),
       "textfile: a folder that is not there: refused, named: %s", err.text);
    snprintf(path, sizeof(path), "%s/railyard_watch.prom", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    textfile();
    freshness();
    window();
    kinds();
    nvlink_judge();
#ifdef HAVE_JANSSON
    reading();
#endif
    return done_testing();
}
