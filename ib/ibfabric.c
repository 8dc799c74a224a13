#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "ib/ibfabric.h"

size_t ibf_add_node(struct ibf_fabric *f, enum ibf_node_type type, uint64_t guid, const char *id,
                    const char *desc, int nports)
{
    struct ibf_node *n;

    xgrow(&f->nodes, &f->alloc, f->n + 1, sizeof(*f->nodes));
    n = &f->nodes[f->n];
    memset(n, 0, sizeof(*n));
    n->type = type;
    n->guid = guid;
    n->id = xstrdup(id);
    n->desc = xstrdup(desc ? desc : "");
    n->nports = nports;
    n->pma_ext = -1;
    n->ports = xcalloc((size_t)nports + 1, sizeof(*n->ports));
    for (int p = 0; p <= nports; p++) {
        n->ports[p].num = p;
        n->ports[p].remote = -1;
    }
    return f->n++;
}

int ibf_find_guid(const struct ibf_fabric *f, uint64_t guid)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->nodes[i].guid == guid)
            return (int)i;
    return -1;
}

void ibf_fabric_free(struct ibf_fabric *f)
{
    for (size_t i = 0; i < f->n; i++) {
        struct ibf_node *n = &f->nodes[i];
        free(n->id);
        free(n->desc);
        free(n->name);
        free(n->host);
        free(n->hca);
        for (int p = 0; p <= n->nports; p++)
            free(n->ports[p].error);
        free(n->ports);
    }
    free(f->nodes);
    free(f->source);
    for (size_t i = 0; i < f->ndiscovery_errors; i++)
        free(f->discovery_errors[i]);
    free(f->discovery_errors);
    memset(f, 0, sizeof(*f));
}

/* ---- node-name map ---- */

int ibf_namemap_load(struct ibf_namemap *m, const char *path, ry_error_t *err)
{
    FILE *fp = fopen(path, "r");
    char line[1024];
    int lineno = 0;

    memset(m, 0, sizeof(*m));
    if (!fp)
        return ry_errorf(err, "cannot open node-name map %s: %s", path, strerror(errno));
    while (fgets(line, sizeof(line), fp)) {
        char *p = line, *e, *name;
        uint64_t guid;
        size_t alloc;

        lineno++;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        if ((p[0] == 'H' || p[0] == 'S' || p[0] == 'R') && p[1] == '-')
            p += 2;
        errno = 0;
        guid = strtoull(p, &e, 16);
        if (e == p || errno || !isspace((unsigned char)*e)) {
            fclose(fp);
            errno = EINVAL;
            return ry_errorf(err, "%s:%d: expected a GUID and a name", path, lineno);
        }
        p = e;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '"') {
            name = ++p;
            if (!(e = strchr(p, '"'))) {
                fclose(fp);
                errno = EINVAL;
                return ry_errorf(err, "%s:%d: unterminated quoted name", path, lineno);
            }
        } else {
            name = p;
            for (e = p; *e && !isspace((unsigned char)*e); e++)
                ;
        }
        *e = '\0';
        if (!*name) {
            fclose(fp);
            errno = EINVAL;
            return ry_errorf(err, "%s:%d: empty name", path, lineno);
        }
        alloc = m->n;
        m->guid = xrealloc(m->guid, (alloc + 1) * sizeof(*m->guid));
        m->name = xrealloc(m->name, (alloc + 1) * sizeof(*m->name));
        m->guid[m->n] = guid;
        m->name[m->n++] = xstrdup(name);
    }
    fclose(fp);
    return 0;
}

const char *ibf_namemap_get(const struct ibf_namemap *m, uint64_t guid)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (m->guid[i] == guid)
            return m->name[i];
    return NULL;
}

void ibf_namemap_free(struct ibf_namemap *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->name[i]);
    free(m->name);
    free(m->guid);
    memset(m, 0, sizeof(*m));
}

/* ---- naming ---- */

static int one_word(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (isspace((unsigned char)*s) || !isprint((unsigned char)*s) || *s == '/' || *s == ':')
            return 0;
    return 1;
}

/* "gpu02 mlx5_1" -> host gpu02, hca mlx5_1 (exactly two printable words) */
static int host_hca(const char *desc, char **host, char **hca)
{
    const char *sp = strchr(desc, ' ');
    char *h, *d;

    if (!sp || sp == desc || strchr(sp + 1, ' ') || !sp[1])
        return 0;
    h = xasprintf("%.*s", (int)(sp - desc), desc);
    d = xstrdup(sp + 1);
    if (!one_word(h) || !one_word(d)) {
        free(h);
        free(d);
        return 0;
    }
    *host = h;
    *hca = d;
    return 1;
}

void ibf_name_nodes(struct ibf_fabric *f, const struct ibf_namemap *m)
{
    for (size_t i = 0; i < f->n; i++) {
        struct ibf_node *n = &f->nodes[i];
        const char *mapped = ibf_namemap_get(m, n->guid);
        int unique = 1;

        free(n->name);
        free(n->host);
        free(n->hca);
        n->name = n->host = n->hca = NULL;
        if (n->type == IBF_CA && mapped && host_hca(mapped, &n->host, &n->hca)) {
            n->name = xasprintf("%s/%s", n->host, n->hca);
            continue;
        }
        if (n->type == IBF_CA && mapped && one_word(mapped)) {
            n->host = xstrdup(mapped); /* a host name only: the HCA is named by the map */
            n->name = xstrdup(mapped);
            continue;
        }
        if (mapped) {
            n->name = xstrdup(mapped);
            continue;
        }
        if (n->type == IBF_CA && host_hca(n->desc, &n->host, &n->hca)) {
            n->name = xasprintf("%s/%s", n->host, n->hca);
            continue;
        }
        for (size_t j = 0; j < f->n && unique; j++)
            unique = j == i || strcmp(f->nodes[j].desc, n->desc) != 0;
        n->name = xstrdup(unique && one_word(n->desc) ? n->desc : n->id);
    }
}

int ibf_name_hca(struct ibf_fabric *f, uint64_t guid, const char *host, const char *hca)
{
    int i = guid ? ibf_find_guid(f, guid) : -1;
    struct ibf_node *n;

    if (i < 0 || f->nodes[i].type != IBF_CA)
        return 0;
    n = &f->nodes[i];
    free(n->name);
    free(n->host);
    free(n->hca);
    n->host = xstrdup(host);
    n->hca = xstrdup(hca);
    n->name = xasprintf("%s/%s", host, hca);
    return 1;
}

uint64_t ibf_guid_parse(const char *s)
{
    uint64_t v = 0;
    int digits = 0;

    if (!s)
        return 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    for (; *s && !isspace((unsigned char)*s); s++) {
        if (*s == ':')
            continue;
        if (!isxdigit((unsigned char)*s) || ++digits > 16)
            return 0;
        v = v << 4 |
            (uint64_t)(isdigit((unsigned char)*s) ? *s - '0'
                                                  : (tolower((unsigned char)*s) - 'a' + 10));
    }
    return v;
}

const char *ibf_port_label(const struct ibf_fabric *f, int node, int port, char *buf, size_t len)
{
    if (node < 0 || (size_t)node >= f->n)
        snprintf(buf, len, "(none)");
    else
        snprintf(buf, len, "%s:%d", f->nodes[node].name ? f->nodes[node].name : f->nodes[node].id,
                 port);
    return buf;
}
