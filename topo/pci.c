#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "topo/pci.h"

enum topo_pci_kind topo_pci_classify_device(unsigned class_code, unsigned vendor, unsigned device)
{
    /* ATI ES1000: the server-board VGA of many BMCs, not a compute GPU */
    if (vendor == TOPO_PCI_VENDOR_AMD && device == 0x515e)
        return TOPO_PCI_OTHER;
    return topo_pci_classify(class_code, vendor);
}

enum topo_pci_kind topo_pci_classify(unsigned class_code, unsigned vendor)
{
    unsigned c = class_code > 0xffff ? class_code >> 8 : class_code;

    switch (c) {
    case 0x0302: return TOPO_PCI_GPU;
    case 0x0300:
    case 0x0380:
        /* VGA and "display, other": only the data-centre GPU vendors; a BMC's VGA (ASPEED,
         * Matrox) is not a GPU */
        if (vendor == TOPO_PCI_VENDOR_NVIDIA || vendor == TOPO_PCI_VENDOR_AMD)
            return TOPO_PCI_GPU;
        return TOPO_PCI_OTHER;
    case 0x0207: return TOPO_PCI_NIC_IB;
    case 0x0200: return TOPO_PCI_NIC_ETH;
    case 0x0604: return TOPO_PCI_BRIDGE;
    default: return TOPO_PCI_OTHER;
    }
}

int topo_pci_nic_is_rdma(unsigned class_code, unsigned vendor, unsigned device)
{
    unsigned c = class_code > 0xffff ? class_code >> 8 : class_code;

    if (c == 0x0207)
        return 1;
    if ((c >> 8) != 0x02)
        return 0;
    if (vendor == TOPO_PCI_VENDOR_MELLANOX)
        return 1;
    /* EFA: efa0-efa3; the ENA next to it (0xec20, 0x1d0f:0xec2x) is plain Ethernet */
    return vendor == TOPO_PCI_VENDOR_AMAZON && (device & 0xfff0) == 0xefa0;
}

double topo_pci_link_gbytes(int gen, int width)
{
    /* GT/s per lane and the share of it that carries data: 8b/10b up to Gen2, 128b/130b from
     * Gen3, Gen6 FLIT mode counted as 242/256 */
    static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64, 128 };
    double enc;

    if (gen < 1 || gen > 7 || width < 1)
        return -1;
    enc = gen <= 2 ? 0.8 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
    return gts[gen] * enc * width / 8.0;
}

int topo_pci_parse_gts(const char *s, double *gts)
{
    char *end;
    double v;

    if (!s)
        return -1;
    v = strtod(s, &end);
    if (end == s || v <= 0)
        return -1;
    while (*end == ' ')
        end++;
    if (strncmp(end, "GT/s", 4) != 0)
        return -1;
    *gts = v;
    return 0;
}

int topo_pci_gen_from_gts(double gts)
{
    static const struct {
        double gts;
        int gen;
    } table[] = { { 2.5, 1 }, { 5, 2 }, { 8, 3 }, { 16, 4 }, { 32, 5 }, { 64, 6 }, { 128, 7 } };

    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (gts > table[i].gts * 0.9 && gts < table[i].gts * 1.1)
            return table[i].gen;
    return 0;
}

const char *topo_pci_vendor_name(unsigned vendor)
{
    switch (vendor) {
    case TOPO_PCI_VENDOR_NVIDIA: return "NVIDIA";
    case TOPO_PCI_VENDOR_AMD: return "AMD";
    case TOPO_PCI_VENDOR_MELLANOX: return "Mellanox";
    case TOPO_PCI_VENDOR_AMAZON: return "Amazon";
    case 0x8086: return "Intel";
    case 0x14e4: return "Broadcom";
    case 0x1077: return "QLogic";
    case 0x1af4: return "Red Hat";
    default: return NULL;
    }
}
