#ifndef RAILYARD_READERS_NVML_H
#define RAILYARD_READERS_NVML_H

#include "common/error.h"
#include "topo/model.h"

/* Complete node with what the NVIDIA driver reports through NVML, loaded at run time
 * (libnvidia-ml.so.1, or $RAILYARD_NVML_LIBRARY): GPU model, UUID, memory, PCIe link current
 * and maximum generation/width, NVLink links and their peers. GPUs are matched by PCI address;
 * GPUs that hwloc did not report are added.
 *
 * A node without the driver is not an error: the function returns 0 and sets
 * node->gpu_driver_note ("no NVIDIA driver (...)"). -1 only for a driver that is present but
 * fails. */
int topo_nvml_discover(struct topo_node *node, ry_error_t *err);

/* What else runs on each GPU the driver sees, before a probe measures them: compute processes
 * other than this one, and the utilisation of the last sample period (-1 where the driver does
 * not say). */
struct topo_gpu_busy {
    char busid[TOPO_BUSID_LEN];
    int processes, first_pid;
    int util_gpu, util_memory;
};
#define TOPO_GPU_BUSY_PERCENT 10 /* above this a GPU is busy (DCGM waits for copy use <= 10%) */
/* The GPUs (an array the caller frees) and their count; -1 with err when there is no driver. */
int topo_nvml_busy(struct topo_gpu_busy **out, ry_error_t *err);
/* 1 with why ("2 other processes on it (pid 4711)") when b is busy, else 0 */
int topo_gpu_busy_why(const struct topo_gpu_busy *b, char *why, size_t len);

/* NVLink counters for a console that samples them at every refresh: each GPU's links with
 * their state, the GPU at the other end, the NVLink data throughput counters (KiB, NVML fields
 * NVLINK_THROUGHPUT_DATA_TX/RX) and the error counters (replay, recovery, CRC flit, CRC data),
 * each marked unread where the driver does not give it. */
struct topo_nvlink_sample {
    unsigned gpu, link;
    char busid[TOPO_BUSID_LEN];     /* the GPU's PCI address */
    char remote[TOPO_NVTARGET_LEN]; /* the other end's (topo_nvtarget_normalize), "" not known */
    int active;
    int have_data;
    unsigned long long tx_kib, rx_kib;
    int have_errors;              /* a bit per error counter the driver gave */
    unsigned long long errors[4]; /* replay, recovery, crc_flit, crc_data */
};
struct topo_nvml_links;
/* NULL with why ("no NVIDIA driver (...)", "no GPU visible") when there is nothing to sample;
 * *failed (when not NULL) 1 when a driver is there but failed, 0 when there is none */
struct topo_nvml_links *topo_nvml_links_open(char *why, size_t len, int *failed);
/* every link of every GPU now; the array is the session's, valid until the next call */
size_t topo_nvml_links_sample(struct topo_nvml_links *s, const struct topo_nvlink_sample **out);
void topo_nvml_links_close(struct topo_nvml_links *s);

#endif
