#include "config.h"

#include <errno.h>

#include "readers/bundle.h"

int topo_bundle_unpack(const char *bundle, const char *dir, ry_error_t *err)
{
    (void)dir;
    errno = ENOSYS;
    return ry_errorf(err,
                     "%s: this railyard was built without libarchive, which bundles are read "
                     "with (they are checked member by member before anything is written)",
                     bundle);
}
