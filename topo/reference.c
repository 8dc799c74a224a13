#include "config.h"

#include <stddef.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "topo/reference.h"

/* Ordered most specific first: the first entry whose every keyword is in the model wins. */
static const struct {
    const char *keys[3];
    struct topo_gpu_ref ref;
} gpus[] = {
    /* Grace-Blackwell: the GPU's host link is NVLink-C2C to Grace, not PCIe */
    { { "GB300", NULL }, { "GB300", 0, 0, 18, 50, 450 } },
    { { "GB200", NULL }, { "GB200", 0, 0, 18, 50, 450 } },
    { { "GB10", NULL }, { "GB10", 0, 0, -1, 0, 0 } },
    { { "GH200", NULL }, { "GH200", 0, 0, -1, 25, 450 } },
    /* HGX B300 supports Gen6 but ships on Gen5 platforms: Gen5 is what a healthy one reports */
    { { "B300", NULL }, { "B300", 5, 16, 18, 50, 0 } },
    { { "B200", NULL }, { "B200", 5, 16, 18, 50, 0 } },
    { { "H200", NULL }, { "H200", 5, 16, 18, 25, 0 } },
    { { "H20", NULL }, { "H20", 5, 16, 18, 25, 0 } },
    { { "H100", "NVL", NULL }, { "H100 NVL", 5, 16, -1, 25, 0 } },
    { { "H100", "PCIe", NULL }, { "H100 PCIe", 5, 16, -1, 25, 0 } },
    { { "H100", NULL }, { "H100 SXM", 5, 16, 18, 25, 0 } },
    { { "H800", NULL }, { "H800", 5, 16, 8, 25, 0 } },
    { { "A100", "PCIe", NULL }, { "A100 PCIe", 4, 16, -1, 25, 0 } },
    { { "A100", "SXM", NULL }, { "A100 SXM", 4, 16, 12, 25, 0 } },
    { { "A100", NULL }, { "A100", 4, 16, -1, 25, 0 } },
    { { "A800", NULL }, { "A800", 4, 16, -1, 25, 0 } },
    { { "V100", "SXM", NULL }, { "V100 SXM", 3, 16, 6, 25, 0 } },
    { { "V100", NULL }, { "V100", 3, 16, -1, 25, 0 } },
    { { "P100", "SXM", NULL }, { "P100 SXM", 3, 16, 4, 20, 0 } },
    { { "P100", NULL }, { "P100", 3, 16, -1, 20, 0 } },
    { { "L40S", NULL }, { "L40S", 4, 16, -1, 0, 0 } },
    { { "L40", NULL }, { "L40", 4, 16, -1, 0, 0 } },
    { { "L20", NULL }, { "L20", 4, 16, -1, 0, 0 } },
    { { "L4", NULL }, { "L4", 4, 16, -1, 0, 0 } },
    { { "A10", NULL }, { "A10/A10G", 4, 16, -1, 0, 0 } },
    { { "A30", NULL }, { "A30", 4, 16, -1, 0, 0 } },
    { { "A40", NULL }, { "A40", 4, 16, -1, 0, 0 } },
    { { "T4", NULL }, { "T4", 3, 16, -1, 0, 0 } },
    /* workstation and GeForce parts that people measure peer copies on */
    { { "RTX", "6000", "Ada" }, { "RTX 6000 Ada", 4, 16, -1, 0, 0 } },
    { { "A6000", NULL }, { "RTX A6000", 4, 16, -1, 0, 0 } },
    { { "RTX", "5090", NULL }, { "GeForce RTX 5090", 5, 16, -1, 0, 0 } },
    { { "RTX", "4090", NULL }, { "GeForce RTX 4090", 4, 16, -1, 0, 0 } },
    { { "RTX", "3090", NULL }, { "GeForce RTX 3090", 4, 16, -1, 0, 0 } },
    { { "RTX", "2080", NULL }, { "GeForce RTX 2080", 3, 16, -1, 0, 0 } },
    { { "GTX", "1080", NULL }, { "GeForce GTX 1080", 3, 16, -1, 0, 0 } },
    { { "MI300", NULL }, { "MI300", 5, 16, -1, 0, 0 } },
    { { "MI250", NULL }, { "MI250", 4, 16, -1, 0, 0 } },
    { { "MI210", NULL }, { "MI210", 4, 16, -1, 0, 0 } },
    { { "MI100", NULL }, { "MI100", 4, 16, -1, 0, 0 } },
    { { "MI50", NULL }, { "MI50", 4, 16, -1, 0, 0 } },
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
    return (c | 32) >= 'a' && (c | 32) <= 'z';
}

/* key as a token: "L4" must not match "L40", "A10" not "A100", but "SXM" matches "SXM4" */
static int has_token(const char *s, const char *key)
{
    size_t k = strlen(key);
    char last = key[k - 1];

    for (const char *p = s; (p = strcasestr(p, key)) != NULL; p++) {
        char before = p == s ? ' ' : p[-1], after = p[k];
        if (is_digit(before) || is_alpha(before))
            continue;
        if (is_digit(last) ? is_digit(after) : is_alpha(after))
            continue;
        return 1;
    }
    return 0;
}

const struct topo_gpu_ref *topo_ref_gpu(const char *model)
{
    if (!model)
        return NULL;
    for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++) {
        int all = 1;
        for (size_t k = 0; k < 3 && gpus[i].keys[k] && all; k++)
            all = has_token(model, gpus[i].keys[k]);
        if (all)
            return &gpus[i].ref;
    }
    return NULL;
}

