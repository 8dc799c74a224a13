#ifndef RAILYARD_TOPO_MODEL_H
#define RAILYARD_TOPO_MODEL_H

/* topo/: the node model, PCI and InfiniBand facts, built-in reference values, the expected
 * map and the checks that compare a node with it. */

#include <stddef.h>
#include <stdint.h>

/* The node model: what discovery found on one node. Every later stage (check, fabric, reports,
 * console) reads this structure. Unknown values are marked, never guessed: integers use -1 (or
 * 0 where 0 is impossible, as for link widths), strings NULL, doubles a negative value.
 *
 * A topo_node owns every string and array it points to; free it with topo_node_destroy(). */

/* The path between two devices, classified as `nvidia-smi topo -m` prints it, ordered from the
 * closest to the farthest. */
enum topo_path {
    TOPO_PATH_UNKNOWN = 0,
    TOPO_PATH_SELF, /* X */
    TOPO_PATH_NV,   /* NV#: NVLink */
    TOPO_PATH_PIX,  /* at most one PCIe switch */
    TOPO_PATH_PXB,  /* several PCIe switches, no host bridge */
    TOPO_PATH_PHB,  /* through one PCIe host bridge */
    TOPO_PATH_NODE, /* between host bridges of one NUMA node */
    TOPO_PATH_SYS,  /* across the SMP interconnect between NUMA nodes */
};

#define TOPO_MAX_SWITCH_DEPTH 8
#define TOPO_BUSID_LEN        16 /* "dddd:bb:dd.f" */

/* Where a PCI device sits: enough to classify the path between any two devices. */
struct topo_pciloc {
    char busid[TOPO_BUSID_LEN];          /* "0000:3b:00.0", lowercase; "" unknown */
    int numa;                            /* NUMA node os index, -1 unknown */
    int hostbridge;                      /* host bridge / root complex id, -1 unknown */
    int nswitch;                         /* PCIe switches between the device and its root port */
    int switches[TOPO_MAX_SWITCH_DEPTH]; /* switch ids, nearest first */
    int up; /* index in topo_node.bridges of the bridge right above the device, -1 unknown */
};

struct topo_pcie_link {
    int cur_gen, cur_width; /* 0 unknown */
    int max_gen, max_width; /* 0 unknown */
    double cur_gbytes;      /* GB/s the current link carries when only that is known, <0 unknown */
};

/* A PCIe bridge on the way from a device to its root port (a root port, a switch's upstream or
 * downstream port, or a switch as NCCL records it: its upstream port), with the link its PCIe
 * capability describes as the source gives it: sysfs both the trained and the capable link of
 * each port, hwloc the trained rate in GB/s, NCCL the capable link (the lower of the port's and
 * the one above it). Every link between a device and its root port is the link of the device
 * or of one of these. */
struct topo_bridge {
    char busid[TOPO_BUSID_LEN];
    int up; /* index of the bridge above, -1 at the root complex or unknown */
    /* 1: its link is the one below it (a root or downstream port, as sysfs and hwloc read each
     * port), which for the device right below is that device's own link; 0: the link above it
     * (a switch's upstream port; NCCL's record of a switch) */
    int faces_down;
    struct topo_pcie_link link;
};

struct topo_gpu {
    int index;    /* 0.. in PCI order (as CUDA_DEVICE_ORDER=PCI_BUS_ID and nvidia-smi) */
    char *vendor; /* "NVIDIA", "AMD" */
    char *model;  /* "NVIDIA H100 80GB HBM3", NULL unknown */
    char *uuid;
    uint64_t memory_bytes;           /* 0 unknown */
    unsigned pci_vendor, pci_device; /* 0 unknown */
    struct topo_pciloc loc;
    struct topo_pcie_link link;
    int nvlink_links;  /* links present, -1 unknown */
    int nvlink_active; /* links up, -1 unknown */
    int sm;            /* compute capability x 10 (90 Hopper, 100 Blackwell), -1 unknown */
    int c2c_links;     /* NVLink-C2C links to the CPU (a superchip's host path), 0 none known */
    int xgmi_links;    /* AMD xGMI links to peers the input lists (RCCL), 0 none listed */
};

