#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/sysfs.h"
#include "readers/pci_acs.h"
#include "topo/model.h"

size_t topo_pci_chain(const char *root, const char *busid, char chain[][16], size_t max)
{
    char target[PATH_MAX];
    size_t count = 0;

    if (ry_sysfs_link_target(root, target, sizeof(target), NULL, "bus/pci/devices/%s", busid) < 0)
        return 0;
    /* "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/...": every component that is a
     * PCI address, root port first */
    for (char *save = NULL, *p = strtok_r(target, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
        char norm[TOPO_BUSID_LEN];
        if (strlen(p) == 12 && topo_busid_normalize(p, norm) == 0 && count < max)
            snprintf(chain[count++], 16, "%s", norm);
    }
    return count && !strcmp(chain[count - 1], busid) ? count : 0;
}
