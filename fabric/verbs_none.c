#include "config.h"

#include <string.h>

#include "fabric/gpu_mr.h"
#include "fabric/transport.h"

/* Built without libibverbs: the verbs transport says so at setup. */

static int none_setup(const struct fabric_setup *su, struct fabric_endpoint *local, void **state,
                      ry_error_t *err)
{
    (void)su;
    *state = NULL;
    memset(local, 0, sizeof(*local));
    return ry_errorf(err, "this railyard-fabric was built without libibverbs: no verbs transport");
}

const struct fabric_transport fabric_transport_verbs = { .name = "verbs", .setup = none_setup };

int fabric_verbs_register_gpu(const char *dev, uint64_t dptr, size_t size, int dmabuf_fd, char *how,
                              size_t howlen, ry_error_t *err)
{
    (void)dev;
    (void)dptr;
    (void)size;
    (void)dmabuf_fd;
    if (howlen)
        how[0] = '\0';
    return ry_errorf(err, "built without libibverbs: GPU memory is not registered");
}
