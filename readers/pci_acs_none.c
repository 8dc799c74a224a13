#include "config.h"

#include <errno.h>

#include "readers/pci_acs.h"

int topo_pci_acs_ctrl(const char *root, const char *busid, unsigned *ctrl, ry_error_t *err)
{
    (void)root;
    (void)busid;
    (void)ctrl;
    errno = ENOSYS;
    return ry_errorf(err, "built without libpci: PCIe ACS is not read");
}