enum topo_link_layer { TOPO_LL_UNKNOWN = 0, TOPO_LL_INFINIBAND, TOPO_LL_ETHERNET };

struct topo_port {
    int num;          /* port number, from 1 */
    int state;        /* 0-5 as in ibv_port_state (4 = ACTIVE), -1 unknown */
    char *state_str;  /* "ACTIVE" */
    int phys_state;   /* 1-7 (5 = LinkUp), -1 unknown */
    char *phys_str;   /* "LinkUp" */
    double rate_gbps; /* signalling rate the port reports, Gb/s; <0 unknown */
    int width;        /* lanes (1, 2, 4, 8, 12), 0 unknown */
    char *speed;      /* "NDR", "HDR", "EDR", "25 Gbps"...; NULL unknown */
    enum topo_link_layer link_layer;
    int lid;          /* IB LID, -1 unknown */
    char *netdev;     /* associated netdev (RoCE or IPoIB), NULL none */
    char **gids;      /* non-zero GIDs, textual */
    char **gid_types; /* "IB/RoCE v1", "RoCE v2" per gid, entries may be NULL */
    int *gid_index;   /* index in the GID table */
    size_t ngids;
};

struct topo_nic {
    char *name;   /* RDMA device ("mlx5_0"), else netdev, else "nic<N>" */
    int rdma;     /* 1 RDMA device known, 0 plain NIC listed by the source */
    char *netdev; /* first netdev of the device, NULL none */
    char *fw_ver, *board_id, *hca_type, *node_guid, *node_desc, *model;
    unsigned pci_vendor, pci_device, pci_class; /* 0 unknown */
    struct topo_pciloc loc;
    struct topo_pcie_link link;
    struct topo_port *ports;
    size_t nports;
};

/* A network interface that is not (only) an RDMA port: eth0, bond0, ib0... */
struct topo_netdev {
    char *name;
    char *operstate; /* "up", "down"... */
    int speed_mbps;  /* -1 unknown */
    int mtu;         /* -1 unknown */
    char *address;
    char *kind;                 /* "ether", "infiniband", "loopback", "other" */
    char busid[TOPO_BUSID_LEN]; /* "" virtual */
    char *rdma_dev;             /* RDMA device it belongs to, NULL none */
};

/* count NVLinks between the GPUs at PCI addresses a and b (in either direction) */
struct topo_nvlink {
    char a[TOPO_BUSID_LEN], b[TOPO_BUSID_LEN];
    int count;
};

/* Where an NVLink leads when it is not another GPU: a PCI address, whose domain may be wider
 * than 16 bits ("ffffffff:ff:ff.0" is the whole switch fabric, as Blackwell drivers show it). */
#define TOPO_NVTARGET_LEN 20

/* count NVLinks from the GPU at PCI address gpu to one NVSwitch (or the switch fabric) */
struct topo_nvswitch_link {
    char gpu[TOPO_BUSID_LEN];
    char sw[TOPO_NVTARGET_LEN];
    int count;
};

struct topo_numa {
    int os_index;
    uint64_t memory_bytes; /* 0 unknown */
    int npus;              /* -1 unknown */
};

