#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fabric/schedule.h"

static struct fabric_round *add_round(struct fabric_schedule *s)
{
    s->rounds = xrealloc(s->rounds, (s->n + 1) * sizeof(*s->rounds));
    s->rounds[s->n].pairs = NULL;
    s->rounds[s->n].n = 0;
    return &s->rounds[s->n++];
}

static void add_pair(struct fabric_round *r, int a, int b)
{
    r->pairs = xrealloc(r->pairs, (r->n + 1) * sizeof(*r->pairs));
    r->pairs[r->n].a = a;
    r->pairs[r->n].b = b;
    r->n++;
}

static int need_nodes(int nodes, ry_error_t *err)
{
    if (nodes < 2) {
        errno = EINVAL;
        return ry_errorf(err, "a schedule needs at least 2 nodes, not %d", nodes);
    }
    return 0;
}

void fabric_schedule_free(struct fabric_schedule *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->rounds[i].pairs);
    free(s->rounds);
    s->rounds = NULL;
    s->n = 0;
}

int fabric_schedule_all_pairs(int nodes, struct fabric_schedule *s, ry_error_t *err)
{
    int m = nodes % 2 ? nodes + 1 : nodes; /* a "bye" slot when odd */

    memset(s, 0, sizeof(*s));
    if (need_nodes(nodes, err) < 0)
        return -1;
    /* circle method: slot 0 stays, the others rotate */
    for (int r = 0; r < m - 1; r++) {
        struct fabric_round *rd = add_round(s);
        for (int i = 0; i < m / 2; i++) {
            int x = i == 0 ? 0 : 1 + (i - 1 + r) % (m - 1);
            int y = 1 + (m - 2 - i + r) % (m - 1);
            if (x >= nodes || y >= nodes)
                continue;
            /* alternate who sends so that each node sends about as often as it receives */
            if ((r + i) % 2)
                add_pair(rd, y, x);
            else
                add_pair(rd, x, y);
        }
    }
    return 0;
}

int fabric_schedule_ring(int nodes, int shift, struct fabric_schedule *s, ry_error_t *err)
{
    char *used;
    int *done;
    int edges = nodes, placed = 0;

    memset(s, 0, sizeof(*s));
    if (need_nodes(nodes, err) < 0)
        return -1;
    if (shift < 1 || shift >= nodes) {
        errno = EINVAL;
        return ry_errorf(err, "ring shift must be 1..%d, not %d", nodes - 1, shift);
    }
    if (2 * shift == nodes)
        edges = nodes / 2; /* i and i+n/2 pair up once */
    used = xcalloc((size_t)nodes, 1);
    done = xcalloc((size_t)nodes, sizeof(*done));
    /* greedy edge colouring: at most 3 rounds for a union of cycles */
    while (placed < edges) {
        struct fabric_round *rd = add_round(s);
        memset(used, 0, (size_t)nodes);
        for (int i = 0; i < nodes; i++) {
            int j = (i + shift) % nodes;
            if (done[i] || (edges < nodes && i >= nodes / 2) || used[i] || used[j])
                continue;
            add_pair(rd, i, j);
            used[i] = used[j] = 1;
            done[i] = 1;
            placed++;
        }
    }
    free(used);
    free(done);
    return 0;
}

int fabric_schedule_neighbor(int nodes, struct fabric_schedule *s, ry_error_t *err)
{
    struct fabric_round *rd;

    memset(s, 0, sizeof(*s));
    if (need_nodes(nodes, err) < 0)
        return -1;
    rd = add_round(s);
    for (int i = 0; i + 1 < nodes; i += 2)
        add_pair(rd, i, i + 1);
    if (nodes == 2)
        return 0;
    rd = add_round(s);
    for (int i = 1; i + 1 < nodes; i += 2)
        add_pair(rd, i, i + 1);
    if (nodes % 2 == 0)
        add_pair(rd, nodes - 1, 0); /* closes the ring */
    else {
        /* odd: the last node met its left neighbour in round 2's scan only if it was free;
         * pair it with node 0 in a third round */
        rd = add_round(s);
        add_pair(rd, nodes - 1, 0);
    }
    return 0;
}

int fabric_schedule_bisect(int nodes, const int *suspects, size_t nsuspects, const int *good,
                           struct fabric_schedule *s, ry_error_t *err)
{
    int *goods, ngood = 0;
    size_t next = 0;

    memset(s, 0, sizeof(*s));
    if (need_nodes(nodes, err) < 0)
        return -1;
    goods = xcalloc((size_t)nodes, sizeof(*goods));
    /* the nodes proven best first: a higher good[i] before a lower one, each in node order */
    for (int level = INT_MAX;;) {
        int top = 0;
        for (int i = 0; i < nodes; i++)
            if (good[i] > top && good[i] < level)
                top = good[i];
        if (top == 0)
            break;
        for (int i = 0; i < nodes; i++)
            if (good[i] == top)
                goods[ngood++] = i;
        level = top;
    }
    if (ngood == 0 && nsuspects > 0) {
        free(goods);
        errno = EINVAL;
        return ry_errorf(err, "bisect needs at least one known-good node");
    }
    for (size_t i = 0; i < nsuspects; i++)
        if (suspects[i] < 0 || suspects[i] >= nodes || good[suspects[i]] > 0) {
            free(goods);
            errno = EINVAL;
            return ry_errorf(err, "suspect %d is not a node, or is marked good", suspects[i]);
        }
    while (next < nsuspects) {
        struct fabric_round *rd = add_round(s);
        for (int g = 0; g < ngood && next < nsuspects; g++, next++)
            add_pair(rd, goods[g], suspects[next]);
    }
    free(goods);
    return 0;
}

