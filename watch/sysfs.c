#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "ib/ibfabric.h"
#include "watch/sysfs.h"

/* the counters as sysfs names them: under counters/ (the PMA's, read by the driver) and under
 * hw_counters/ (RoCE's). Where drivers name one differently, the first name there is read:
 * mlx5's, then rdma_rxe's (Soft-RoCE: out_of_seq_request, the responder's go-back-N drops;
 * rcvd_seq_err, the requester's sequence-error NAKs). rxe's hw_counters/link_downed is not
 * read: rxe counts a down at each netdev event of one down (down, carrier off, up without
 * carrier yet), which would count flaps that were not. */
static const struct {
    enum watch_ctr c;
    const char *dir, *file;
} files[] = {
    { WATCH_LINK_DOWNED, "counters", "link_downed" },
    { WATCH_LINK_RECOVERY, "counters", "link_error_recovery" },
    { WATCH_SYMBOL_ERRORS, "counters", "symbol_error" },
    { WATCH_RCV_ERRORS, "counters", "port_rcv_errors" },
    { WATCH_LOCAL_INTEGRITY, "counters", "local_link_integrity_errors" },
    { WATCH_BUFFER_OVERRUN, "counters", "excessive_buffer_overrun_errors" },
    { WATCH_OUT_OF_SEQUENCE, "hw_counters", "out_of_sequence" },
    { WATCH_OUT_OF_SEQUENCE, "hw_counters", "out_of_seq_request" },
    { WATCH_SEQ_ERR, "hw_counters", "packet_seq_err" },
    { WATCH_SEQ_ERR, "hw_counters", "rcvd_seq_err" },
    { WATCH_CNP_SENT, "hw_counters", "np_cnp_sent" },
    { WATCH_CNP_HANDLED, "hw_counters", "rp_cnp_handled" },
    { WATCH_ECN_MARKED, "hw_counters", "np_ecn_marked_roce_packets" },
};

int watch_sysfs_ports(const char *root, const char *const *netdevs, size_t nnetdevs,
                      struct watch_src **v, size_t *n, ry_error_t *err)
{
    char **devs = NULL;
    size_t ndevs = 0, alloc = 0;

    *v = NULL;
    *n = 0;
    if (ry_sysfs_list(root, &devs, &ndevs, err, "class/infiniband") < 0 && errno != ENOENT)
        return -1;
    for (size_t d = 0; d < ndevs; d++) {
        char **ports = NULL;
        size_t nports = 0;
        if (ry_sysfs_list(root, &ports, &nports, NULL, "class/infiniband/%s/ports", devs[d]) < 0)
            continue;
        for (size_t k = 0; k < nports; k++) {
            struct watch_src *p;
            int port = atoi(ports[k]);
            if (port < 1)
                continue;
            xgrow(v, &alloc, *n + 1, sizeof(**v));
            p = &(*v)[(*n)++];
            memset(p, 0, sizeof(*p));
            snprintf(p->dev, sizeof(p->dev), "%s", devs[d]);
            p->port = port;
            snprintf(p->subject, sizeof(p->subject), "%s/%d", devs[d], port);
            /* a RoCE port's netdev: what its first GID is bound to */
            if (ry_sysfs_read(root, p->netdev, sizeof(p->netdev), NULL,
                              "class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", devs[d], port) < 0)
                p->netdev[0] = '\0';
        }
        ry_sysfs_list_free(ports, nports);
    }
    ry_sysfs_list_free(devs, ndevs);
    for (size_t i = 0; i < nnetdevs; i++) {
        struct watch_src *p;
        if (!ry_sysfs_exists(root, "class/net/%s", netdevs[i])) {
            free(*v);
            *v = NULL;
            *n = 0;
            return ry_errorf(err, "%s/class/net/%s: no such network interface", ry_sysfs_root(root),
                             netdevs[i]);
        }
        xgrow(v, &alloc, *n + 1, sizeof(**v));
        p = &(*v)[(*n)++];
        memset(p, 0, sizeof(*p));
        snprintf(p->subject, sizeof(p->subject), "%s", netdevs[i]);
        snprintf(p->netdev, sizeof(p->netdev), "%s", netdevs[i]);
    }
    return 0;
}

