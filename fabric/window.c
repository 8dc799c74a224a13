#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fabric/verbs.h"

/* Window accounting of the verbs transport: at most depth work requests in flight per queue
 * pair, posts spread round-robin over the queue pairs that have room, and every completion
 * checked against the oldest request of its queue pair (RC completes in order). */

void fabric_window_init(struct fabric_window *w, int qps, int depth)
{
    memset(w, 0, sizeof(*w));
    w->qps = qps < 1 ? 1 : qps;
    w->depth = depth < 1 ? 1 : depth;
    w->posted = xcalloc((size_t)w->qps, sizeof(*w->posted));
    w->completed = xcalloc((size_t)w->qps, sizeof(*w->completed));
}

void fabric_window_free(struct fabric_window *w)
{
    free(w->posted);
    free(w->completed);
    memset(w, 0, sizeof(*w));
}

int fabric_window_pick(struct fabric_window *w)
{
    for (int k = 0; k < w->qps; k++) {
        int qp = (w->next + k) % w->qps;
        if (w->posted[qp] - w->completed[qp] < (uint64_t)w->depth) {
            w->next = (qp + 1) % w->qps;
            return qp;
        }
    }
    return -1;
}

uint64_t fabric_window_post(struct fabric_window *w, int qp, int *slot)
{
    uint64_t seq = w->posted[qp]++;

    *slot = qp * w->depth + (int)(seq % (uint64_t)w->depth);
    w->inflight++;
    return ((uint64_t)qp << 48) | (seq & 0xffffffffffffULL);
}

int fabric_window_complete(struct fabric_window *w, uint64_t wr_id, int *slot)
{
    int qp = (int)(wr_id >> 48);
    uint64_t seq = wr_id & 0xffffffffffffULL;

    if (qp < 0 || qp >= w->qps || w->completed[qp] >= w->posted[qp] ||
        seq != (w->completed[qp] & 0xffffffffffffULL))
        return -1;
    if (slot)
        *slot = qp * w->depth + (int)(seq % (uint64_t)w->depth);
    w->completed[qp]++;
    w->inflight--;
    w->done++;
    return 0;
}