struct topo_node {
    char *hostname;
    char *sources; /* what the model was read from, e.g. "hwloc live, sysfs /sys, nvml" */
    char *cpu_model;
    int npackages, ncores, npus; /* -1 unknown */
    struct topo_numa *numa;
    size_t nnuma;
    struct topo_gpu *gpus;
    size_t ngpus;
    struct topo_nic *nics;
    size_t nnics;
    struct topo_netdev *netdevs;
    size_t nnetdevs;
    char **switch_ids; /* busid naming each switch id of topo_pciloc.switches */
    size_t nswitches;
    struct topo_bridge *bridges; /* PCIe bridges above GPUs and NICs (topo_pciloc.up) */
    size_t nbridges;
    struct topo_nvlink *nvlinks; /* NVLink connections between GPUs, by PCI address */
    size_t nnvlinks;
    struct topo_nvswitch_link *nvswitch; /* NVLinks from GPUs to NVSwitches */
    size_t nnvswitch;
    /* Facts about absence, stated as such (NULL when the thing is present or unknown). */
    char *gpu_driver_note; /* "no NVIDIA driver (libnvidia-ml.so.1 not found)" */
    /* this machine's NVIDIA driver, asked live (NVML): 1 answered, 0 could not be loaded or
     * initialised (gpu_driver_note says what NVML said), -1 not asked (a captured input) */
    int gpu_driver;
    char *gpu_driver_version; /* "580.159.04" when it answered and said, else NULL */
    char *rdma_note;          /* "no RDMA devices" */
    /* RDMA devices a source says are gone (ibstat: "stat of IB device 'mlx5_8' failed") */
    /* whether a source that lists all GPUs / all RDMA devices was read: checks do not count
     * what the input could not show (an ibstat capture says nothing about GPUs) */
    int gpus_listed, nics_listed;
    char **missing_nics;
    size_t nmissing_nics;
    /* GPU data-path measurements read from captured output (topo/gpubw.h), in input order */
    struct topo_bw_capture **bw;
    size_t nbw;

    /* bookkeeping */
    size_t gpus_alloc, nics_alloc, netdevs_alloc, numa_alloc, switches_alloc, nvlinks_alloc,
        nvswitch_alloc, bridges_alloc;
};

struct topo_node *topo_node_create(void);
void topo_node_destroy(struct topo_node *node);

/* Append a zeroed element with every "unknown" marker set; the pointer is valid until the
 * next append of the same kind. */
struct topo_gpu *topo_node_add_gpu(struct topo_node *node);
struct topo_nic *topo_node_add_nic(struct topo_node *node);
struct topo_port *topo_nic_add_port(struct topo_nic *nic);
struct topo_netdev *topo_node_add_netdev(struct topo_node *node);
struct topo_numa *topo_node_add_numa(struct topo_node *node, int os_index);
void topo_pciloc_init(struct topo_pciloc *loc);
void topo_pcie_link_init(struct topo_pcie_link *link);

/* Record count NVLinks between the GPUs at PCI addresses a and b (added to what is known). */
void topo_node_add_nvlink(struct topo_node *node, const char *a, const char *b, int count);
/* Record count NVLinks from the GPU at PCI address gpu to the NVSwitch sw (a key from
 * topo_nvtarget_normalize; added to what is known). */
void topo_node_add_switch_nvlink(struct topo_node *node, const char *gpu, const char *sw,
                                 int count);

/* NVLinks GPUs a and b can use between them: their direct links, plus, when both reach
 * NVSwitches, the smaller of their two switch link totals. The switches of one node form one
 * fabric (an HGX board's switches, a DGX-2's two boards joined by trunks, an NVL72 rack), and a
 * GPU's links to it all serve any peer, as NCCL and nvidia-smi count them: 4 switches x 4-5
 * links on an H100 board are NV18 for every pair, not 18 x 18. 0 when none or out of range. */
int topo_node_nvlink_count(const struct topo_node *node, size_t a, size_t b);
/* NVLinks of the GPU at index gpu that lead to NVSwitches (sum over its switches). */
int topo_node_gpu_switch_links(const struct topo_node *node, size_t gpu);

/* Index of the bridge at busid in node->bridges, created on first use with up and an unknown
 * link; an existing bridge whose up was unknown takes up. */
int topo_node_add_bridge(struct topo_node *node, const char *busid, int up);

