#include "config.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "topo/reference.h"

/* Ordered most specific first: the first entry whose every keyword is in the model wins. */
static const struct {
    const char *keys[3];
    struct topo_gpu_ref ref;
} gpus[] = {
    { { "H200", NULL }, { "H200", 5, 16, 18 } },
    { { "H100", "NVL", NULL }, { "H100 NVL", 5, 16, -1 } },
    { { "H100", "PCIe", NULL }, { "H100 PCIe", 5, 16, -1 } },
    { { "H100", NULL }, { "H100 SXM", 5, 16, 18 } },
    { { "H800", NULL }, { "H800", 5, 16, 8 } },
    { { "A100", "PCIe", NULL }, { "A100 PCIe", 4, 16, -1 } },
    { { "A100", "SXM", NULL }, { "A100 SXM", 4, 16, 12 } },
    { { "A100", NULL }, { "A100", 4, 16, -1 } },
    { { "A800", NULL }, { "A800", 4, 16, -1 } },
    { { "V100", "SXM", NULL }, { "V100 SXM", 3, 16, 6 } },
    { { "V100", NULL }, { "V100", 3, 16, -1 } },
    { { "P100", "SXM", NULL }, { "P100 SXM", 3, 16, 4 } },
    { { "P100", NULL }, { "P100", 3, 16, -1 } },
    { { "L40", NULL }, { "L40", 4, 16, -1 } },
    { { "L4", NULL }, { "L4", 4, 16, -1 } },
    { { "A10", NULL }, { "A10/A10G", 4, 16, -1 } },
    { { "A30", NULL }, { "A30", 4, 16, -1 } },
    { { "A40", NULL }, { "A40", 4, 16, -1 } },
    { { "T4", NULL }, { "T4", 3, 16, -1 } },
    { { "MI300", NULL }, { "MI300", 5, 16, -1 } },
    { { "MI250", NULL }, { "MI250", 4, 16, -1 } },
    { { "MI210", NULL }, { "MI210", 4, 16, -1 } },
    { { "MI100", NULL }, { "MI100", 4, 16, -1 } },
    { { "MI50", NULL }, { "MI50", 4, 16, -1 } },
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
