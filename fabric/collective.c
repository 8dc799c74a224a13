#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "fabric/collective.h"

static const char *const names[FABRIC_COLL_N] = { "allreduce", "allgather", "reducescatter",
                                                  "alltoall" };

const char *fabric_coll_name(enum fabric_coll k)
{
    return (unsigned)k < FABRIC_COLL_N ? names[k] : "?";
}

int fabric_coll_parse(const char *list, unsigned *mask, ry_error_t *err)
{
    const char *p = list;

    *mask = 0;
    if (!list || !*list)
        return ry_errorf(err, "--collectives takes a list: allreduce,allgather,reducescatter,"
                              "alltoall or all");
    while (*p) {
        size_t len = strcspn(p, ",");
        int k, found = 0;
        if (len == 3 && !strncmp(p, "all", 3)) {
            *mask |= (1u << FABRIC_COLL_N) - 1;
            found = 1;
        }
        for (k = 0; k < FABRIC_COLL_N && !found; k++)
            if (strlen(names[k]) == len && !strncmp(p, names[k], len)) {
                *mask |= 1u << k;
                found = 1;
            }
        if (!found)
            return ry_errorf(err,
                             "--collectives: unknown collective '%.*s' (allreduce, allgather, "
                             "reducescatter, alltoall, all)",
                             (int)(len > 40 ? 40 : len), p);
        p += len;
        if (*p == ',' && *++p == '\0')
            return ry_errorf(err, "--collectives: the list ends with a comma");
    }
    return 0;
}

int fabric_coll_parse_sizes(const char *list, size_t *sizes, int max, ry_error_t *err)
{
    const char *p = list;
    int n = 0;

    if (!list || !*list)
        return ry_errorf(err, "--coll-size takes sizes in bytes: 8M,64M");
    while (*p) {
        size_t len = strcspn(p, ",");
        char word[32];
        double v = 0;
        if (len == 0 || len >= sizeof(word))
            return ry_errorf(err, "--coll-size: a size cannot be '%.*s'",
                             (int)(len > 31 ? 31 : len), p);
        memcpy(word, p, len);
        word[len] = '\0';
        if (ry_parse_size(word, &v) < 0 || v < 1024 || v > 16.0 * 1024 * 1024 * 1024)
            return ry_errorf(err, "--coll-size: '%s' is not a size from 1K to 16G", word);
        if (n == max)
            return ry_errorf(err, "--coll-size: at most %d sizes", max);
        sizes[n++] = (size_t)v;
        p += len;
        if (*p == ',' && *++p == '\0')
            return ry_errorf(err, "--coll-size: the list ends with a comma");
    }
    return n;
}

double fabric_coll_bus_factor(enum fabric_coll k, int n)
{
    if (n < 1)
        return 0;
    return (k == FABRIC_COLL_ALLREDUCE ? 2.0 : 1.0) * (double)(n - 1) / (double)n;
}

size_t fabric_coll_count(enum fabric_coll k, size_t size, int n)
{
    size_t floats = size / 4;

    if (n < 1 || size < 4 * (size_t)n)
        return 0;
    switch (k) {
    case FABRIC_COLL_ALLREDUCE: return floats;
    case FABRIC_COLL_ALLGATHER:     /* sent; received n times it */
    case FABRIC_COLL_REDUCESCATTER: /* received; sent n times it */
    case FABRIC_COLL_ALLTOALL: /* to each peer */ return floats / (size_t)n;
    default: return 0;
    }
}

