#include "config.h"

#include <errno.h>

#include "readers/nccl.h"

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
