#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "ib/ibfabric.h"

/* The text `ibnetdiscover` prints (and ibsim reads): records separated by blank lines, each a
 * node header ("Switch 36 "S-0008f10500200b50" # "desc" enhanced port 0 lid 9 lmc 0") followed by
 * one line per cabled port ("[4] "H-003048c749cd0000"[1](3048c749cd0001) # "desc" lid 72 4xDDR").
 * Every line is either understood or refused with FILE:LINE. */

struct ref {
    size_t node;
    int port;
    char *remote_id;
    int remote_port;
    int line;
};

struct parser {
    struct ibf_fabric *f;
    const char *name;
    ry_error_t *err;
    int line;
    int cur;       /* node of the current record, -1 outside */
    uint64_t guid; /* from switchguid=/caguid=/rtguid= for the next node */
    struct ref *refs;
    size_t nrefs, arefs;
};

static int perr(struct parser *p, const char *fmt, const char *arg)
{
    char msg[300];

    snprintf(msg, sizeof(msg), fmt, arg);
    errno = EINVAL;
    return ry_errorf(p->err, "%s:%d: %s", p->name, p->line, msg);
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* "quoted" at s: copies the content into out (len), returns the char after the quote */
static const char *quoted(const char *s, char *out, size_t len)
{
    const char *e;

    if (*s != '"' || !(e = strchr(s + 1, '"')))
        return NULL;
    snprintf(out, len, "%.*s", (int)(e - s - 1), s + 1);
    return e + 1;
}

/* width and speed from the last token of a comment: "4xQDR", "1xHDR", "4xFDR10" */
static void width_speed(const char *comment, int *width, enum ibf_speed *speed)
{
    const char *end = comment + strlen(comment), *tok;
    char buf[32];
    char *x;

    while (end > comment && isspace((unsigned char)end[-1]))
        end--;
    tok = end;
    while (tok > comment && !isspace((unsigned char)tok[-1]))
        tok--;
    if (end - tok <= 2 || end - tok >= (long)sizeof(buf))
        return;
    snprintf(buf, sizeof(buf), "%.*s", (int)(end - tok), tok);
    if (!isdigit((unsigned char)buf[0]) || !(x = strchr(buf, 'x')))
        return;
    *x = '\0';
    if (ibf_speed_parse(x + 1) == IBF_SPEED_UNKNOWN)
        return;
    *width = atoi(buf);
    *speed = ibf_speed_parse(x + 1);
}

/* " lid 16 " in a comment -> 16 */
static int lid_in(const char *comment)
{
    const char *l = strstr(comment, "lid ");

    return l ? atoi(l + 4) : 0;
}

static int parse_header(struct parser *p, const char *s)
{
    enum ibf_node_type type;
    char id[128], desc[128] = "";
    const char *q;
    char *e;
    long nports;
    uint64_t guid = p->guid;

    if (!strncmp(s, "Switch", 6))
        type = IBF_SWITCH, s += 6;
    else if (!strncmp(s, "Hca", 3))
        type = IBF_CA, s += 3;
    else if (!strncmp(s, "Ca", 2))
        type = IBF_CA, s += 2;
    else
        type = IBF_ROUTER, s += 2;
    s = skip_ws(s);
    nports = strtol(s, &e, 10);
    if (e == s || nports < 1 || nports > 255)
        return perr(p, "node record without a port count (1-255): '%s'", s);
    s = skip_ws(e);
    if (!(q = quoted(s, id, sizeof(id))) || !*id)
        return perr(p, "node record without a quoted node id: '%s'", s);
    s = skip_ws(q);
    if (*s == '#') {
        s = skip_ws(s + 1);
        if (*s == '"' && !quoted(s, desc, sizeof(desc)))
            return perr(p, "unterminated NodeDescription: '%s'", s);
    }
    if (!guid && (id[0] == 'S' || id[0] == 'H' || id[0] == 'R') && id[1] == '-')
        guid = strtoull(id + 2, NULL, 16);
    for (size_t i = 0; i < p->f->n; i++) {
        char msg[200];
        if (!strcmp(p->f->nodes[i].id, id))
            return perr(p, "node \"%s\" is described twice", id);
        if (guid && p->f->nodes[i].guid == guid) {
            snprintf(msg, sizeof(msg), "node GUID %016llx is also that of \"%s\" (line %d)",
                     (unsigned long long)guid, p->f->nodes[i].id, p->f->nodes[i].line);
            return perr(p, "%s", msg);
        }
    }
    p->cur = (int)ibf_add_node(p->f, type, guid, id, desc, (int)nports);
    p->f->nodes[p->cur].line = p->line;
    if (type == IBF_SWITCH && q)
        p->f->nodes[p->cur].lid = lid_in(s);
    p->guid = 0;
    return 0;
}

static int parse_port(struct parser *p, const char *s)
{
    struct ibf_node *n;
    struct ibf_port *pt;
    char rid[128], comment_buf[512];
    const char *q, *comment = "";
    char *e;
    long num, rport;
    struct ref *r;

    if (p->cur < 0)
        return perr(p, "port line outside a node record: '%s'", s);
    n = &p->f->nodes[p->cur];
    num = strtol(s + 1, &e, 10);
    if (e == s + 1 || *e != ']')
        return perr(p, "bad port number: '%s'", s);
    if (num < 1 || num > n->nports)
        return perr(p, "port number out of range for the node: '%s'", s);
    s = e + 1;
    pt = &n->ports[num];
    if (pt->line)
        return perr(p, "port described twice: '%s'", s);
    if (*s == '(') { /* local port GUID */
        pt->guid = strtoull(s + 1, &e, 16);
        if (*e != ')')
            return perr(p, "bad port GUID: '%s'", s);
        s = e + 1;
    }
    if (*s == '{') { /* external port number of a chassis */
        if (!(s = strchr(s, '}')))
            return perr(p, "unterminated '{' in '%s'", "port line");
        s++;
    }
    s = skip_ws(s);
    if (!(q = quoted(s, rid, sizeof(rid))) || !*rid || *q != '[')
        return perr(p, "expected \"remote node id\"[port]: '%s'", s);
    rport = strtol(q + 1, &e, 10);
    if (e == q + 1 || *e != ']' || rport < 0 || rport > 255)
        return perr(p, "bad remote port number: '%s'", s);
    s = e + 1;
    if (*s == '(') { /* remote port GUID */
        if (!strchr(s, ')'))
            return perr(p, "bad remote port GUID: '%s'", s);
        s = strchr(s, ')') + 1;
    }
    if (*s == '{') {
        if (!(s = strchr(s, '}')))
            return perr(p, "unterminated '{' in '%s'", "port line");
        s++;
    }
    s = skip_ws(s);
    if (*s == '#') {
        snprintf(comment_buf, sizeof(comment_buf), "%s", s + 1);
        comment = comment_buf;
    } else if (*s) {
        /* ibsim's own per-port masks (w= s= e=) are accepted and ignored */
        if (strncmp(s, "w=", 2) && strncmp(s, "s=", 2) && strncmp(s, "e=", 2))
            return perr(p, "unexpected text after the remote port: '%s'", s);
    }
    pt->present = 1;
    pt->line = p->line;
    if (n->type != IBF_SWITCH) {
        /* "# lid 16 lmc 1 "remote desc" lid 3 4xSDR": the first lid is this port's */
        const char *rq = strchr(comment, '"');
        if (!rq || strstr(comment, "lid ") < rq)
            pt->lid = lid_in(comment);
    } else
        pt->lid = n->lid;
    width_speed(comment, &pt->width, &pt->speed);
    if (pt->width)
        pt->state = IBF_STATE_ACTIVE, pt->phys = IBF_PHYS_LINKUP;
    xgrow(&p->refs, &p->arefs, p->nrefs + 1, sizeof(*p->refs));
    r = &p->refs[p->nrefs++];
    r->node = (size_t)p->cur;
    r->port = (int)num;
    r->remote_id = xstrdup(rid);
    r->remote_port = (int)rport;
    r->line = p->line;
    return 0;
}

/* ibnetdiscover's own messages, when its stderr went into the file: libibnetdisc's errors
 * ("src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110;
 * Connection timed out") and libibmad's ("ibwarn: [3402] mad_rpc: _do_madrpc failed; dport (DR
 * path slid 0; dlid 0; 0,1,2,3)"), iberror and ibpanic lines */
static int is_discovery_message(const char *s)
{
    static const char *const prefixes[] = { "ibwarn:", "iberror:", "ibpanic:", "ibnetdiscover: ",
                                            NULL };
    size_t n;

    for (size_t i = 0; prefixes[i]; i++)
        if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
            return strncmp(prefixes[i], "ibnetdiscover: ", 15) != 0 || strstr(s, "iberror") ||
                   strstr(s, "ibwarn") || strstr(s, "ibpanic");
    /* "<source file>.c:<line>; " */
    n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-");
    if (n < 3 || strncmp(s + n - 2, ".c", 2) || s[n] != ':')
        return 0;
    n++;
    if (!isdigit((unsigned char)s[n]))
        return 0;
    while (isdigit((unsigned char)s[n]))
        n++;
    return s[n] == ';';
}

/* Keep what a discovery message says: the directed-route path it failed on and why (the last
 * ';'-separated part of more than one word, outside parentheses, without the "ibwarn: [pid]"
 * prefix), printable ASCII only: the text may reach a terminal */
static void discovery_message(struct parser *p, const char *s)
{
    char path[64] = "", flat[512], why[96] = "", msg[240];
    const char *d = strstr(s, "DR path"), *e;
    char *seg, *save = NULL, *pick = NULL;
    size_t k = 0;
    int depth = 0;

    if (d && (d = strstr(d, "dlid")) && (d = strchr(d, ';'))) {
        d = skip_ws(d + 1);
        e = d + strspn(d, "0123456789,");
        if (e > d)
            snprintf(path, sizeof(path), "%.*s", (int)(e - d), d);
    }
    for (const char *q = s; *q && k + 1 < sizeof(flat); q++) {
        if (*q == '(')
            depth++;
        else if (*q == ')' && depth > 0)
            depth--;
        else if (!depth)
            flat[k++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
    }
    flat[k] = '\0';
    for (seg = strtok_r(flat, ";", &save); seg; seg = strtok_r(NULL, ";", &save)) {
        char *t = (char *)skip_ws(seg), *end = t + strlen(t);
        while (end > t && end[-1] == ' ')
            *--end = '\0';
        if (strchr(t, ' '))
            pick = t;
    }
    if (pick) {
        const char *b = strchr(pick, ']');
        if (!strncmp(pick, "ib", 2) && b && b - pick < 24)
            pick = (char *)skip_ws(b + 1); /* "ibwarn: [3402] " */
        snprintf(why, sizeof(why), "%s", pick);
    }
    if (path[0])
        snprintf(msg, sizeof(msg), "line %d: DR path %s: %s", p->line, path,
                 why[0] ? why : "no answer");
    else
        snprintf(msg, sizeof(msg), "line %d: %s", p->line, why[0] ? why : "discovery error");
    p->f->discovery_errors =
        xrealloc(p->f->discovery_errors, (p->f->ndiscovery_errors + 1) * sizeof(char *));
    p->f->discovery_errors[p->f->ndiscovery_errors++] = xstrdup(msg);
}

static int parse_line(struct parser *p, char *s)
{
    size_t len = strlen(s);

    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || isspace((unsigned char)s[len - 1])))
        s[--len] = '\0';
    s = (char *)skip_ws(s);
    if (!*s) {
        p->cur = -1;
        return 0;
    }
    if (*s == '#') {
        if (strstr(s, "hops discovered"))
            p->f->hops_limited = 1;
        return 0;
    }
    if (!strncmp(s, "vendid=", 7) || !strncmp(s, "devid=", 6) || !strncmp(s, "sysimgguid=", 11))
        return 0;
    if (!strncmp(s, "switchguid=", 11) || !strncmp(s, "caguid=", 7) || !strncmp(s, "rtguid=", 7)) {
        char *e, *v = strchr(s, '=') + 1;
        errno = 0;
        p->guid = strtoull(v, &e, 16);
        if (e == v || errno)
            return perr(p, "bad GUID: '%s'", s);
        return 0;
    }
    if (!strncmp(s, "Non-Chassis Nodes", 17) || !strncmp(s, "Chassis", 7) || strstr(s, " Chassis "))
        return 0;
    if (!strncmp(s, "Switch", 6) || !strncmp(s, "Ca", 2) || !strncmp(s, "Hca", 3) ||
        !strncmp(s, "Rt", 2)) {
        if (isspace((unsigned char)s[s[0] == 'S' ? 6 : s[0] == 'H' ? 3 : 2]))
            return parse_header(p, s);
    }
    if (*s == '[')
        return parse_port(p, s);
    if (is_discovery_message(s)) {
        discovery_message(p, s);
        return 0;
    }
    return perr(p, "cannot parse this line: '%.60s'", s);
}

