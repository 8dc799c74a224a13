#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xmalloc.h"
#include "watch/nvlink.h"

static void *nvml_open(char *why, size_t len, int *failed)
{
    return topo_nvml_links_open(why, len, failed);
}

static size_t nvml_sample(void *h, const struct topo_nvlink_sample **out)
{
    return topo_nvml_links_sample(h, out);
}

static void nvml_close(void *h)
{
    topo_nvml_links_close(h);
}

const struct watch_nvl_ops watch_nvl_nvml = { nvml_open, nvml_sample, nvml_close };

struct watch_nvl {
    struct watch_nvl_ops ops;
    pthread_mutex_t mu;
    pthread_cond_t cv, go; /* cv: an answer came (on the monotonic clock); go: a request */
    pthread_t th;
    int has_thread, quit, orphan;
    unsigned long want, served;
    /* the request out: posted at since, answered (done) or not */
    int busy, done;
    double since;
    int answered; /* NVML answered once: opened (the open's longer deadline is spent) */
    /* the answer: the links (the thread's copy), or rc -2 with why */
    int rc;
    char why[160];
    struct topo_nvlink_sample *v;
    size_t nv, valloc;
    /* what the last read handed out */
    struct topo_nvlink_sample *out;
    size_t nout, oalloc;
    int gone; /* -2, -3: nothing to sample, for good (watch_nvl_read) */
    char gone_why[160];
};

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct watch_nvl *watch_nvl_new(const struct watch_nvl_ops *ops)
{
    struct watch_nvl *r = xcalloc(1, sizeof(*r));
    pthread_condattr_t ca;

    r->ops = ops ? *ops : watch_nvl_nvml;
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&r->go, NULL);
    return r;
}

static void destroy(struct watch_nvl *r)
{
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    pthread_cond_destroy(&r->go);
    free(r->v);
    free(r->out);
    free(r);
}

/* the reader's thread: NVML opened at the first request, then one sample per request */
static void *reader(void *arg)
{
    struct watch_nvl *r = arg;
    void *h = NULL;
    int failed = 0;

    pthread_mutex_lock(&r->mu);
    for (;;) {
        const struct topo_nvlink_sample *v = NULL;
        char why[160] = "";
        unsigned long gen;
        size_t n = 0;
        while (!r->quit && r->served == r->want)
            pthread_cond_wait(&r->go, &r->mu);
        if (r->quit)
            break;
        gen = r->want;
        pthread_mutex_unlock(&r->mu);
        /* (asked again after nothing to sample only if the watch asks: it does not) */
        if (!h)
            h = r->ops.open(why, sizeof(why), &failed);
        if (h)
            n = r->ops.sample(h, &v);
        pthread_mutex_lock(&r->mu);
        if (r->orphan) { /* the watch ended while this read hung */
            pthread_mutex_unlock(&r->mu);
            if (h)
                r->ops.close(h);
            destroy(r);
            return NULL;
        }
        r->rc = h ? 0 : failed ? -3 : -2;
        snprintf(r->why, sizeof(r->why), "%s", why[0] ? why : "NVML gave nothing to sample");
        xgrow((void **)&r->v, &r->valloc, n + 1, sizeof(*r->v));
        if (n)
            memcpy(r->v, v, n * sizeof(*v));
        r->nv = n;
        r->served = gen;
        r->done = 1;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    if (h)
        r->ops.close(h);
    return NULL;
}

long watch_nvl_read(struct watch_nvl *r, double deadline, double open_deadline,
                    const struct topo_nvlink_sample **out, char *why, size_t len)
{
    double now = mono(), until;
    struct timespec ts;
    long rc;

    why[0] = '\0';
    *out = NULL;
    if (r->gone) {
        snprintf(why, len, "%s", r->gone_why);
        return r->gone;
    }
    pthread_mutex_lock(&r->mu);
    if (r->busy && !r->done) {
        snprintf(why, len, "NVML's read still hangs (%.1f s and more)", now - r->since);
        pthread_mutex_unlock(&r->mu);
        return -1;
    }
    if (r->busy) { /* a late answer to a read that hung: not this sample's */
        r->busy = 0;
        if (r->rc < 0)
            goto gone;
        snprintf(why, len, "NVML's hung read came back; read again next time");
        pthread_mutex_unlock(&r->mu);
        return -1;
    }
    if (!r->has_thread) {
        pthread_attr_t at;
        int e;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 256 * 1024);
        e = pthread_create(&r->th, &at, reader, r);
        pthread_attr_destroy(&at);
        if (e) {
            snprintf(why, len, "could not start NVML's reader: %s", strerror(e));
            pthread_mutex_unlock(&r->mu);
            return -1;
        }
        r->has_thread = 1;
    }
    r->busy = 1;
    r->done = 0;
    r->since = now;
    r->want++;
    pthread_cond_signal(&r->go);
    if (!r->answered && open_deadline > deadline)
        deadline = open_deadline;
    until = now + deadline;
    ts.tv_sec = (time_t)until;
    ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
    while (!r->done)
        if (pthread_cond_timedwait(&r->cv, &r->mu, &ts) == ETIMEDOUT)
            break;
    if (!r->done) {
        snprintf(why, len, "NVML did not answer in time (%.1f s)%s", deadline,
                 r->answered ? "" : " when it was opened");
        pthread_mutex_unlock(&r->mu);
        return -1;
    }
    r->busy = 0;
    if (r->rc < 0)
        goto gone;
    r->answered = 1;
    xgrow((void **)&r->out, &r->oalloc, r->nv + 1, sizeof(*r->out));
    if (r->nv)
        memcpy(r->out, r->v, r->nv * sizeof(*r->v));
    r->nout = r->nv;
    rc = (long)r->nout;
    pthread_mutex_unlock(&r->mu);
    *out = r->out;
    return rc;
gone:
    r->gone = r->rc;
    snprintf(r->gone_why, sizeof(r->gone_why), "%s", r->why);
    snprintf(why, len, "%s", r->gone_why);
    pthread_mutex_unlock(&r->mu);
    return r->gone;
}

