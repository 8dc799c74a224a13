#include "config.h"

#include <stddef.h>

#include "readers/pci_names.h"

/* Built without libpci: devices keep the names their source gave, or none. */

struct topo_pci_names *topo_pci_names_open(void)
{
    return NULL;
}

void topo_pci_names_close(struct topo_pci_names *names)
{
    (void)names;
}

char *topo_pci_lookup_name(struct topo_pci_names *names, unsigned vendor, unsigned device)
{
    (void)names;
    (void)vendor;
    (void)device;
    return NULL;
}
