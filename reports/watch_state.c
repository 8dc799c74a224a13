#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "reports/archive.h"
#include "reports/watch_state.h"
#include "watch/nvlink.h"

void ry_watch_keep(struct ry_watch_kept_list *l, enum watch_phase ph, const struct watch_event *e)
{
    struct ry_watch_kept *k = NULL;

    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].e.kind == e->kind && l->v[i].e.ctr == e->ctr &&
            !strcmp(l->v[i].subject, e->subject) && l->v[i].phase != WATCH_CLOSE)
            k = &l->v[i];
    if (!k) {
        xgrow(&l->v, &l->alloc, l->n + 1, sizeof(*l->v));
        k = &l->v[l->n++];
    }
    k->phase = ph;
    k->e = *e;
    snprintf(k->subject, sizeof(k->subject), "%s", e->subject);
    for (size_t i = 0; i < l->n; i++) /* e.subject points into each one's own copy */
        l->v[i].e.subject = l->v[i].subject;
}

void ry_watch_expire(struct ry_watch_kept_list *l, double now, double window)
{
    size_t k = 0;

    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].phase != WATCH_CLOSE || l->v[i].e.last >= now - window)
            l->v[k++] = l->v[i];
    l->n = k;
    for (size_t i = 0; i < l->n; i++)
        l->v[i].e.subject = l->v[i].subject;
}

/* a kind that drains a node: the link went away (a job's connections with it) */
int ry_watch_kind_drains(const char *kind)
{
    size_t n = strlen(kind);

    return (n >= 5 && !strcmp(kind + n - 5, ".down")) ||
           (n >= 9 && !strcmp(kind + n - 9, ".flapping"));
}

