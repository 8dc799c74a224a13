#ifndef RAILYARD_READERS_PCI_NAMES_H
#define RAILYARD_READERS_PCI_NAMES_H

/* Device names from the PCI ID database through libpci. Open once per discovery (loading the
 * database is the expensive part). Without libpci, open returns NULL and lookups return NULL. */
struct topo_pci_names;
struct topo_pci_names *topo_pci_names_open(void);
void topo_pci_names_close(struct topo_pci_names *names);

/* "GA100 [A100 SXM4 40GB]", or NULL when unknown. The caller frees the string. */
char *topo_pci_lookup_name(struct topo_pci_names *names, unsigned vendor, unsigned device);

#endif