double fabric_coll_bound(const struct fabric_input *in, int rail, const unsigned char *nodes,
                         double *slowest)
{
    double *best = xcalloc((size_t)in->nodes + 1, sizeof(*best)), bound = -1, low = -1;
    size_t n = 0;

    for (int k = 0; k < in->nodes; k++)
        best[k] = -1;
    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        if (l->rail != rail || !l->ok || !(l->bw_gbps > 0) || l->a < 0 || l->b < 0 ||
            l->a >= in->nodes || l->b >= in->nodes)
            continue;
        if (nodes && (!nodes[l->a] || !nodes[l->b]))
            continue;
        if (l->bw_gbps > best[l->a])
            best[l->a] = l->bw_gbps;
        if (l->bw_gbps > best[l->b])
            best[l->b] = l->bw_gbps;
        if (low < 0 || l->bw_gbps < low)
            low = l->bw_gbps;
    }
    for (int k = 0; k < in->nodes; k++)
        if (best[k] > 0)
            best[n++] = best[k];
    if (n > 0)
        bound = fabric_median(best, n);
    free(best);
    if (slowest)
        *slowest = low;
    return bound;
}

enum fabric_coll_verdict fabric_coll_judge(double busbw, double bound, double ratio_min,
                                           double host_share)
{
    if (!(bound > 0))
        return FABRIC_COLL_NOBOUND;
    if (ratio_min < 0)
        ratio_min = FABRIC_COLL_RATIO_MIN;
    if (busbw >= ratio_min * bound)
        return FABRIC_COLL_OK;
    if (host_share >= 0 && host_share < 1 && busbw >= ratio_min * bound * host_share)
        return FABRIC_COLL_HOST;
    return FABRIC_COLL_SHORT;
}

const char *fabric_coll_verdict_name(enum fabric_coll_verdict v)
{
    switch (v) {
    case FABRIC_COLL_OK: return "ok";
    case FABRIC_COLL_SHORT: return "short";
    case FABRIC_COLL_HOST: return "host-limited";
    case FABRIC_COLL_NOBOUND: return "no-bound";
    }
    return "?";
}

void fabric_coll_halve(const int *set, int n, int *a, int *na, int *b, int *nb)
{
    *na = n / 2;
    *nb = n - *na;
    memcpy(a, set, (size_t)*na * sizeof(*set));
    memcpy(b, set + *na, (size_t)*nb * sizeof(*set));
}

enum fabric_coll_step fabric_coll_halves(double fa, double fb, double whole, double q)
{
    int slow_a = fa < q * fb, slow_b = fb < q * fa;

    if (slow_a != slow_b)
        return slow_a ? FABRIC_COLL_STEP_A_SLOW : FABRIC_COLL_STEP_B_SLOW;
    /* each half faster than the whole: what they do not share, the paths between them, is slow */
    return (fa < fb ? fa : fb) * q > whole ? FABRIC_COLL_STEP_BETWEEN : FABRIC_COLL_STEP_ALIKE;
}

double fabric_coll_pairs(const double *busbw, int ng, int control, double q, unsigned char *slow)
{
    double ref = control >= 0 && control < ng && busbw[control] > 0 ? busbw[control] : 0;

    if (ref <= 0)
        for (int j = 0; j < ng; j++)
            if (busbw[j] > ref)
                ref = busbw[j];
    for (int j = 0; j < ng; j++)
        slow[j] = j != control && !(busbw[j] > 0 && busbw[j] >= q * ref);
    return ref;
}

/* the first good node at or after k, or n */
static int next_good(const unsigned char *good, int n, int k)
{
    while (k < n && !good[k])
        k++;
    return k;
}

int fabric_coll_pair_plan(const int *set, int ns, const unsigned char *good, int n, int (*pairs)[2],
                          int *suspect, int *control)
{
    int ng = 0, partner = 0, p2;

    *control = -1;
    for (int j = 0; j < ns; j++) {
        if ((partner = next_good(good, n, partner)) == n)
            return -1;
        pairs[ng][0] = set[j] < partner ? set[j] : partner;
        pairs[ng][1] = set[j] < partner ? partner : set[j];
        suspect[ng++] = set[j];
        partner++;
    }
    partner = next_good(good, n, partner);
    if (partner < n && (p2 = next_good(good, n, partner + 1)) < n) {
        *control = ng;
        pairs[ng][0] = partner;
        pairs[ng][1] = p2;
        suspect[ng++] = -1;
    }
    return ng;
}
