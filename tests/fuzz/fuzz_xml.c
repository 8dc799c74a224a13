#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "readers/hwloc.h"
#include "readers/nccl.h"
#include "tests/fuzz/fuzz_util.h"
#include "topo/model.h"

/* libFuzzer target for a topology XML reader, FUZZ_READER (set by the build): NCCL's topology
 * XML (topo_nccl_discover) or hwloc's (topo_hwloc_discover, lstopo --of xml). Any input gives
 * a node or an error, never a crash, a leak or undefined behaviour. Seeds: the XML of the
 * fixtures (real machines). */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("topo.xml", data, size);
    struct topo_node *node = topo_node_create();
    ry_error_t err;

    if (FUZZ_READER(node, path, &err) == 0)
        topo_node_sort(node);
    topo_node_destroy(node);
    return 0;
}
