#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tests/tap/tap.h"
#include "topo/model.h"
#include "topo/reference.h"

static const char *gpu_ref(const char *model)
{
    const struct topo_gpu_ref *r = topo_ref_gpu(model);

    return r ? r->name : "none";
}

static void check_name(const char *model, const char *want)
{
    is_str(gpu_ref(model), want, "'%s' is %s", model, want);
}

int main(void)
{
    struct topo_node *node = topo_node_create();
    struct topo_gpu *g;
    struct topo_nic *n;
    const struct topo_gpu_ref *r;
    const struct topo_nic_ref *nr;
    char *s;

    /* names as NVML and the PCI ID database spell them */
    check_name("NVIDIA H100 80GB HBM3", "H100 SXM");
    check_name("NVIDIA H200", "H200");
    check_name("GH100 [H200 SXM 141GB]", "H200");
    check_name("NVIDIA H20", "H20");
    check_name("NVIDIA H20-3e", "H20");
    check_name("NVIDIA B200", "B200");
    check_name("GB100 [B200]", "B200");
    check_name("NVIDIA B300 SXM6 AC", "B300");
    check_name("NVIDIA GB200", "GB200");
    check_name("NVIDIA GB300", "GB300");
    check_name("NVIDIA GB10", "GB10");
    check_name("NVIDIA L40S", "L40S");
    check_name("NVIDIA L40", "L40");
    check_name("NVIDIA L20", "L20");
    check_name("NVIDIA L4", "L4");
    check_name("NVIDIA A100-SXM4-80GB", "A100 SXM");
    check_name("NVIDIA GeForce RTX 4090", "GeForce RTX 4090");
    check_name("NVIDIA GeForce RTX 3060", "none");
    check_name("NVIDIA RTX A6000", "RTX A6000");
    check_name("GeForce GTX 1080 Ti", "GeForce GTX 1080");
    check_name("Tesla P100-PCIE-16GB", "P100");
    ok(topo_ref_gpu("NVIDIA GB300")->c2c_gbps == 450 &&
           topo_ref_gpu("NVIDIA B300")->nvlink_gbps == 50 &&
           topo_ref_gpu("NVIDIA H100 80GB HBM3")->nvlink_gbps == 25 &&
           topo_ref_gpu("Tesla P100-SXM2-16GB")->nvlink_gbps == 20 &&
           topo_ref_gpu("NVIDIA H100 80GB HBM3")->c2c_gbps == 0,
       "NVLink rate per link each way (50 NVLink 5, 25 NVLink 2-4, 20 NVLink 1) and C2C 450");
    {
        /* the values of every generation, not only the names */
        static const struct {
            const char *model;
            int gen, width, links;
        } want[] = {
            { "Tesla P100-SXM2-16GB", 3, 16, 4 },
            { "Tesla V100-SXM2-16GB", 3, 16, 6 },
            { "NVIDIA A100-SXM4-80GB", 4, 16, 12 },
            { "NVIDIA A100 80GB PCIe", 4, 16, -1 },
            { "NVIDIA H100 80GB HBM3", 5, 16, 18 },
            { "NVIDIA H100 PCIe", 5, 16, -1 },
            { "NVIDIA H800", 5, 16, 8 },
            { "NVIDIA L40S", 4, 16, -1 },
            { "AMD Instinct MI300X", 5, 16, -1 },
            { "AMD Instinct MI250X", 4, 16, -1 },
        };
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
            r = topo_ref_gpu(want[i].model);
            ok(r && r->pcie_gen == want[i].gen && r->pcie_width == want[i].width &&
                   r->nvlink_links == want[i].links,
               "%s: Gen%d x%d, %d NVLinks (%s: Gen%d x%d, %d)", want[i].model, want[i].gen,
               want[i].width, want[i].links, r ? r->name : "none", r ? r->pcie_gen : 0,
               r ? r->pcie_width : 0, r ? r->nvlink_links : 0);
        }
    }
    r = topo_ref_gpu("NVIDIA GB300");
    ok(r && r->nvlink_links == 18 && r->pcie_gen == 0, "GB300: 18 NVLinks, host link not PCIe");
    r = topo_ref_gpu("NVIDIA B200");
    ok(r && r->nvlink_links == 18 && r->pcie_gen == 5 && r->pcie_width == 16,
       "B200: 18 NVLinks, Gen5 x16");
    r = topo_ref_gpu("NVIDIA H20");
    ok(r && r->nvlink_links == 18, "H20: 18 NVLinks (900 GB/s)");
    r = topo_ref_gpu("NVIDIA L40S");
    ok(r && r->nvlink_links < 0 && r->pcie_gen == 4, "L40S: Gen4, no NVLink");

    /* a GPU the input does not name */
    g = topo_node_add_gpu(node);
    g->pci_vendor = 0x10de, g->pci_device = 0x2335;
    is_str(topo_ref_gpu_for(g) ? topo_ref_gpu_for(g)->name : "none", "H200",
           "10de:2335 without a name is an H200");
    g->pci_device = 0x2941;
    is_str(topo_ref_gpu_for(g) ? topo_ref_gpu_for(g)->name : "none", "GB200",
           "10de:2941 without a name is a GB200");
    g->pci_device = 0, g->sm = 103;
    r = topo_ref_gpu_for(g);
    ok(r && r->nvlink_links == 18 && r->pcie_gen == 0, "sm 103 without a name: 18 NVLinks");
    g->sm = 90;
    ok(!topo_ref_gpu_for(g), "sm 90 alone says nothing of NVLink (H100 SXM, PCIe, H800...)");
    g->model = strdup("NVIDIA H800");
    ok(topo_ref_gpu_for(g) && topo_ref_gpu_for(g)->nvlink_links == 8, "a name wins: H800, 8");
    ok(!topo_ref_gpu_for(NULL), "NULL: none");

    /* NICs */
    n = topo_node_add_nic(node);
    n->pci_vendor = 0x15b3, n->pci_device = 0x1023;
    nr = topo_ref_nic_for(n);
    ok(nr && !strcmp(nr->name, "ConnectX-8") && nr->pcie_gen == 6 && nr->port_gbps == 800,
       "15b3:1023 is a ConnectX-8: Gen6, 800 Gb/s");
    n->pci_device = 0x101e;
    nr = topo_ref_nic_for(n);
    ok(nr && nr->virtual_fn, "15b3:101e is a virtual function");
    n->pci_vendor = 0, n->pci_device = 0;
    n->hca_type = strdup("MT4129");
    nr = topo_ref_nic_for(n);
    ok(nr && !strcmp(nr->name, "ConnectX-7"), "hca_type MT4129 is a ConnectX-7 (device 0x1021)");
    free(n->hca_type);
    n->hca_type = strdup("MT41692");
    nr = topo_ref_nic_for(n);
    ok(nr && !strcmp(nr->name, "BlueField-3"), "hca_type MT41692 is a BlueField-3");
    free(n->hca_type);
    n->hca_type = strdup("EFA");
    ok(!topo_ref_nic_for(n), "an unknown HCA type: none");
    n->pci_vendor = 0x17db, n->pci_device = 0x0501;
    ok(!topo_ref_nic_for(n), "a Slingshot NIC: none");

    /* CPUs as NCCL records them */
    s = topo_cpu_model_name("GenuineIntel", 6, 143, "x86_64");
    is_str(s, "Intel Xeon (Sapphire Rapids, family 6 model 143)", "Intel 6/143");
    free(s);
    s = topo_cpu_model_name("AuthenticAMD", 25, 17, "x86_64");
    is_str(s, "AMD EPYC (Genoa, family 25 model 17)", "AMD 25/17");
    free(s);
    s = topo_cpu_model_name("GenuineIntel", 6, 999, "x86_64");
    is_str(s, "GenuineIntel family 6 model 999", "an unknown model keeps its numbers");
    free(s);
    s = topo_cpu_model_name("Evil\033[2J", 6, 1, NULL);
    is_str(s, "family 6 model 1", "a vendor with control characters is not echoed");
    free(s);
    s = topo_cpu_model_name(NULL, -1, -1, "arm64");
    is_str(s, "arm64", "arm64: the architecture");
    free(s);
    ok(topo_cpu_model_name(NULL, -1, -1, NULL) == NULL, "nothing known: NULL");
    topo_node_destroy(node);
    return done_testing();
}