static long long counter(const char *root, const char *fmt, const char *a, int port,
                         const char *dir, const char *file)
{
    uint64_t v;

    if (ry_sysfs_read_u64(root, &v, NULL, fmt, a, port, dir, file) < 0 || v > INT64_MAX)
        return -1;
    return (long long)v;
}

/* a port with no counters in sysfs, and not RoCE's (whose link layer says Ethernet): its state
 * and counters are asked of it through MADs (libumad2sim's view of an ibsim HCA has a state
 * file that never changes and no counters) */
static int through_mad(const char *root, const struct watch_src *p)
{
    char ll[32];

    if (ry_sysfs_exists(root, "class/infiniband/%s/ports/%d/counters", p->dev, p->port))
        return 0;
    return ry_sysfs_read(root, ll, sizeof(ll), NULL, "class/infiniband/%s/ports/%d/link_layer",
                         p->dev, p->port) < 0 ||
           strcmp(ll, "Ethernet") != 0;
}

#define MAD_TIMEOUT_MS 200
#define MAD_REOPEN_S   60.0 /* a MAD port that could not be opened is tried again after this */

struct mad { /* a port's MAD port, kept by its reader */
    void *h;
    double retry_at; /* could not be opened: not before this */
};

static int mad_read(const struct watch_src *p, double t, struct watch_sample *s, struct mad *m,
                    ry_error_t *err)
{
    struct ibf_port_read r;

    if (!m->h && t < m->retry_at)
        return ry_errorf(err,
                         "%s port %d: its MAD port could not be opened (tried again %.0f s "
                         "after)",
                         p->dev, p->port, MAD_REOPEN_S);
    if (!m->h && !(m->h = ibf_port_mad_open(p->dev, p->port, MAD_TIMEOUT_MS, err))) {
        m->retry_at = t + MAD_REOPEN_S;
        return -1;
    }
    if (ibf_port_mad_read(m->h, p->dev, p->port, &r, err) < 0)
        return -1;
    /* as from sysfs: ACTIVE up; trained but not yet active (no subnet manager) up too */
    s->state = r.state == 4 || r.phys == 5 ? WATCH_UP : WATCH_DOWN;
    s->ctr[WATCH_LINK_DOWNED] = r.link_downed;
    s->ctr[WATCH_LINK_RECOVERY] = r.link_recovery;
    s->ctr[WATCH_SYMBOL_ERRORS] = r.symbol;
    s->ctr[WATCH_RCV_ERRORS] = r.rcv_errors;
    s->ctr[WATCH_LOCAL_INTEGRITY] = r.local_integrity;
    s->ctr[WATCH_BUFFER_OVERRUN] = r.buffer_overrun;
    return 0;
}

/* a port read now; *mad: its MAD port where it is read through MADs, kept for the next read */
static int read_port(const char *root, const struct watch_src *p, double t, struct watch_sample *s,
                     struct mad *mad, ry_error_t *err)
{
    char buf[64];
    uint64_t v;