static int node_by_id(const struct ibf_fabric *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->nodes[i].id, id))
            return (int)i;
    return -1;
}

/* Resolve "remote id"[port] references and check that both ends of each cable agree. */
static int resolve(struct parser *p)
{
    struct ibf_fabric *f = p->f;

    for (size_t i = 0; i < p->nrefs; i++) {
        struct ref *r = &p->refs[i];
        int rn = node_by_id(f, r->remote_id);
        struct ibf_port *a = &f->nodes[r->node].ports[r->port], *b;

        p->line = r->line;
        if (rn < 0) {
            if (f->hops_limited || f->ndiscovery_errors)
                continue; /* beyond the hops the dump covers, or where discovery failed */
            return perr(p,
                        "the cable leads to \"%s\", which the dump never describes "
                        "(truncated file?)",
                        r->remote_id);
        }
        if (r->remote_port > f->nodes[rn].nports)
            return perr(p, "the cable leads to a port \"%s\" does not have", r->remote_id);
        b = &f->nodes[rn].ports[r->remote_port];
        a->remote = rn;
        a->remote_port = r->remote_port;
        if (f->nodes[rn].type == IBF_SWITCH && r->remote_port == 0)
            return perr(p, "the cable leads to port 0 of switch \"%s\"", r->remote_id);
        if (!b->line) {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "\"%s\" says port %d leads to \"%s\"[%d], but that port "
                     "is not described (truncated file?)",
                     f->nodes[r->node].id, r->port, r->remote_id, r->remote_port);
            return perr(p, "%s", msg);
        }
    }
    for (size_t i = 0; i < p->nrefs; i++) {
        struct ref *r = &p->refs[i];
        struct ibf_port *a = &f->nodes[r->node].ports[r->port], *b;

        if (a->remote < 0)
            continue;
        b = &f->nodes[a->remote].ports[a->remote_port];
        if (b->remote != (int)r->node || b->remote_port != r->port) {
            char msg[300];
            p->line = r->line;
            snprintf(msg, sizeof(msg),
                     "\"%s\"[%d] leads to \"%s\"[%d], which leads elsewhere "
                     "(line %d)",
                     f->nodes[r->node].id, r->port, f->nodes[a->remote].id, a->remote_port,
                     b->line);
            return perr(p, "%s", msg);
        }
        /* the two ends may print different widths or speeds: the link runs at the lower */
        if (b->width && (!a->width || b->width < a->width))
            a->width = b->width;
        if (b->speed && (!a->speed || b->speed < a->speed))
            a->speed = b->speed;
    }
    return 0;
}

