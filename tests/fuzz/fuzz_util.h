#ifndef RAILYARD_TESTS_FUZZ_UTIL_H
#define RAILYARD_TESTS_FUZZ_UTIL_H

/* For the targets whose parsers read a path: the input written to a file in a private folder
 * of the fuzzing process (removed at exit). */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/file.h"

static char fuzz_dir[512];

static inline void fuzz_cleanup(void)
{
    if (fuzz_dir[0])
        ry_rm_tree(fuzz_dir);
}

/* the folder (made once) */
static inline const char *fuzz_folder(void)
{
    if (!fuzz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/railyard-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_dir))
            abort();
        atexit(fuzz_cleanup);
    }
    return fuzz_dir;
}

/* write data to name in the folder; its path */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    static char path[640];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", fuzz_folder(), name);
    if (!(f = fopen(path, "wb")) || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

#endif