static int node_index(const char *tok, int nodes, char *const *names)
{
    char *end;
    long v;

    for (int i = 0; names && i < nodes; i++)
        if (!strcmp(names[i], tok))
            return i;
    v = strtol(tok, &end, 10);
    if (*tok && !*end && v >= 0 && v < nodes)
        return (int)v;
    return -1;
}

int fabric_schedule_custom(const char *path, int nodes, char *const *names,
                           struct fabric_schedule *s, ry_error_t *err)
{
    struct fabric_pair *pairs = NULL;
    size_t np = 0;
    char line[512];
    int lineno = 0;
    FILE *f;

    memset(s, 0, sizeof(*s));
    if (!(f = fopen(path, "r")))
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        char a[128], b[128], extra[2];
        char *hash = strchr(line, '#');
        int n, x, y;
        lineno++;
        if (hash)
            *hash = '\0';
        n = sscanf(line, "%127s %127s %1s", a, b, extra);
        if (n <= 0)
            continue;
        if (n != 2) {
            fclose(f);
            free(pairs);
            errno = EINVAL;
            return ry_errorf(err, "%s:%d: expected two nodes per line", path, lineno);
        }
        x = node_index(a, nodes, names);
        y = node_index(b, nodes, names);
        if (x < 0 || y < 0 || x == y) {
            fclose(f);
            free(pairs);
            errno = EINVAL;
            return ry_errorf(err, "%s:%d: '%s %s': %s", path, lineno, a, b,
                             x == y && x >= 0 ? "a node cannot test itself" : "no such node");
        }
        for (size_t i = 0; i < np; i++)
            if ((pairs[i].a == x && pairs[i].b == y) || (pairs[i].a == y && pairs[i].b == x)) {
                fclose(f);
                free(pairs);
                errno = EINVAL;
                return ry_errorf(err, "%s:%d: '%s %s' is listed twice", path, lineno, a, b);
            }
        pairs = xrealloc(pairs, (np + 1) * sizeof(*pairs));
        pairs[np].a = x;
        pairs[np++].b = y;
    }
    fclose(f);
    if (np == 0) {
        errno = EINVAL;
        return ry_errorf(err, "%s: no pairs", path);
    }
    fabric_schedule_pack(nodes, pairs, np, s);
    free(pairs);
    return 0;
}

void fabric_schedule_pack(int nodes, const struct fabric_pair *pairs, size_t n,
                          struct fabric_schedule *s)
{
    char *used = xcalloc((size_t)nodes, 1), *placed = xcalloc(n ? n : 1, 1);

    memset(s, 0, sizeof(*s));
    for (size_t done = 0; done < n;) {
        struct fabric_round *rd = add_round(s);
        memset(used, 0, (size_t)nodes);
        for (size_t i = 0; i < n; i++) {
            if (placed[i] || used[pairs[i].a] || used[pairs[i].b])
                continue;
            add_pair(rd, pairs[i].a, pairs[i].b);
            used[pairs[i].a] = used[pairs[i].b] = 1;
            placed[i] = 1;
            done++;
        }
    }
    free(used);
    free(placed);
}

int fabric_schedule_validate(const struct fabric_schedule *s, int nodes, ry_error_t *err)
{
    char *used = xcalloc((size_t)nodes, 1), *seen = xcalloc((size_t)nodes * (size_t)nodes, 1);
    int rc = 0;

    for (size_t r = 0; r < s->n && rc == 0; r++) {
        memset(used, 0, (size_t)nodes);
        for (size_t i = 0; i < s->rounds[r].n && rc == 0; i++) {
            int a = s->rounds[r].pairs[i].a, b = s->rounds[r].pairs[i].b;
            if (a < 0 || b < 0 || a >= nodes || b >= nodes || a == b)
                rc = ry_errorf(err, "round %zu: bad pair (%d, %d)", r + 1, a, b);
            else if (used[a] || used[b])
                rc = ry_errorf(err, "round %zu: node %d used twice", r + 1, used[a] ? a : b);
            else if (seen[a * nodes + b] || seen[b * nodes + a])
                rc = ry_errorf(err, "round %zu: pair (%d, %d) tested twice", r + 1, a, b);
            else {
                used[a] = used[b] = 1;
                seen[a * nodes + b] = 1;
            }
        }
    }
    free(used);
    free(seen);
    if (rc < 0)
        errno = EINVAL;
    return rc;
}

int fabric_pair_measured(const unsigned char *unreached, const int *lost, int a, int b)
{
    if (unreached && (unreached[a] || unreached[b]))
        return 0;
    return !lost || (!lost[a] && !lost[b]);
}
