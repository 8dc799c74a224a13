#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "readers/xml.h"

struct xml_errors {
    char first[400];
    int line;
};

/* libxml2 would print parse errors on stderr; keep the first one for our own message */
static void collect_error(void *ctx, xmlErrorPtr e)
{
    struct xml_errors *x = ctx;
    size_t n;

    if (!x || x->first[0] || !e || !e->message)
        return;
    snprintf(x->first, sizeof(x->first), "%s", e->message);
    n = strlen(x->first);
    while (n > 0 && (x->first[n - 1] == '\n' || x->first[n - 1] == ' '))
        x->first[--n] = '\0';
    x->line = e->line;
}

xmlDocPtr topo_xml_read(const char *path, ry_error_t *err)
{
    struct xml_errors x = { .first = "", .line = 0 };
    xmlDocPtr doc;
    FILE *f;

    if (!(f = fopen(path, "r")))
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno)), NULL;
    fclose(f);
    xmlSetStructuredErrorFunc(&x, collect_error);
    doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS);
    xmlSetStructuredErrorFunc(NULL, NULL);
    if (!doc) {
        errno = EINVAL;
        if (x.line > 0)
            ry_errorf(err, "%s:%d: malformed XML: %s", path, x.line,
                      x.first[0] ? x.first : "parse error");
        else
            ry_errorf(err, "%s: malformed XML: %s", path, x.first[0] ? x.first : "parse error");
    }
    return doc;
}