    memset(s, 0, sizeof(*s));
    s->t = t;
    s->state = WATCH_UNKNOWN;
    for (int c = 0; c < WATCH_NCTR; c++)
        s->ctr[c] = -1;
    if (p->dev[0]) {
        if (ry_sysfs_read(root, buf, sizeof(buf), err, "class/infiniband/%s/ports/%d/state", p->dev,
                          p->port) < 0)
            return -1; /* gone */
        if (through_mad(root, p))
            return mad_read(p, t, s, mad, err);
        /* "4: ACTIVE"; a link trained but not yet active (INIT, ARMED: no subnet manager yet) is
         * up as far as its cable goes: the physical state says so */
        if (strstr(buf, "ACTIVE"))
            s->state = WATCH_UP;
        else {
            char phys[64];
            s->state =
                ry_sysfs_read(root, phys, sizeof(phys), NULL,
                              "class/infiniband/%s/ports/%d/phys_state", p->dev, p->port) == 0 &&
                        strstr(phys, "LinkUp")
                    ? WATCH_UP
                    : WATCH_DOWN;
        }
        for (size_t k = 0; k < sizeof(files) / sizeof(*files); k++)
            if (s->ctr[files[k].c] < 0) /* not read under an earlier name */
                s->ctr[files[k].c] = counter(root, "class/infiniband/%s/ports/%d/%s/%s", p->dev,
                                             p->port, files[k].dir, files[k].file);
    } else {
        if (ry_sysfs_read(root, buf, sizeof(buf), err, "class/net/%s/operstate", p->netdev) < 0)
            return -1;
        s->state = !strcmp(buf, "up")                                       ? WATCH_UP
                   : !strcmp(buf, "down") || !strcmp(buf, "lowerlayerdown") ? WATCH_DOWN
                                                                            : WATCH_UNKNOWN;
    }
    if (p->netdev[0] &&
        ry_sysfs_read_u64(root, &v, NULL, "class/net/%s/carrier_changes", p->netdev) == 0 &&
        v <= INT64_MAX)
        s->ctr[WATCH_CARRIER_CHANGES] = (long long)v;
    return 0;
}

int watch_sysfs_read(const char *root, const struct watch_src *p, double t, struct watch_sample *s,
                     ry_error_t *err)
{
    struct mad mad = { NULL, -1e18 };
    int rc = read_port(root, p, t, s, &mad, err);

    ibf_port_mad_close(mad.h);
    return rc;
}

/* ---- reads with a deadline ---- */

/* One thread a port, made at its first read and kept: a read is asked for (want) and answered
 * (served) under the sampler's lock. A thread stuck in a read is left to it; the port is not
 * asked again until it answers. (A thread made for every read cost a third of the watch's CPU.) */
struct job { /* one port's reader; freed by the sampler, or by its thread if stuck at the end */
    struct watch_sampler *w;
    struct watch_src src;
    pthread_t th;
    int has_thread;
    unsigned long want, served; /* reads asked for, and answered */
    int busy;                   /* a read asked for is under way */
    int done;                   /* ... and has finished */
    int quit;                   /* the sampler is ending: the thread returns */
    int orphan;   /* ... while the thread is stuck: it frees the job when it returns */
    double since; /* when the read under way was asked for */
    double t;
    int rc;
    struct watch_sample s;
    ry_error_t err;
    struct mad mad; /* its MAD port, where the port is read through MADs; the thread's own */
};

struct watch_sampler {
    char *root;
    struct job **j;
    size_t n;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a read answered */
    pthread_cond_t go; /* reads asked for */
};

struct watch_sampler *watch_sampler_new(const char *root, const struct watch_src *v, size_t n)
{
    struct watch_sampler *w = xcalloc(1, sizeof(*w));
    pthread_condattr_t ca;

    w->root = root ? xstrdup(root) : NULL;
    w->n = n;
    w->j = xcalloc(n ? n : 1, sizeof(*w->j));
    for (size_t i = 0; i < n; i++) {
        w->j[i] = xcalloc(1, sizeof(**w->j));
        w->j[i]->w = w;
        w->j[i]->src = v[i];
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&w->go, NULL);
    return w;
}

