#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "readers/discover.h"
#include "tests/fuzz/fuzz_util.h"
#include "topo/model.h"

/* libFuzzer target for gather bundles: the input is the bundle (a tar, gzip'ed or not), unpacked
 * member by member and read as railyard inventory --bundle reads it (its sysfs tree and hwloc
 * XML). Any input gives a node or an error naming the bundle (and the member), never a crash, a
 * leak, undefined behaviour or a file written outside the unpacked tree. Seeds: bundles made by
 * tests/cli/t1103-fuzz.t from the fixtures. */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct topo_inputs in = { .bundle = fuzz_write("bundle.tar", data, size) };
    struct topo_node *node;
    ry_error_t err;

    if ((node = topo_discover(&in, &err)))
        topo_node_destroy(node);
    return 0;
}
