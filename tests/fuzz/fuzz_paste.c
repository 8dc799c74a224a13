#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "readers/gpubw.h"
#include "readers/pastes.h"
#include "tests/fuzz/fuzz_util.h"
#include "topo/model.h"

/* libFuzzer target for one reader of pasted tool output, FUZZ_READER (set by the build:
 * ibstat/ibstatus, nvidia-smi nvlink --status, nvbandwidth, p2pBandwidthLatencyTest,
 * bandwidthTest). Any input gives the node's facts or an error naming file:line, never a crash,
 * a leak or undefined behaviour. Each input is read twice: into an empty node, and into one that
 * already lists two GPUs (the GPU bandwidth readers then match the capture's GPUs to them).
 * Seeds: the captures of the fixtures. */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("paste.txt", data, size);
    ry_error_t err;

    for (int pass = 0; pass < 2; pass++) {
        struct topo_node *node = topo_node_create();
        for (int g = 0; pass && g < 2; g++) {
            struct topo_gpu *gpu = topo_node_add_gpu(node);
            gpu->index = g;
            snprintf(gpu->loc.busid, sizeof(gpu->loc.busid), "0000:%02x:00.0", 0x18 + 0x20 * g);
        }
        (void)FUZZ_READER(node, path, &err);
        topo_node_sort(node);
        topo_node_destroy(node);
    }
    return 0;
}