/* GB/s a link carries: the trained link when current is set and it is known (generation and
 * width, else cur_gbytes), else the capable one; <0 unknown. */
double topo_link_gbytes(const struct topo_pcie_link *link, int current);

/* GB/s of the link of the bridge at index b as seen from a device right below it (below is 1)
 * or further down: a downstream port right above a device carries the device's own link, which
 * counts as it can train (a GPU slows its link when idle); any other link as trained when known.
 * <0 unknown. */
double topo_bridge_gbytes(const struct topo_node *node, int b, int below);

/* The narrowest link between a device (at loc, with its own link, which may be NULL) and its
 * root port: the bridge it belongs to (-1 the device's own link, -2 nothing known) and its GB/s
 * in *gbytes, each link counted as topo_bridge_gbytes does; the device's own link as it can
 * train, its width as trained. *gen and *width (either may be NULL) get the lowest generation
 * and width known along the way, 0 unknown. */
int topo_node_host_link(const struct topo_node *node, const struct topo_pciloc *loc,
                        const struct topo_pcie_link *own, double *gbytes, int *gen, int *width);

/* Id of the switch named busid, created on first use. */
int topo_node_switch_id(struct topo_node *node, const char *busid);

/* Append text to node->sources ("a, b"). */
void topo_node_add_source(struct topo_node *node, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Lookups by PCI address (normalised) or by name; NULL when absent. */
struct topo_gpu *topo_node_gpu_by_busid(struct topo_node *node, const char *busid);
struct topo_nic *topo_node_nic_by_busid(struct topo_node *node, const char *busid);
struct topo_nic *topo_node_nic_by_name(struct topo_node *node, const char *name);
struct topo_netdev *topo_node_netdev_by_name(struct topo_node *node, const char *name);

/* Sort GPUs by PCI address and renumber them (when every GPU has an address); sort NICs by
 * name (natural order). */
void topo_node_sort(struct topo_node *node);

/* Path classification between two PCI locations (never TOPO_PATH_NV or SELF). */
enum topo_path topo_path_classify(const struct topo_pciloc *a, const struct topo_pciloc *b);
enum topo_path topo_node_gpu_nic_path(const struct topo_node *node, size_t gpu, size_t nic);
/* GPU to GPU: SELF, NV (with *nvcount set) when they share NVLinks, else the PCIe class. */
enum topo_path topo_node_gpu_gpu_path(const struct topo_node *node, size_t a, size_t b,
                                      int *nvcount);
/* Index of the closest NIC to a GPU (lowest index on ties), -1 when there is none or no path
 * is known. */
int topo_node_nearest_nic(const struct topo_node *node, size_t gpu);
/* The same among the RDMA NICs alone (what a rail is made of) */
int topo_node_nearest_rdma_nic(const struct topo_node *node, size_t gpu);

/* "PIX", "NODE"... and the reverse; topo_path_parse returns TOPO_PATH_UNKNOWN when unknown. */
const char *topo_path_name(enum topo_path p);
enum topo_path topo_path_parse(const char *s);

/* Normalise a PCI address ("00000000:3B:00.0", "3b:00.0") into "0000:3b:00.0". Returns 0 or
 * -1 when s is not a PCI address. */
int topo_busid_normalize(const char *s, char out[TOPO_BUSID_LEN]);

/* Normalise where an NVLink leads: a PCI address as topo_busid_normalize takes it, except that
 * the domain may take 32 bits. The switch fabric of B200/GB200/GB300, which NVML writes
 * "FFFFFFFF:FF:FF.0" and NCCL "fffffff:ff:ff.0" (before 2.31) or "fffffff:ffff:ff", becomes
 * "ffffffff:ff:ff.0". Returns 0 or -1. */
int topo_nvtarget_normalize(const char *s, char out[TOPO_NVTARGET_LEN]);

const char *topo_link_layer_name(enum topo_link_layer ll);

#endif
