#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "readers/hwloc.h"
#include "readers/xml.h"

/* hwloc XML checked and, for hwloc 3.x files, rewritten with libxml2 (hwloc_xml_none.c
 * otherwise). */

/* hwloc 3.x writes OS device types as a bitmask; hwloc 2.x as an enum */
static const char *osdev_v3_to_v2(unsigned long mask)
{
    static const struct {
        unsigned long bit;
        const char *v2;
    } map[] = {
        { 32, "3" }, /* OpenFabrics */
        { 8, "5" },  /* CoProcessor (CUDA, OpenCL) */
        { 4, "1" },  /* GPU */
        { 16, "2" }, /* Network */
        { 1, "0" },  /* Storage (Block) */
        { 2, "6" },  /* Memory */
        { 64, "4" }, /* DMA */
    };

    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (mask & map[i].bit)
            return map[i].v2;
    return "0";
}

static void downgrade_objects(xmlNodePtr n)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!xmlStrcmp(n->name, (const xmlChar *)"object")) {
            xmlChar *t = xmlGetProp(n, (const xmlChar *)"osdev_type");
            if (t) {
                xmlSetProp(n, (const xmlChar *)"osdev_type",
                           (const xmlChar *)osdev_v3_to_v2(strtoul((const char *)t, NULL, 10)));
                xmlFree(t);
            }
        }
        downgrade_objects(n->children);
    }
}

/* hwloc (2.9) crashes loading an object that has some of its CPU and NUMA sets but not all
 * four (a NULL set compared in hwloc_topology_load): such a file is refused before hwloc reads
 * it. 0, or -1 with err naming the line. */
static int check_sets(xmlNodePtr n, const char *path, ry_error_t *err)
{
    static const char *const sets[] = { "cpuset", "complete_cpuset", "nodeset",
                                        "complete_nodeset" };

    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!xmlStrcmp(n->name, (const xmlChar *)"object")) {
            int have = 0;
            const char *missing = NULL;
            for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
                if (xmlHasProp(n, (const xmlChar *)sets[i]))
                    have++;
                else if (!missing)
                    missing = sets[i];
            }
            if (have && missing) {
                xmlChar *type = xmlGetProp(n, (const xmlChar *)"type");
                errno = EINVAL;
                ry_errorf(err, "%s:%d: <object type=\"%s\"> has a CPU or NUMA set but no %s", path,
                          n->line, type ? (const char *)type : "", missing);
                xmlFree(type);
                return -1;
            }
        }
        if (check_sets(n->children, path, err) < 0)
            return -1;
    }
    return 0;
}

int topo_hwloc_xml_prepare(const char *path, char **buf, int *len, ry_error_t *err)
{
    xmlDocPtr doc;
    xmlNodePtr root;
    xmlChar *version, *out = NULL;
    int rc = 0;

    *buf = NULL;
    *len = 0;
    if (!(doc = topo_xml_read(path, err)))
        return -1;
    root = xmlDocGetRootElement(doc);
    if (!root || xmlStrcmp(root->name, (const xmlChar *)"topology")) {
        errno = EINVAL;
        rc = ry_errorf(err, "%s:%d: root element is <%s>, expected an hwloc <topology>", path,
                       root ? root->line : 1, root ? (const char *)root->name : "");
        goto out;
    }
    if ((rc = check_sets(root->children, path, err)) < 0)
        goto out;
    version = xmlGetProp(root, (const xmlChar *)"version");
    if (version && atoi((const char *)version) >= 3) {
        xmlSetProp(root, (const xmlChar *)"version", (const xmlChar *)"2.0");
        downgrade_objects(root->children);
        xmlDocDumpMemory(doc, &out, len);
        if (!out) {
            errno = ENOMEM;
            rc = ry_errorf(err, "%s: cannot convert hwloc %s XML", path, (const char *)version);
        } else {
            *buf = (char *)out;
            rc = 1;
        }
    }
    xmlFree(version);
out:
    xmlFreeDoc(doc);
    return rc;
}

void topo_xml_buffer_free(char *buf)
{
    xmlFree(buf);
}
