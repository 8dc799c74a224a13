#ifndef RAILYARD_TOPO_GPUBW_H
#define RAILYARD_TOPO_GPUBW_H

#include <stddef.h>

/* GPU data-path measurements: what nvbandwidth, the CUDA samples' p2pBandwidthLatencyTest and
 * bandwidthTest printed on a node, as values the checks judge (railyard-check(1), "GPU data
 * paths"). Bandwidth is in GB/s (10^9 bytes/s), latency in microseconds. GPUs are numbered as
 * the tool numbered them (CUDA's order). */

enum topo_bw_kind {
    TOPO_BW_H2D,              /* host to GPU a, one GPU at a time */
    TOPO_BW_D2H,              /* GPU a to host */
    TOPO_BW_HOST_BIDIR,       /* GPU a and host both ways at once (one direction's figure) */
    TOPO_BW_HOST_ALL,         /* GPU a's share while every GPU copies to or from the host */
    TOPO_BW_P2P,              /* GPU a to GPU b through peer access (write or read) */
    TOPO_BW_P2P_BIDIR,        /* a and b both ways at once: the total of both directions */
    TOPO_BW_P2P_HOST,         /* a to b with peer access off: through host memory */
    TOPO_BW_P2P_HOST_BIDIR,   /* the same both ways at once (total) */
    TOPO_BW_P2P_OTHER,        /* several GPUs to or from one (all_to_one, one_to_all) */
    TOPO_BW_LOCAL,            /* a copy within GPU a's memory */
    TOPO_BW_P2P_LATENCY,      /* a to b with peer access, microseconds */
    TOPO_BW_P2P_HOST_LATENCY, /* a to b through host memory, microseconds */
    TOPO_BW_HOST_LATENCY,     /* host and GPU a, microseconds */
    TOPO_BW_L2_LATENCY,       /* a load that hits GPU a's L2 cache, microseconds */
    TOPO_BW_MEM_LATENCY,      /* a load from GPU a's memory (past L2), microseconds */
    TOPO_BW_LAUNCH_LATENCY,   /* an empty kernel launched and waited for on GPU a */
    TOPO_BW_GDR,              /* RDMA writes from and to GPU a's memory looped through a NIC */
    TOPO_BW_NIC_LOOP,         /* the same loop through GPU a's NIC with host memory */
};

struct topo_bw {
    enum topo_bw_kind kind;
    int a, b;      /* GPU indexes; b is -1 for a figure of one GPU */
    double value;  /* GB/s, or microseconds for the latency kinds */
    int sm;        /* 1 copied by an SM kernel, 0 by a copy engine */
    int counts_rw; /* 1 the tool counts bytes read plus written (a local copy's traffic) */
    int group;     /* index in topo_bw_capture.groups: the test and matrix it came from */
    int line;      /* line of the value's row in the file */
    int nic1;      /* loopback figures: 1 + the NIC's index in the node's NICs; 0 none */
};

/* One captured output file. */
struct topo_bw_capture {
    char *path;
    char *tool;    /* "nvbandwidth v0.10.0", "p2pBandwidthLatencyTest", "bandwidthTest" */
    int ngpus;     /* GPUs the file names or measures */
    char **model;  /* per GPU: the name the tool printed, NULL unknown */
    char **busid;  /* per GPU: "0000:1a:00.0", NULL unknown */
    int *peer;     /* ngpus x ngpus: 1 peer access, 0 none, -1 not said */
    int *node_gpu; /* per GPU: its index in the node's GPUs, -1 when the node lists none */
    int gpus_line; /* the line that names or first measures the GPUs */
    char **groups; /* "host_to_device_memcpy_ce", "Bidirectional P2P=Enabled Bandwidth" */
    size_t ngroups;
    struct topo_bw *v;
    size_t n;
    /* what went wrong in the run, with its line; NULL when nothing did */
    char *corrupt; /* the tool found copied data that differs from what it wrote */
    char *broke;   /* the run ended before its report (abort, assertion, a cut matrix) */
    char **waived; /* tests the tool waived ("device_to_device_memcpy_write_ce (line 14)") */
    size_t nwaived;
    size_t alloc, groups_alloc, waived_alloc, gpus_alloc;
};

struct topo_bw_capture *topo_bw_capture_new(const char *path, const char *tool);
void topo_bw_capture_free(struct topo_bw_capture *c);
/* Make room for GPU index i (models and addresses unknown, peer access not said). */
void topo_bw_capture_gpu(struct topo_bw_capture *c, int i);
int topo_bw_capture_group(struct topo_bw_capture *c, const char *name);
void topo_bw_capture_add(struct topo_bw_capture *c, const struct topo_bw *v);
void topo_bw_capture_waive(struct topo_bw_capture *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The median of v[0..n-1] (v is reordered); -1 when n is 0. */
double topo_bw_median(double *v, size_t n);
/* 1 for the kinds measured in microseconds */
int topo_bw_is_latency(enum topo_bw_kind k);
/* peer access of a to b: 1, 0, or -1 when the file does not say */
int topo_bw_peer(const struct topo_bw_capture *c, int a, int b);

/* Efficiency floors: the share of a link's bound a healthy path reaches (railyard-check(1)
 * cites the measurements behind each). */
#define TOPO_BW_FLOOR_HOST         0.70 /* H2D, D2H on the GPU's host link */
#define TOPO_BW_FLOOR_NVLINK       0.70 /* peer copies over NVLink */
#define TOPO_BW_FLOOR_PCIE_P2P     0.50 /* peer copies over PCIe */
#define TOPO_BW_SIBLING            0.75 /* a figure below this share of the node's median is low */
#define TOPO_BW_SIBLING_LAT        3.0  /* a latency above this multiple of the median is high */
#define TOPO_BW_P2P_VS_HOST        0.80 /* peer copies below this share of host-staged ones */
#define TOPO_BW_LATENCY_CEILING_US 1000.0 /* no healthy path is slower than this */
#define TOPO_BW_FLOOR_GDR          0.75   /* a NIC loop of RDMA writes, of the port's rate */
#define TOPO_BW_GDR_VS_HOST        0.80   /* GPU memory below this share of host memory's loop */
#define TOPO_BW_GOLDEN_FLOOR       0.85 /* a map's floor: this share of the golden node's median */
#define TOPO_BW_GOLDEN_CEIL        1.5  /* a map's latency ceiling: this multiple of its median */

struct topo_node;
struct topo_findings;
struct map_thresholds;

/* Judge every capture of node (node->bw): each figure against the map's floors (th, may be
 * NULL), else the bound of the links the model knows (or the GPU's reference) times its floor,
 * and against the node's own GPUs and pairs; a run whose data did not verify fails, a run that
 * broke leaves what it did not print unjudged. */
void topo_bw_judge(const struct topo_node *node, const char *host, const struct map_thresholds *th,
                   struct topo_findings *out);

/* The thresholds a map records from a golden node's figures (node->bw): per quantity the
 * slowest test's median times TOPO_BW_GOLDEN_FLOOR (bandwidth; h2d_gbps, nvlink_pair_gbps,
 * local_gbps) or the slowest latency test's median times TOPO_BW_GOLDEN_CEIL (p2p, l2, mem and
 * launch latency). Quantities the node has no figure for are left as they are. Returns how many
 * of the golden node's own figures lie beyond what it sets (the first few described in warn,
 * one per line): a golden node that is not uniform. */
int topo_bw_golden(const struct topo_node *node, struct map_thresholds *th, char *warn,
                   size_t warn_len);

#endif
