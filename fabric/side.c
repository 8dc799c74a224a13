#include "config.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "fabric/side.h"
#include "fabric/transport.h"

/* The side channel through PMIx: Open MPI and Slurm start a PMIx client in every rank; a second
 * PMIx_Init in the same process is counted and shares it. */

static void proc_of(const struct fabric_side *s, pmix_rank_t rank, pmix_proc_t *p)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->nspace, sizeof(p->nspace), "%s", s->nspace);
    p->rank = rank;
}

int fabric_side_open(struct fabric_side *s, char *why, size_t whylen)
{
    pmix_proc_t me;
    pmix_status_t rc;

    memset(s, 0, sizeof(*s));
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        snprintf(why, whylen, "PMIx_Init: %s (not launched by a PMIx server)",
                 PMIx_Error_string(rc));
        return -1;
    }
    snprintf(s->nspace, sizeof(s->nspace), "%s", me.nspace);
    s->rank = me.rank;
    s->open = 1;
    return 0;
}

void fabric_side_close(struct fabric_side *s)
{
    if (s->open)
        PMIx_Finalize(NULL, 0);
    s->open = 0;
}

/* an unsigned integer value of any width: 0 or -1 */
static int as_uint(const pmix_value_t *v, uint64_t *out)
{
    switch (v->type) {
    case PMIX_UINT8: *out = v->data.uint8; return 0;
    case PMIX_UINT16: *out = v->data.uint16; return 0;
    case PMIX_UINT32: *out = v->data.uint32; return 0;
    case PMIX_UINT64: *out = v->data.uint64; return 0;
    case PMIX_PROC_RANK: *out = v->data.rank; return 0;
    default: return -1;
    }
}

static int get_uint(const struct fabric_side *s, pmix_rank_t rank, const char *key, uint64_t *out)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    int rc;

    proc_of(s, rank, &p);
    if (PMIx_Get(&p, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    rc = as_uint(v, out);
    PMIX_VALUE_RELEASE(v);
    return rc;
}

int fabric_side_local(struct fabric_side *s, int *local_rank, int *local_size)
{
    uint64_t lr, ls;

    if (!s->open || get_uint(s, s->rank, PMIX_LOCAL_RANK, &lr) < 0 ||
        (get_uint(s, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &ls) < 0 &&
         get_uint(s, s->rank, PMIX_LOCAL_SIZE, &ls) < 0) ||
        ls == 0 || lr >= ls || ls > 4096)
        return -1;
    *local_rank = (int)lr;
    *local_size = (int)ls;
    return 0;
}

int fabric_side_put(struct fabric_side *s, const char *key, const void *data, size_t len)
{
    pmix_value_t v;

    if (!s->open)
        return -1;
    memset(&v, 0, sizeof(v));
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)(uintptr_t)data; /* copied by PMIx_Put */
    v.data.bo.size = len;
    if (PMIx_Put(PMIX_GLOBAL, key, &v) != PMIX_SUCCESS)
        return -1;
    return PMIx_Commit() == PMIX_SUCCESS ? 0 : -1;
}

/* one asking in flight: PMIx's progress thread completes it; an asking given up on stays
 * allocated (the thread may still answer it) */
struct asking {
    atomic_int done;
    int ok;
    size_t len;
    pmix_info_t info[2];
    unsigned char data[];
};

static void answered(pmix_status_t st, pmix_value_t *v, void *cbdata)
{
    struct asking *a = cbdata;

    /* v is the library's: copied here, released by it */
    if (st == PMIX_SUCCESS && v && v->type == PMIX_BYTE_OBJECT && v->data.bo.size == a->len) {
        memcpy(a->data, v->data.bo.bytes, a->len);
        a->ok = 1;
    }
    atomic_store(&a->done, 1);
}

int fabric_side_get(struct fabric_side *s, int rank, const char *key, void *data, size_t len,
                    double deadline)
{
    pmix_proc_t p;
    bool refresh = true;
    int wait = 1;
    struct timespec tick = { 0, 1000000 }, nap = { 0, 200000000 };

    if (!s->open || rank < 0)
        return -1;
    proc_of(s, (pmix_rank_t)rank, &p);
    /* A key put after the job's start is not in this client's copy of the job's data: each
     * asking goes to the rank's server. The wait is ours: a blocking PMIx_Get may wait past
     * its PMIX_TIMEOUT for a key that never comes (its rank gone). */
    for (;;) {
        struct asking *a = calloc(1, sizeof(*a) + len);
        int ok;
        if (!a)
            return -1;
        a->len = len;
        PMIx_Info_load(&a->info[0], PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
        PMIx_Info_load(&a->info[1], PMIX_TIMEOUT, &wait, PMIX_INT);
        if (PMIx_Get_nb(&p, key, a->info, 2, answered, a) != PMIX_SUCCESS) {
            free(a);
            return -1;
        }
        while (!atomic_load(&a->done) && fabric_now() < deadline)
            nanosleep(&tick, NULL);
        if (!atomic_load(&a->done))
            return -1; /* a stays: the answer may still come */
        ok = a->ok;
        if (ok)
            memcpy(data, a->data, len);
        PMIX_INFO_DESTRUCT(&a->info[0]);
        PMIX_INFO_DESTRUCT(&a->info[1]);
        free(a);
        if (ok)
            return 0;
        if (fabric_now() + 0.2 > deadline)
            return -1;
        nanosleep(&nap, NULL);
    }
}
