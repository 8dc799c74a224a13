#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "readers/gpubw_json.h"

int topo_nvbandwidth_json(const char *path, struct nvb_json *j, ry_error_t *err)
{
    (void)j;
    errno = ENOTSUP;
    return ry_errorf(err,
                     "%s: nvbandwidth's JSON output, and railyard was built without jansson "
                     "(configure --with-jansson): give its text output",
                     path);
}

void topo_nvbandwidth_json_free(struct nvb_json *j)
{
    (void)j;
}