int ibf_parse_ibnetdiscover_buffer(struct ibf_fabric *f, const char *buf, size_t len,
                                   const char *name, ry_error_t *err)
{
    struct parser p = { .f = f, .name = name, .err = err, .cur = -1 };
    const char *s = buf, *end = buf + len;
    char line[2048];
    int rc = 0;

    memset(f, 0, sizeof(*f));
    while (s < end && rc == 0) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
        p.line++;
        if (l >= sizeof(line)) {
            rc = perr(&p, "line too long (%s)", "over 2047 bytes");
            break;
        }
        if (memchr(s, '\0', l)) {
            rc = perr(&p, "%s", "binary data (NUL byte) in the file");
            break;
        }
        memcpy(line, s, l);
        line[l] = '\0';
        rc = parse_line(&p, line);
        s = nl ? nl + 1 : end;
    }
    if (rc == 0 && f->n == 0) {
        errno = EINVAL;
        rc = ry_errorf(err, "%s: no Switch or Ca record: not ibnetdiscover output", name);
    }
    if (rc == 0)
        rc = resolve(&p);
    for (size_t i = 0; i < p.nrefs; i++)
        free(p.refs[i].remote_id);
    free(p.refs);
    if (rc == 0) {
        /* ibnetdiscover lists every port that has a peer: a port it leaves out is not linked */
        for (size_t i = 0; i < f->n; i++)
            for (int pn = 1; pn <= f->nodes[i].nports; pn++)
                if (!f->nodes[i].ports[pn].line) {
                    f->nodes[i].ports[pn].present = 1;
                    f->nodes[i].ports[pn].state = IBF_STATE_DOWN;
                }
        f->source = xasprintf("ibnetdiscover file %s", name);
        ibf_name_nodes(f, NULL);
    } else
        ibf_fabric_free(f);
    return rc;
}

int ibf_parse_ibnetdiscover(struct ibf_fabric *f, const char *path, ry_error_t *err)
{
    char *buf;
    size_t len;
    int rc;

    memset(f, 0, sizeof(*f));
    if (ry_read_file(path, &buf, &len, err) < 0)
        return -1;
    rc = ibf_parse_ibnetdiscover_buffer(f, buf, len, path, err);
    free(buf);
    return rc;
}
