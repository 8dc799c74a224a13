#ifndef RAILYARD_READERS_BUNDLE_H
#define RAILYARD_READERS_BUNDLE_H

#include <stdint.h>

#include "common/error.h"

/* A gather bundle comes from another machine, or from a ticket: it is unpacked as hostile.
 * Only plain files, directories and symbolic links that stay inside the bundle are written;
 * an absolute member, a member with "..", one written through a symbolic link, a hard link,
 * a device node, a FIFO, a link whose target leaves the bundle and a member past the size
 * limits refuse the whole bundle, with the member named. */
#define RY_BUNDLE_MEMBER_MAX  (64ll << 20)  /* bytes of one member */
#define RY_BUNDLE_TOTAL_MAX   (512ll << 20) /* bytes of all members */
#define RY_BUNDLE_MEMBERS_MAX 200000        /* members */

/* Unpack the gzip'ed tar at bundle into dir (an existing, empty, private directory). 0, or -1
 * with err naming the bundle and the member at fault; dir may then hold part of it. */
int topo_bundle_unpack(const char *bundle, const char *dir, ry_error_t *err);

#endif
