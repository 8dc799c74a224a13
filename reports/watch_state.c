#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reports/archive.h"
#include "reports/watch_state.h"

/* a kind that drains a node: the link went away (a job's connections with it) */
int ry_watch_kind_drains(const char *kind)
{
    size_t n = strlen(kind);

    return (n >= 5 && !strcmp(kind + n - 5, ".down")) ||
           (n >= 9 && !strcmp(kind + n - 9, ".flapping"));
}

static const char *hint_of(const char *kind)
{
    if (!strcmp(kind, "port.flapping"))
        return "the link went down and up again: each time a job's connections over it break; "
               "check the cable and transceiver, and the port's error counters";
    if (!strcmp(kind, "port.down"))
        return "down longer than a job's transport waits (NCCL's IB timeout is about 7 s): "
               "check the cable, the switch port and the subnet manager";
    if (!strcmp(kind, "port.errors.burst"))
        return "the error counter rose faster than its limit: a marginal cable or transceiver; "
               "watch it, reseat or replace if it comes back";
    if (!strcmp(kind, "port.congestion"))
        return "congestion notifications past their limit: the fabric was congested here "
               "(a job's traffic, or a slow link downstream)";
    return NULL;
}

/* the watch's port name as the check names ports: "node/mlx5_3:1" for "mlx5_3/1", "node/eth0" */
static void port_subject(const char *host, const char *watched, char *buf, size_t len)
{
    const char *slash = strrchr(watched, '/');

    if (slash && slash[1] && strspn(slash + 1, "0123456789") == strlen(slash + 1))
        snprintf(buf, len, "%s/%.*s:%s", host, (int)(slash - watched), watched, slash + 1);
    else
        snprintf(buf, len, "%s/%s", host, watched);
}

/* a state older than this is a watch that no longer samples */
static double stale_after(const struct ry_watch_read *r)
{
    return RY_WATCH_STALE_INTERVALS * r->interval_s + RY_WATCH_STALE_SLACK;
}

int ry_watch_live(const struct ry_watch_read *r, double now)
{
    double age = now - r->updated_s;

    return r->watching && age <= stale_after(r) && age >= -RY_WATCH_STALE_SLACK;
}

void ry_watch_judge(const struct ry_watch_read *r, const char *path, const char *host, double now,
                    struct topo_findings *f)
{
    double age = now - r->updated_s, stale = stale_after(r);
    char at[32], check[64], exp[64], obs[320];
    size_t nflap = 0, ndown = 0, nsampled = r->nports - r->nunsampled;

    ry_iso_time((time_t)r->updated_s, at, sizeof(at));
    if (!r->watching) {
        topo_findings_unjudged(f,
                               "watch: not running (%s: it ended at %s): flaps and downs not "
                               "judged",
                               path, at);
        return;
    }
    if (age > stale) {
        topo_findings_unjudged(f,
                               "watch: not running (%s: last updated %.0f s ago, at %s, while it "
                               "samples every %g s): flaps and downs not judged",
                               path, age, at, r->interval_s);
        return;
    }
    if (age < -RY_WATCH_STALE_SLACK) {
        topo_findings_unjudged(f,
                               "watch: %s was updated %.0f s ahead of this clock (%s): flaps and "
                               "downs not judged",
                               path, -age, at);
        return;
    }
    for (size_t i = 0; i < r->nunsampled; i++)
        topo_findings_unjudged(f, "watch: %s", r->unsampled[i]);
    for (size_t i = 0; i < r->nevents; i++) {
        const struct ry_watch_seen *e = &r->events[i];
        char last[32], subject[384];
        /* an event closed before the window is history, never a reason to drain */
        if (!e->open && e->last_s < now - r->window_s)
            continue;
        ry_iso_time((time_t)e->last_s, last, sizeof(last));
        snprintf(check, sizeof(check), "watch.%s", e->kind);
        snprintf(exp, sizeof(exp), "none within %.0f s", r->window_s);
        snprintf(obs, sizeof(obs), "%s%s%s%s, %s %s", e->figures[0] ? e->figures : e->kind,
                 e->counter[0] ? " (" : "", e->counter, e->counter[0] ? ")" : "",
                 e->open ? "still on at" : "ended", last);
        port_subject(host, e->subject, subject, sizeof(subject));
        topo_findings_add(f, ry_watch_kind_drains(e->kind) ? TOPO_SEV_FAIL : TOPO_SEV_WARN, check,
                          subject, exp, obs, hint_of(e->kind));
        nflap += !strcmp(e->kind, "port.flapping");
        ndown += !strcmp(e->kind, "port.down");
    }
    /* what the watch judged, and found nothing in: counted as passed */
    snprintf(exp, sizeof(exp), "none within %.0f s", r->window_s);
    snprintf(obs, sizeof(obs), "none of %zu port%s sampled", nsampled, nsampled == 1 ? "" : "s");
    if (nsampled > 0 && nflap == 0)
        topo_findings_add(f, TOPO_SEV_OK, "watch.port.flapping", host, exp, obs, NULL);
    if (nsampled > 0 && ndown == 0)
        topo_findings_add(f, TOPO_SEV_OK, "watch.port.down", host, exp, obs, NULL);
}

void ry_watch_check(const char *given, int live, const char *host, struct topo_findings *f)
{
    const char *root = ry_archive_default(), *path = given;
    char buf[4096];
    struct ry_watch_read r;
    struct timespec ts;
    ry_error_t err = { "" };

    if (path && !strcmp(path, "none"))
        return;
    if (!path) {
        if (!live || !root)
            return;
        snprintf(buf, sizeof(buf), "%s/watch/state.json", root);
        if (access(buf, F_OK) != 0)
            return;
        path = buf;
    }
    if (ry_watch_state_read(path, &r, &err) < 0) {
        topo_findings_unjudged(f, "watch: %s", err.text);
        return;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    ry_watch_judge(&r, path, host, (double)ts.tv_sec + (double)ts.tv_nsec / 1e9, f);
    ry_watch_read_free(&r);
}
