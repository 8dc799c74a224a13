#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/file.h"
#include "src/common/xmalloc.h"

int ry_read_file(const char *path, char **buf, size_t *len, ry_error_t *err)
{
    FILE *fp = fopen(path, "r");
    size_t alloc = 0, n;

    *buf = NULL;
    *len = 0;
    if (!fp)
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno));
    do {
        xgrow(buf, &alloc, *len + 65536, 1);
        n = fread(*buf + *len, 1, alloc - *len - 1, fp);
        *len += n;
    } while (n > 0);
    (*buf)[*len] = '\0';
    if (ferror(fp)) {
        int rc = ry_errorf(err, "cannot read %s: %s", path, strerror(errno));
        fclose(fp);
        free(*buf);
        *buf = NULL;
        return rc;
    }
    fclose(fp);
    return 0;
}
