#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <pci/pci.h>

#include "common/sysfs.h"
#include "readers/pci_acs.h"
#include "topo/model.h"

/* libpci reports short reads of config files as warnings on stderr: they are answered here */
static void quiet(char *msg, ...)
{
    (void)msg;
}

int topo_pci_acs_ctrl(const char *root, const char *busid, unsigned *ctrl, ry_error_t *err)
{
    char sysfs[PATH_MAX];
    unsigned dom, bus, dev, fn;
    struct pci_access *pacc;
    struct pci_dev *d;
    struct pci_cap *cap;
    int rc = -1, e = 0;

    if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) {
        errno = ENODEV;
        return ry_errorf(err, "'%s' is not a PCI address", busid);
    }
    if (!ry_sysfs_exists(root, "bus/pci/devices/%s/config", busid)) {
        errno = ENODEV;
        return ry_errorf(err, "%s: no such PCI device under %s", busid, ry_sysfs_root(root));
    }
    if (!(pacc = pci_alloc())) {
        errno = ENOMEM;
        return ry_errorf(err, "pci_alloc failed");
    }
    pacc->method = PCI_ACCESS_SYS_BUS_PCI;
    pacc->warning = quiet;
    pacc->debug = quiet;
    snprintf(sysfs, sizeof(sysfs), "%s/bus/pci", ry_sysfs_root(root));
    pci_set_param(pacc, "sysfs.path", sysfs);
    pci_init(pacc);
    if (!(d = pci_get_dev(pacc, (int)dom, (int)bus, (int)dev, (int)fn))) {
        e = ENODEV;
        ry_errorf(err, "%s: no such PCI device", busid);
    } else {
        /* the extended space starts at 0x100: an unprivileged read of config gets 64 bytes */
        uint8_t probe[4];
        if (!pci_read_block(d, 0x100, probe, sizeof(probe))) {
            e = EACCES;
            ry_errorf(err, "%s: extended configuration space unreadable (run as root)", busid);
        } else if (!(cap = pci_find_cap(d, PCI_EXT_CAP_ID_ACS, PCI_CAP_EXTENDED))) {
            e = ENOENT;
            ry_errorf(err, "%s has no ACS capability", busid);
        } else {
            *ctrl = pci_read_word(d, (int)cap->addr + PCI_ACS_CTRL);
            rc = 0;
        }
        pci_free_dev(d);
    }
    pci_cleanup(pacc);
    errno = e;
    return rc;
}
