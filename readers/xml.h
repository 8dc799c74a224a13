#ifndef RAILYARD_READERS_XML_H
#define RAILYARD_READERS_XML_H

#include "common/error.h"

/* XML files read with libxml2 (built only with it): the readers of NCCL topology files and of
 * hwloc XML share how a file is opened and how its first error is named. */

struct _xmlDoc; /* libxml2's xmlDoc */

/* Parse path without network access; NULL with err "FILE:LINE: malformed XML: ..." (libxml2's
 * own messages are kept off stderr), or "cannot open FILE: ...". */
struct _xmlDoc *topo_xml_read(const char *path, ry_error_t *err);

#endif
