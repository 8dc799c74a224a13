#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <pci/pci.h>

#include "common/xmalloc.h"
#include "readers/pci_names.h"

/* PCI names through libpci (built when configure found it; pci_names_none.c otherwise). */

struct topo_pci_names {
    struct pci_access *pacc;
};

/* pci_init() installs libpci's message handlers; without it they are NULL, and a lookup that
 * misses the ID database (a device newer than the system's pci.ids, such as the H200 on
 * Debian 12) calls one: these stay quiet. */
static void quiet(char *msg, ...)
{
    (void)msg;
}

/* libpci's error handler must not return: a broken ID database is a tool failure (exit 2) */
__attribute__((noreturn)) static void fatal(char *msg, ...)
{
    va_list ap;

    fputs("railyard: libpci: ", stderr);
    va_start(ap, msg);
    vfprintf(stderr, msg, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

struct topo_pci_names *topo_pci_names_open(void)
{
    struct topo_pci_names *n;
    struct pci_access *pacc;

    /* Names only: pci_init() is not called, so the bus is never touched and the ID database
     * is read lazily by the first lookup. */
    if (!(pacc = pci_alloc()))
        return NULL;
    pacc->error = fatal;
    pacc->warning = quiet;
    pacc->debug = quiet;
    n = xmalloc(sizeof(*n));
    n->pacc = pacc;
    return n;
}

void topo_pci_names_close(struct topo_pci_names *names)
{
    if (!names)
        return;
    pci_cleanup(names->pacc);
    free(names);
}

char *topo_pci_lookup_name(struct topo_pci_names *names, unsigned vendor, unsigned device)
{
    char buf[256];
    char *r;

    if (!names || !vendor || vendor == 0xffff)
        return NULL;
    r = pci_lookup_name(names->pacc, buf, sizeof(buf), PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS,
                        vendor, device);
    return r && *r ? xstrdup(r) : NULL;
}
