#ifndef RAILYARD_READERS_PCI_ACS_H
#define RAILYARD_READERS_PCI_ACS_H

#include <stddef.h>

#include "common/error.h"

/* PCIe Access Control Services of bridges, read through libpci from the sysfs tree (root as in
 * common/sysfs.h: a capture's tree works as well as /sys). */

#define TOPO_ACS_REQ_REDIRECT   0x0004 /* P2P Request Redirect */
#define TOPO_ACS_CMPLT_REDIRECT 0x0008 /* P2P Completion Redirect */
#define TOPO_ACS_EGRESS         0x0020 /* P2P Egress Control */

/* The ACS Control register of the device at busid: 0 with *ctrl; -1 with err and errno ENOENT
 * (the device has no ACS capability), EACCES (extended config space unreadable: not root),
 * ENODEV (no such device) or ENOSYS (built without libpci). */
int topo_pci_acs_ctrl(const char *root, const char *busid, unsigned *ctrl, ry_error_t *err);

/* The PCI addresses from the root port down to busid (busid last), from the sysfs link
 * bus/pci/devices/<busid>: the number of them, 0 when unknown. */
size_t topo_pci_chain(const char *root, const char *busid, char chain[][16], size_t max);

#endif
