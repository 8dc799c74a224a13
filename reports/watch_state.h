#ifndef RAILYARD_REPORTS_WATCH_STATE_H
#define RAILYARD_REPORTS_WATCH_STATE_H

#include "reports/watch_json.h"
#include "topo/compare.h"

/* The health check's judgment of what railyard watch saw (railyard-check(1), --watch-state):
 * a port that flapped or went down within the watch's window fails (watch.port.flapping,
 * watch.port.down), a burst of errors or congestion within it warns; an event that closed
 * before the window is not judged at all. A watch that ended, or whose state is older than
 * RY_WATCH_STALE_INTERVALS intervals and RY_WATCH_STALE_SLACK seconds, judges nothing: said as
 * not judged, never healthy and never faulty. Ports are named as the check names them,
 * "host/mlx5_3:1" (the watch's "mlx5_3/1"); NVLinks "host/GPU3/nvlink5", and the events of one
 * kind on several links of a GPU are one finding, "host/GPU3", its links listed. now: seconds
 * since the epoch. */
#define RY_WATCH_NVLINKS_MAX     64 /* links of one GPU the judgment folds (NVML: 18 today) */
#define RY_WATCH_STALE_INTERVALS 3
#define RY_WATCH_STALE_SLACK     5.0

/* The events the watch's state lists, kept as they come (railyard watch): an event replaces its
 * own earlier phase (same kind, subject and counter, not closed), closed ones leave once older
 * than the window. */
struct ry_watch_kept_list {
    struct ry_watch_kept *v;
    size_t n, alloc;
};
void ry_watch_keep(struct ry_watch_kept_list *l, enum watch_phase ph, const struct watch_event *e);
void ry_watch_expire(struct ry_watch_kept_list *l, double now, double window);

/* 1 for an event kind that drains a node (its link went away: *.down, *.flapping), 0 for one
 * that warns (bursts, congestion) */
int ry_watch_kind_drains(const char *kind);

/* 1 when the watch is running and its state fresh at now (as ry_watch_judge takes it), else 0 */
int ry_watch_live(const struct ry_watch_read *r, double now);

void ry_watch_judge(const struct ry_watch_read *r, const char *path, const char *host, double now,
                    struct topo_findings *f);

/* The node check's part (railyard check --watch-state): the state file given, or ("NULL") on
 * the live node the archive's watch/state.json when it exists (no watch installed: nothing
 * said); "none": nothing. A file that cannot be read is said as not judged, with the file and
 * what is wrong. */
void ry_watch_check(const char *given, int live, const char *host, struct topo_findings *f);

#endif