void watch_nvl_free(struct watch_nvl *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    if (r->has_thread && r->busy && !r->done) {
        r->orphan = 1; /* its thread frees it when the read returns */
        pthread_detach(r->th);
        pthread_mutex_unlock(&r->mu);
        return;
    }
    r->quit = 1;
    pthread_cond_broadcast(&r->go);
    pthread_mutex_unlock(&r->mu);
    if (r->has_thread)
        pthread_join(r->th, NULL);
    destroy(r);
}

void watch_nvl_subject(const struct topo_nvlink_sample *x, char *buf, size_t len)
{
    snprintf(buf, len, "GPU%u/nvlink%u", x->gpu, x->link);
}

int watch_nvl_subject_parse(const char *subject, unsigned *gpu, unsigned *link)
{
    char tail;

    return sscanf(subject, "GPU%u/nvlink%u%c", gpu, link, &tail) == 2;
}

void watch_nvl_sample(const struct topo_nvlink_sample *x, double t, struct watch_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->t = t;
    s->nvlink = 1;
    s->state = x->active ? WATCH_UP : WATCH_DOWN;
    for (int c = 0; c < WATCH_NCTR; c++)
        s->ctr[c] = -1;
    for (int k = 0; k < 4; k++) /* replay, recovery, CRC flit, CRC data: the engine's order */
        if (x->have_errors & (1 << k))
            s->ctr[WATCH_NVL_REPLAY + k] = (long long)x->errors[k];
}

void watch_subjects_grow(struct watch_subjects *v, size_t n)
{
    xgrow(&v->ports, &v->alloc[0], n, sizeof(*v->ports));
    xgrow(&v->s, &v->alloc[1], n, sizeof(*v->s));
    xgrow(&v->why, &v->alloc[2], n, sizeof(*v->why));
    xgrow(&v->said, &v->alloc[3], n, sizeof(*v->said));
    xgrow(&v->opened, &v->alloc[4], n, sizeof(*v->opened));
}

size_t watch_subjects_nvlinks(struct watch_subjects *v, long got,
                              const struct topo_nvlink_sample *x, const char *why, double t,
                              size_t *active)
{
    size_t k = v->nsys, before = v->n;

    *active = 0;
    for (size_t i = v->nsys; i < v->n; i++)
        snprintf(v->why[i], sizeof(v->why[i]), "%s",
                 got < 0 ? why : "NVML no longer gives this link (its GPU gone?)");
    for (long j = 0; j < got; j++) {
        char subject[96];
        size_t i = k, found = v->n;
        watch_nvl_subject(&x[j], subject, sizeof(subject));
        for (size_t m = v->nsys; m < v->n; m++, i++) { /* from where the last one was */
            if (i >= v->n)
                i = v->nsys;
            if (!strcmp(v->ports[i].subject, subject)) {
                found = i;
                break;
            }
        }
        k = found;
        if (k == v->n) { /* new: at the end */
            watch_subjects_grow(v, ++v->n);
            snprintf(v->ports[k].subject, sizeof(v->ports[k].subject), "%s", subject);
            snprintf(v->ports[k].dev, sizeof(v->ports[k].dev), "%s", x[j].busid);
            v->ports[k].port = (int)x[j].link;
            v->ports[k].nvlink = 1;
        }
        watch_nvl_sample(&x[j], t, &v->s[k]);
        v->why[k][0] = '\0';
        *active += x[j].active != 0;
        k++; /* NVML gives them in the same order every time: the next one is likely next */
    }
    return v->n - before;
}

void watch_subjects_free(struct watch_subjects *v)
{
    free(v->ports);
    free(v->s);
    free(v->why);
    free(v->said);
    free(v->opened);
    memset(v, 0, sizeof(*v));
}