static void *reader(void *arg)
{
    struct job *j = arg;
    struct watch_sampler *w = j->w;
    const char *root = w->root; /* set before the thread, never changed */

    pthread_mutex_lock(&w->mu);
    for (;;) {
        struct watch_sample s;
        ry_error_t err = { "" };
        unsigned long gen;
        double t;
        int rc;
        while (!j->quit && j->served == j->want)
            pthread_cond_wait(&w->go, &w->mu);
        if (j->quit)
            break;
        gen = j->want;
        t = j->t;
        pthread_mutex_unlock(&w->mu);
        rc = read_port(root, &j->src, t, &s, &j->mad, &err);
        pthread_mutex_lock(&w->mu);
        if (j->orphan) { /* the sampler ended while this read hung */
            pthread_mutex_unlock(&w->mu);
            ibf_port_mad_close(j->mad.h);
            free(j);
            return NULL;
        }
        j->s = s;
        j->rc = rc;
        j->err = err;
        j->served = gen;
        j->done = 1;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    ibf_port_mad_close(j->mad.h);
    j->mad.h = NULL;
    return NULL;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

size_t watch_sampler_read(struct watch_sampler *w, double t, double deadline,
                          struct watch_sample *s, char (*why)[160])
{
    double until = mono() + deadline;
    struct timespec ts = { (time_t)until, (long)((until - (double)(time_t)until) * 1e9) };
    size_t got = 0;

    pthread_mutex_lock(&w->mu);
    for (size_t i = 0; i < w->n; i++) {
        struct job *j = w->j[i];
        why[i][0] = '\0';
        if (j->busy && !j->done)
            continue; /* still stuck in an earlier read */
        if (!j->has_thread) {
            pthread_attr_t at;
            int e;
            pthread_attr_init(&at);
            pthread_attr_setstacksize(&at, 64 * 1024);
            e = pthread_create(&j->th, &at, reader, j);
            pthread_attr_destroy(&at);
            if (e) {
                snprintf(why[i], sizeof(why[i]), "could not start its reader: %s", strerror(e));
                continue;
            }
            j->has_thread = 1;
        }
        j->busy = 1;
        j->done = 0;
        j->t = t;
        j->since = t;
        j->want++;
    }
    pthread_cond_broadcast(&w->go);
    for (;;) {
        int pending = 0;
        for (size_t i = 0; i < w->n; i++)
            pending += w->j[i]->busy && !w->j[i]->done && w->j[i]->since == t;
        if (!pending || pthread_cond_timedwait(&w->cv, &w->mu, &ts) == ETIMEDOUT)
            break;
    }
    for (size_t i = 0; i < w->n; i++) {
        struct job *j = w->j[i];
        if (why[i][0])
            continue;
        if (j->busy && !j->done) {
            snprintf(why[i], sizeof(why[i]), "a read %s (%.1f s and more)",
                     j->since == t ? "did not come back in time" : "still hangs",
                     t - j->since + (j->since == t ? deadline : 0));
            continue;
        }
        j->busy = 0;
        if (j->since != t) /* a late answer to an old read: not this sample */
            snprintf(why[i], sizeof(why[i]), "its hung read came back; read again next time");
        else if (j->rc < 0)
            snprintf(why[i], sizeof(why[i]), "%.159s", j->err.text);
        else {
            s[i] = j->s;
            got++;
        }
    }
    pthread_mutex_unlock(&w->mu);
    return got;
}

void watch_sampler_free(struct watch_sampler *w)
{
    int stuck = 0;

    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    for (size_t i = 0; i < w->n; i++) {
        struct job *j = w->j[i];
        if (j->has_thread && j->busy && !j->done) {
            j->orphan = 1; /* its thread frees it when its read returns */
            pthread_detach(j->th);
            w->j[i] = NULL;
            stuck = 1;
        } else
            j->quit = 1;
    }
    pthread_cond_broadcast(&w->go);
    pthread_mutex_unlock(&w->mu);
    for (size_t i = 0; i < w->n; i++) {
        if (!w->j[i])
            continue;
        if (w->j[i]->has_thread)
            pthread_join(w->j[i]->th, NULL);
        free(w->j[i]);
    }
    if (stuck)
        return; /* the stuck threads still lock the mutex: the sampler stays */
    free(w->j);
    free(w->root);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    pthread_cond_destroy(&w->go);
    free(w);
}
