#ifndef RAILYARD_TOPO_PCI_H
#define RAILYARD_TOPO_PCI_H

/* PCI facts shared by every discovery source. */

enum topo_pci_kind {
    TOPO_PCI_OTHER = 0,
    TOPO_PCI_GPU,     /* NVIDIA or AMD display/3D controller, any 3D controller */
    TOPO_PCI_NIC_IB,  /* class 0x0207 */
    TOPO_PCI_NIC_ETH, /* class 0x0200 */
    TOPO_PCI_BRIDGE,  /* class 0x0604 */
};

#define TOPO_PCI_VENDOR_NVIDIA   0x10de
#define TOPO_PCI_VENDOR_AMD      0x1002
#define TOPO_PCI_VENDOR_MELLANOX 0x15b3
#define TOPO_PCI_VENDOR_AMAZON   0x1d0f

/* Classify by class code (16-bit 0xCCSS, or 24-bit 0xCCSSPP with the programming interface)
 * and vendor id (0 when unknown). */
enum topo_pci_kind topo_pci_classify(unsigned class_code, unsigned vendor);
/* The same, knowing the device id too (excludes known BMC display controllers). */
enum topo_pci_kind topo_pci_classify_device(unsigned class_code, unsigned vendor, unsigned device);

/* Whether a NIC is an RDMA (verbs) device, as /sys/class/infiniband would list it, from what it
 * is: an InfiniBand controller, a Mellanox/NVIDIA ConnectX or BlueField function (RoCE when
 * Ethernet), an AWS EFA. Not from a GUID: NCCL's socket and OFI transports number their devices
 * 0, 1, 2... in that field. A NIC of another vendor (Slingshot, plain Ethernet) is not. */
int topo_pci_nic_is_rdma(unsigned class_code, unsigned vendor, unsigned device);

/* Data rate of a PCIe link in GB/s (after line encoding) for a generation and width, <0 when
 * either is unknown. */
double topo_pci_link_gbytes(int gen, int width);

/* Parse a link speed as sysfs and NCCL write it ("32.0 GT/s PCIe", "8 GT/s", "16 GT/s
 * PCIe/s") into GT/s. Returns 0, or -1 when s holds no speed (empty or "Unknown"). */
int topo_pci_parse_gts(const char *s, double *gts);

/* PCIe generation for a per-lane rate in GT/s (2.5 -> 1 ... 64 -> 6), 0 when unknown. */
int topo_pci_gen_from_gts(double gts);

/* Short vendor name ("NVIDIA", "Mellanox"...) or NULL. */
const char *topo_pci_vendor_name(unsigned vendor);

#endif
