#include "config.h"

#include <stdlib.h>

#include "common/file.h"
#include "readers/sysfs.h"
#include "tests/tap/tap.h"
#include "topo/iba.h"
#include "topo/model.h"
#include "topo/pci.h"

int main(void)
{
    double g = 0;
    int w = 0;
    char *speed = NULL;
    char b[TOPO_BUSID_LEN];

    ok(topo_ib_parse_rate("400 Gb/sec (4X NDR)", &g, &w, &speed) == 0 && g == 400 && w == 4,
       "NDR rate parsed");
    is_str(speed, "NDR", "speed name NDR");
    free(speed);
    ok(topo_ib_parse_rate("56 Gb/sec (4X FDR)", &g, &w, &speed) == 0 && g == 56, "FDR 56");
    free(speed);
    ok(topo_ib_parse_rate("2.5 Gb/sec (1X SDR)", &g, &w, &speed) == 0 && g == 2.5 && w == 1,
       "SDR 2.5 with width 1");
    free(speed);
    ok(topo_ib_parse_rate("25 Gb/sec", &g, &w, &speed) == 0 && g == 25 && w == 0 && !speed,
       "rate without width");
    ok(topo_ib_parse_rate("fast", &g, &w, &speed) < 0, "garbage refused");
    ok(topo_ib_parse_rate("100 Mb/sec", &g, &w, &speed) < 0, "wrong unit refused");

    ok(topo_pci_parse_gts("32.0 GT/s PCIe", &g) == 0 && g == 32, "sysfs speed 32 GT/s");
    ok(topo_pci_parse_gts("16 GT/s PCIe/s", &g) == 0 && g == 16, "NCCL p5 speed form");
    ok(topo_pci_parse_gts("", &g) < 0, "empty speed unknown");
    ok(topo_pci_parse_gts("Unknown", &g) < 0, "Unknown speed");
    is_int(topo_pci_gen_from_gts(2.5), 1, "2.5 GT/s is Gen1");
    is_int(topo_pci_gen_from_gts(8), 3, "8 GT/s is Gen3");
    is_int(topo_pci_gen_from_gts(32), 5, "32 GT/s is Gen5");
    is_int(topo_pci_gen_from_gts(64), 6, "64 GT/s is Gen6");
    is_int(topo_pci_gen_from_gts(12), 0, "12 GT/s is no generation");

    ok(topo_busid_normalize("00000000:3B:00.0", b) == 0, "NVML bus id accepted");
    is_str(b, "0000:3b:00.0", "NVML bus id normalised");
    ok(topo_busid_normalize("3b:00.1", b) == 0, "short bus id accepted");
    is_str(b, "0000:3b:00.1", "short bus id gets domain 0");
    ok(topo_busid_normalize("ffff:ff:01.0", b) == 0, "NCCL virtual bridge accepted");
    ok(topo_busid_normalize("not-a-bus", b) < 0, "garbage refused");
    ok(topo_busid_normalize("0000:3b:00.0x", b) < 0, "trailing junk refused");
    ok(topo_busid_normalize("0000:3b:20.0", b) < 0, "device > 0x1f refused");
    ok(topo_busid_normalize(NULL, b) < 0, "NULL refused");

    is_int(topo_pci_classify(0x030200, 0), TOPO_PCI_GPU, "3D controller without vendor is a GPU");
    is_int(topo_pci_classify(0x0300, 0x1a03), TOPO_PCI_OTHER, "ASPEED VGA is not a GPU");
    is_int(topo_pci_classify_device(0x0300, 0x1002, 0x515e), TOPO_PCI_OTHER,
           "ATI ES1000 BMC VGA is not a GPU");
    is_int(topo_pci_classify(0x0207, 0x15b3), TOPO_PCI_NIC_IB, "class 0x0207 is InfiniBand");
    is_int(topo_pci_classify(0x020000, 0x1d0f), TOPO_PCI_NIC_ETH, "EFA is Ethernet class");
    is_int(topo_pci_classify(0x060400, 0), TOPO_PCI_BRIDGE, "PCI bridge");

    is_int(topo_path_parse("NV12"), TOPO_PATH_NV, "NV12 parses");
    is_int(topo_path_parse("PXB"), TOPO_PATH_PXB, "PXB parses");
    is_int(topo_path_parse("NVX"), TOPO_PATH_UNKNOWN, "NVX is unknown");
    is_str(topo_path_name(TOPO_PATH_SYS), "SYS", "SYS name");

    {
        char buf[12] = "";
        ry_appendf(buf, sizeof(buf), "gpu%d ", 0);
        ry_appendf(buf, sizeof(buf), "gpu%d", 1);
        is_str(buf, "gpu0 gpu1", "ry_appendf appends");
        ry_appendf(buf, sizeof(buf), " and more");
        is_str(buf, "gpu0 gpu1 a", "ry_appendf cuts at the buffer's end");
        ry_appendf(buf, sizeof(buf), "x");
        is_str(buf, "gpu0 gpu1 a", "ry_appendf on a full buffer leaves it as it is");
        ry_appendf(NULL, 0, "x"); /* no buffer: nothing to write, no crash */
    }
    return done_testing();
}
