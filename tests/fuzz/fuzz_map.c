#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "topo/map.h"

/* libFuzzer target for the map parser: any input must give a map or an error, never a crash,
 * a leak or undefined behaviour. Seeds: tests/fixtures/maps/. */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ry_error_t err;
    struct topo_map *map = topo_map_load_buffer((const char *)data, size, "fuzz", &err);

    if (map) {
        (void)topo_map_type_for_host(map, "gpu001");
        topo_map_destroy(map);
    }
    return 0;
}
