#ifndef RAILYARD_COMMON_FILE_H
#define RAILYARD_COMMON_FILE_H

#include <stddef.h>

#include "src/common/error.h"

/* Read a whole file into *buf (NUL-terminated, *len bytes without the NUL; free it). 0, or -1
 * with err saying "cannot open/read PATH: reason". */
int ry_read_file(const char *path, char **buf, size_t *len, ry_error_t *err);

#endif
