#include "config.h"

#include <errno.h>

#include "topo/map.h"

/* Built without libyaml: maps cannot be read or written. */

struct topo_map *topo_map_load_buffer(const char *buf, size_t len, const char *name,
                                      ry_error_t *err)
{
    (void)buf, (void)len;
    errno = ENOTSUP;
    ry_errorf(err,
              "%s: railyard was built without libyaml, so maps cannot be read "
              "(configure --with-yaml)",
              name);
    return NULL;
}

struct topo_map *topo_map_load(const char *path, ry_error_t *err)
{
    return topo_map_load_buffer(NULL, 0, path, err);
}

int topo_map_capture(const struct topo_node *node, const char *type_name, const char *hostlist,
                     const char *cluster, const struct map_thresholds *th, FILE *fp,
                     ry_error_t *err)
{
    (void)node, (void)type_name, (void)hostlist, (void)cluster, (void)th, (void)fp;
    errno = ENOTSUP;
    return ry_errorf(err, "railyard was built without libyaml, so maps cannot be written "
                          "(configure --with-yaml)");
}