static const char *hint_of(const char *kind)
{
    static const struct {
        const char *kind, *hint;
    } hints[] = {
        { "port.flapping", "the link went down and up again: each time a job's connections over "
                           "it break; check the cable and transceiver, and the port's error "
                           "counters" },
        { "port.down", "down longer than a job's transport waits (NCCL's IB timeout is about "
                       "7 s): check the cable, the switch port and the subnet manager" },
        { "port.errors.burst", "the error counter rose faster than its limit: a marginal cable "
                               "or transceiver; watch it, reseat or replace if it comes back" },
        { "port.congestion", "congestion notifications past their limit: the fabric was "
                             "congested here (a job's traffic, or a slow link downstream)" },
        { "nvlink.flapping", "the NVLink went inactive and active again: a job's NVLink traffic "
                             "breaks with it; see the GPU's Xid messages, and reset the GPU or "
                             "drain the node" },
        { "nvlink.down", "the NVLink is not active: the GPU's peers are reached the slow way or "
                         "not at all; check Fabric Manager and the Xid messages, reset the GPU "
                         "or the node" },
        { "nvlink.errors", "the NVLink's error counter rose past its limit: a marginal link; "
                           "watch it, and if it comes back have the board looked at" },
    };

    for (size_t i = 0; i < sizeof(hints) / sizeof(*hints); i++)
        if (!strcmp(kind, hints[i].kind))
            return hints[i].hint;
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

/* an event the judgment takes: open, or closed within the window */
static int in_window(const struct ry_watch_read *r, const struct ry_watch_seen *e, double now)
{
    return e->open || e->last_s >= now - r->window_s;
}

/* the GPU of an NVLink's event ("GPU3/nvlink5": 3, the link 5), -1 for a port's */
static int nvlink_of(const struct ry_watch_seen *e, unsigned *link)
{
    unsigned g;

    if (strncmp(e->kind, "nvlink.", 7) || !watch_nvl_subject_parse(e->subject, &g, link))
        return -1;
    return (int)g;
}

/* events of one kind (and counter) on the NVLinks of one GPU are one finding: 0 for an event
 * folded into an earlier one's, else the number of links it stands for, listed in links
 * ("0-5, 9") */
static size_t fold_gpu(const struct ry_watch_read *r, size_t i, double now, char *links, size_t len)
{
    const struct ry_watch_seen *e = &r->events[i];
    unsigned link, prev = 0, run = 0, l;
    int gpu = nvlink_of(e, &link);
    size_t n = 0;
    char seen[RY_WATCH_NVLINKS_MAX] = { 0 };

    links[0] = '\0';
    if (gpu < 0)
        return 1;
    for (size_t k = 0; k < r->nevents; k++) {
        const struct ry_watch_seen *o = &r->events[k];
        if (!in_window(r, o, now) || strcmp(o->kind, e->kind) || strcmp(o->counter, e->counter) ||
            nvlink_of(o, &l) != gpu)
            continue;
        if (k < i)
            return 0; /* said with the first one */
        if (l < RY_WATCH_NVLINKS_MAX && !seen[l]) {
            seen[l] = 1;
            n++;
        }
    }
    for (l = 0; l <= RY_WATCH_NVLINKS_MAX; l++) { /* the links as ranges */
        int on = l < RY_WATCH_NVLINKS_MAX && seen[l];
        if (on && !run++)
            prev = l;
        if (!on && run) {
            size_t at = strlen(links);
            snprintf(links + at, len - at, run == 1 ? "%s%u" : "%s%u-%u", at ? ", " : "", prev,
                     l - 1);
            run = 0;
        }
    }
    return n;
}

void ry_watch_judge(const struct ry_watch_read *r, const char *path, const char *host, double now,
                    struct topo_findings *f)
{
    double age = now - r->updated_s, stale = stale_after(r);
    char at[32], check[64], exp[64], obs[320];
    size_t nflap[2] = { 0 }, ndown[2] = { 0 };

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
        char last[32], subject[384], links[160];
        unsigned link;
        size_t nl;
        int gpu = nvlink_of(e, &link);
        /* an event closed before the window is history, never a reason to drain */
        if (!in_window(r, e, now) || !(nl = fold_gpu(r, i, now, links, sizeof(links))))
            continue;
        ry_iso_time((time_t)e->last_s, last, sizeof(last));
        snprintf(check, sizeof(check), "watch.%s", e->kind);
        snprintf(exp, sizeof(exp), "none within %.0f s", r->window_s);
        snprintf(obs, sizeof(obs), "%s%s%s%s%s%s%s, %s %s", nl > 1 ? "NVLinks " : "",
                 nl > 1 ? links : "", nl > 1 ? ": " : "", e->figures[0] ? e->figures : e->kind,
                 e->counter[0] ? " (" : "", e->counter, e->counter[0] ? ")" : "",
                 e->open ? "still on at" : "ended", last);
        if (nl > 1) /* the GPU's links in one finding */
            snprintf(subject, sizeof(subject), "%s/GPU%d", host, gpu);
        else
            port_subject(host, e->subject, subject, sizeof(subject));
        topo_findings_add(f, ry_watch_kind_drains(e->kind) ? TOPO_SEV_FAIL : TOPO_SEV_WARN, check,
                          subject, exp, obs, hint_of(e->kind));
        nflap[gpu >= 0] += ry_watch_kind_drains(e->kind) && strstr(e->kind, ".flapping");
        ndown[gpu >= 0] += ry_watch_kind_drains(e->kind) && strstr(e->kind, ".down");
    }
    /* what the watch judged, and found nothing in: counted as passed */
    snprintf(exp, sizeof(exp), "none within %.0f s", r->window_s);
    for (int nv = 0; nv < 2; nv++) {
        static const char *const what[2][2] = { { "port", "ports" }, { "NVLink", "NVLinks" } };
        static const char *const ids[2][2] = { { "watch.port.flapping", "watch.port.down" },
                                               { "watch.nvlink.flapping", "watch.nvlink.down" } };
        size_t n = r->nsampled[nv];
        snprintf(obs, sizeof(obs), "none of %zu %s sampled", n, what[nv][n != 1]);
        if (n > 0 && nflap[nv] == 0)
            topo_findings_add(f, TOPO_SEV_OK, ids[nv][0], host, exp, obs, NULL);
        if (n > 0 && ndown[nv] == 0)
            topo_findings_add(f, TOPO_SEV_OK, ids[nv][1], host, exp, obs, NULL);
    }
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
