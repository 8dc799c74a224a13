#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reports/history.h"
#include "tests/fuzz/fuzz_util.h"

/* libFuzzer target for the run history's rows as railyard history reads them: the input is the
 * history.db file (an archive copied from another machine, a database another program wrote,
 * a disk that lost sectors), listed read-only in every way railyard history lists it, in text
 * and JSON. Any input gives rows or an error naming the file, never a crash, a leak or
 * undefined behaviour. Seed: a history of archived runs (tests/cli/t1103-fuzz.t). */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ry_history_query q[] = {
        { .rail = -1, .gpu = -1, .peer = -1 },
        { .rail = -1, .gpu = -1, .peer = -1, .json = 1, .node = "node1", .since = "2026-01-01" },
        { .rail = 0, .gpu = -1, .peer = -1 },
        { .rail = 1, .gpu = -1, .peer = -1, .json = 1, .limit = 3 },
        { .rail = -1, .gpu = 0, .peer = -1 },
        { .rail = -1, .gpu = 0, .peer = 1, .json = 1, .test = "host_to_device_memcpy_ce" },
        { .rail = -1, .gpu = -1, .peer = -1, .collective = "allreduce" },
        { .rail = 0, .gpu = -1, .peer = -1, .collective = "allgather", .json = 1 },
    };
    FILE *null = fopen("/dev/null", "w");
    ry_error_t err;

    (void)fuzz_write("history.db", data, size);
    for (size_t i = 0; null && i < sizeof(q) / sizeof(q[0]); i++)
        (void)ry_history_list(fuzz_folder(), &q[i], null, &err);
    if (null)
        fclose(null);
    return 0;
}
