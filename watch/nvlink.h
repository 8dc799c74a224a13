#ifndef RAILYARD_WATCH_NVLINK_H
#define RAILYARD_WATCH_NVLINK_H

#include <stddef.h>

#include "readers/nvml.h"
#include "watch/events.h"
#include "watch/sysfs.h"

/* The NVLinks of this node's GPUs, sampled for railyard watch through NVML (readers/nvml.h) in a
 * thread of their own. NVML is opened there too: its start takes seconds on a node without the
 * persistence daemon, and a driver in trouble can hang it or any later query. Every read has a
 * deadline; a read that does not come back in time is said, the ports go on being sampled, and
 * NVML is not asked again until that read returns. */

/* Where the links come from: NVML (watch_nvl_nvml) or, in a test, a source of its own. */
struct watch_nvl_ops {
    /* NULL with why: nothing to sample, for good; *failed 1 for a driver that failed, 0 for
     * none (no driver, no GPU) */
    void *(*open)(char *why, size_t len, int *failed);
    size_t (*sample)(void *h, const struct topo_nvlink_sample **out);
    void (*close)(void *h);
};
extern const struct watch_nvl_ops watch_nvl_nvml;

struct watch_nvl;

/* A reader of the links (ops NULL: NVML); its thread starts at the first read. */
struct watch_nvl *watch_nvl_new(const struct watch_nvl_ops *ops);

/* Ask for a read and wait at most deadline seconds (NVML's first open waits open_deadline).
 * Returns the links read (*out, the reader's copy, valid until the next call); -1 with why when
 * there is none this time (the open or a read did not come back in time, still hangs, or came
 * back late: read again next time); -2 with why when there is nothing to sample (no NVIDIA
 * driver, no GPU) and -3 when the driver failed: for good, ask no more. */
long watch_nvl_read(struct watch_nvl *r, double deadline, double open_deadline,
                    const struct topo_nvlink_sample **out, char *why, size_t len);

/* Free it; a read that still hangs keeps the reader's memory (its thread frees it). */
void watch_nvl_free(struct watch_nvl *r);

/* The link's name in the watch: "GPU3/nvlink5" (the GPU's index as nvidia-smi numbers it). */
void watch_nvl_subject(const struct topo_nvlink_sample *x, char *buf, size_t len);
/* 1 with its GPU and link when subject is such a name, else 0 (a port's) */
int watch_nvl_subject_parse(const char *subject, unsigned *gpu, unsigned *link);

/* The link as the events engine takes it at time t: its state (active: up) and its error
 * counters (replay, recovery, CRC flit, CRC data; -1 where the driver gives none). */
void watch_nvl_sample(const struct topo_nvlink_sample *x, double t, struct watch_sample *s);

/* What railyard watch samples, subject by subject: the ports (nsys of them, read from sysfs),
 * then the NVLinks in the order NVML first gave them; each one's last sample, why it has none
 * ("" it has one), what was said of that on stderr, and the events opened since the start per
 * kind. Arrays grown together; NULL and zero to start with. */
struct watch_subjects {
    struct watch_src *ports;
    size_t n, nsys, alloc[5];
    struct watch_sample *s;
    char (*why)[160], (*said)[160];
    long (*opened)[WATCH_NKIND];
};
/* room for n subjects in every array (new ones zeroed) */
void watch_subjects_grow(struct watch_subjects *v, size_t n);
/* a read of the links at t (watch_nvl_read's got, x and why) into the subjects: a link seen for
 * the first time is added, one NVML no longer gives is not sampled (its why says so), and when
 * got < 0 no link is. The number of links added; *active: how many of those read are active. */
size_t watch_subjects_nvlinks(struct watch_subjects *v, long got,
                              const struct topo_nvlink_sample *x, const char *why, double t,
                              size_t *active);
void watch_subjects_free(struct watch_subjects *v);

#endif
