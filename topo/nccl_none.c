#include "config.h"

#include <errno.h>

#include "topo/nccl.h"

/* Built without libxml2. */

int topo_nccl_discover(struct topo_node *node, const char *path, ry_error_t *err)
{
    (void)node;
    errno = ENOTSUP;
    return ry_errorf(err,
                     "%s: railyard was built without libxml2, so NCCL topology files cannot "
                     "be read (configure --with-libxml2)",
                     path);
}

int topo_hwloc_xml_prepare(const char *path, char **buf, int *len, ry_error_t *err)
{
    (void)path, (void)err;
    *buf = NULL;
    *len = 0;
    return 0;
}

void topo_xml_buffer_free(char *buf)
{
    (void)buf;
}