const struct topo_gpu_ref *topo_ref_gpu_for(const struct topo_gpu *g)
{
    /* NVIDIA device ids of parts the PCI ID database of Debian 12 (2023) does not name */
    static const struct {
        unsigned device;
        const char *model;
    } ids[] = { { 0x2335, "H200" }, { 0x2901, "B200" }, { 0x2941, "GB200" } };
    static const struct topo_gpu_ref blackwell = { "Blackwell (sm 100)", 0, 0, 18, 50, 0 };
    static const struct topo_gpu_ref blackwell_ultra = {
        "Blackwell Ultra (sm 103)", 0, 0, 18, 50, 0
    };
    const struct topo_gpu_ref *ref;

    if (!g)
        return NULL;
    if ((ref = topo_ref_gpu(g->model)))
        return ref;
    for (size_t i = 0; g->pci_vendor == 0x10de && i < sizeof(ids) / sizeof(ids[0]); i++)
        if (ids[i].device == g->pci_device)
            return topo_ref_gpu(ids[i].model);
    /* every sm 100/103 part (B200, GB200, B300, GB300) has 18 NVLinks; the host link differs
     * (PCIe on HGX, C2C on Grace trays), so it is not judged from the capability alone */
    if (g->sm == 100)
        return &blackwell;
    if (g->sm == 103)
        return &blackwell_ultra;
    return NULL;
}

const struct topo_nic_ref *topo_ref_nic_for(const struct topo_nic *n)
{
    static const struct {
        unsigned device;
        struct topo_nic_ref ref;
    } nics[] = {
        { 0x1017, { "ConnectX-5", 3, 0, 100 } },    { 0x1018, { "ConnectX-5 VF", 0, 1, 100 } },
        { 0x1019, { "ConnectX-5 Ex", 4, 0, 100 } }, { 0x101a, { "ConnectX-5 Ex VF", 0, 1, 100 } },
        { 0x101b, { "ConnectX-6", 4, 0, 200 } },    { 0x101c, { "ConnectX-6 VF", 0, 1, 200 } },
        { 0x101d, { "ConnectX-6 Dx", 4, 0, 200 } }, { 0x101e, { "ConnectX VF", 0, 1, 400 } },
        { 0x101f, { "ConnectX-6 Lx", 4, 0, 50 } },  { 0x1021, { "ConnectX-7", 5, 0, 400 } },
        { 0x1023, { "ConnectX-8", 6, 0, 800 } },    { 0xa2d6, { "BlueField-2", 4, 0, 200 } },
        { 0xa2dc, { "BlueField-3", 5, 0, 400 } },
    };
    unsigned device = 0;

    if (!n)
        return NULL;
    if (n->pci_vendor == 0x15b3)
        device = n->pci_device;
    else if (!n->pci_vendor && n->hca_type && !strncasecmp(n->hca_type, "MT", 2))
        device = (unsigned)strtoul(n->hca_type + 2, NULL, 10); /* "MT4129": decimal 0x1021 */
    for (size_t i = 0; device && i < sizeof(nics) / sizeof(nics[0]); i++)
        if (nics[i].device == device)
            return &nics[i].ref;
    return NULL;
}

char *topo_cpu_model_name(const char *vendor, int family, int model, const char *arch)
{
    static const struct {
        const char *vendor, *name;
        int family, model;
        const char *codename;
    } cpus[] = {
        { "GenuineIntel", "Intel Xeon", 6, 63, "Haswell-EP" },
        { "GenuineIntel", "Intel Xeon", 6, 79, "Broadwell-EP" },
        { "GenuineIntel", "Intel Xeon", 6, 85, "Skylake-SP/Cascade Lake-SP" },
        { "GenuineIntel", "Intel Xeon", 6, 106, "Ice Lake-SP" },
        { "GenuineIntel", "Intel Xeon", 6, 143, "Sapphire Rapids" },
        { "GenuineIntel", "Intel Xeon", 6, 207, "Emerald Rapids" },
        { "GenuineIntel", "Intel Xeon 6", 6, 173, "Granite Rapids" },
        { "AuthenticAMD", "AMD EPYC", 23, 1, "Naples" },
        { "AuthenticAMD", "AMD EPYC", 23, 49, "Rome" },
        { "AuthenticAMD", "AMD EPYC", 25, 1, "Milan" },
        { "AuthenticAMD", "AMD EPYC", 25, 17, "Genoa" },
        { "AuthenticAMD", "AMD EPYC", 25, 160, "Bergamo" },
    };

    if (vendor && *vendor && family >= 0 && model >= 0) {
        for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
            if (!strcmp(vendor, cpus[i].vendor) && family == cpus[i].family &&
                model == cpus[i].model)
                return xasprintf("%s (%s, family %d model %d)", cpus[i].name, cpus[i].codename,
                                 family, model);
        /* the vendor string comes from the file: only letters are kept */
        for (const char *p = vendor; *p; p++)
            if (!((*p | 32) >= 'a' && (*p | 32) <= 'z'))
                return xasprintf("family %d model %d", family, model);
        return xasprintf("%.16s family %d model %d", vendor, family, model);
    }
    if (arch && (!strcmp(arch, "arm64") || !strcmp(arch, "ppc64") || !strcmp(arch, "x86_64")))
        return xstrdup(arch);
    return NULL;
}

double topo_ref_ib_lane_gbps(const char *speed)
{
    static const struct {
        const char *name;
        double gbps;
    } lanes[] = { { "SDR", 2.5 },  { "DDR", 5 },       { "QDR", 10 },
                  { "FDR10", 10 }, { "FDR", 14.0625 }, { "EDR", 25 },
                  { "HDR", 50 },   { "NDR", 100 },     { "XDR", 200 } };

    for (size_t i = 0; speed && i < sizeof(lanes) / sizeof(lanes[0]); i++)
        if (!strcasecmp(speed, lanes[i].name))
            return lanes[i].gbps;
    return -1;
}
