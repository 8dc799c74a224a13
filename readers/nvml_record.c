#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/xmalloc.h"
#include "readers/nvml_record.h"

#define MAGIC "railyard-nvml 1"

/* a name or a reason on one line: what would break the line or reach a terminal is written as
 * \xHH (ry_inert, as every message quotes outside text) */
static void put_text(FILE *f, const char *s)
{
    char *safe = ry_inert_dup(s);

    fputs(safe, f);
    free(safe);
}

static int known(int v)
{
    return v > 0 ? v : -1;
}

int topo_nvml_record(FILE *f, const struct topo_node *v, int rc, const char *why)
{
    fprintf(f, "%s\n", MAGIC);
    if (rc < 0) {
        fputs("driver failed ", f);
        put_text(f, why && *why ? why : "error");
        fputc('\n', f);
    } else if (v->gpu_driver != 1) {
        fputs("driver absent ", f);
        put_text(f, v->gpu_driver_note ? v->gpu_driver_note : "no NVIDIA driver");
        fputc('\n', f);
    } else {
        fputs("driver answering ", f);
        put_text(f, v->gpu_driver_version ? v->gpu_driver_version : "unknown");
        fputc('\n', f);
        if (v->gpu_driver_note) {
            fputs("note ", f);
            put_text(f, v->gpu_driver_note);
            fputc('\n', f);
        }
        for (size_t i = 0; i < v->ngpus; i++) {
            const struct topo_gpu *g = &v->gpus[i];
            /* the model's 0 for a PCIe figure NVML did not give is the record's -1 */
            fprintf(f, "gpu %s %d %d %d %d %d %d %llu ", g->loc.busid, g->nvlink_links,
                    g->nvlink_active, known(g->link.cur_gen), known(g->link.cur_width),
                    known(g->link.max_gen), known(g->link.max_width),
                    (unsigned long long)g->memory_bytes);
            put_text(f, g->uuid && *g->uuid && !strchr(g->uuid, ' ') ? g->uuid : "-");
            fputc(' ', f);
            put_text(f, g->model && *g->model ? g->model : "-");
            fputc('\n', f);
        }
        for (size_t i = 0; i < v->nnvlinks; i++)
            fprintf(f, "nvlink %s %s %d\n", v->nvlinks[i].a, v->nvlinks[i].b, v->nvlinks[i].count);
        for (size_t i = 0; i < v->nnvswitch; i++)
            fprintf(f, "nvswitch %s %s %d\n", v->nvswitch[i].gpu, v->nvswitch[i].sw,
                    v->nvswitch[i].count);
    }
    return ferror(f) || fflush(f) != 0 ? -1 : 0;
}

/* ---- replay ---- */

struct cursor {
    char *s; /* what is left of the line */
    const char *path;
    int line;
    ry_error_t *err;
};

/* the next field (up to a space, or the line's end) */
static char *field(struct cursor *c, const char *what)
{
    char *start = c->s, *sp;

    if (!start || !*start) {
        errno = EINVAL;
        ry_errorf(c->err, "%s:%d: %s is missing", c->path, c->line, what);
        return NULL;
    }
    if ((sp = strchr(start, ' '))) {
        *sp = '\0';
        c->s = sp + 1;
    } else
        c->s = start + strlen(start);
    return start;
}

/* an integer field between lo and hi */
static int number(struct cursor *c, const char *what, long long lo, long long hi, long long *out)
{
    char *s = field(c, what), *end;

    if (!s)
        return -1;
    errno = 0;
    *out = strtoll(s, &end, 10);
    if (errno || end == s || *end || *out < lo || *out > hi) {
        errno = EINVAL;
        return ry_errorf(c->err, "%s:%d: %s must be a whole number from %lld to %lld, not '%s'",
                         c->path, c->line, what, lo, hi, s);
    }
    return 0;
}

static int busid(struct cursor *c, const char *what, char out[TOPO_BUSID_LEN])
{
    char *s = field(c, what);

    if (!s)
        return -1;
    if (topo_busid_normalize(s, out) < 0) {
        errno = EINVAL;
        return ry_errorf(c->err, "%s:%d: %s is not a PCI address: '%s'", c->path, c->line, what, s);
    }
    return 0;
}

static int rest(struct cursor *c, const char *what, char **out)
{
    if (!c->s || !*c->s) {
        errno = EINVAL;
        return ry_errorf(c->err, "%s:%d: %s is missing", c->path, c->line, what);
    }
    *out = c->s;
    c->s = NULL;
    return 0;
}

static int line_end(struct cursor *c)
{
    if (c->s && *c->s) {
        errno = EINVAL;
        return ry_errorf(c->err, "%s:%d: more than the record holds: '%s'", c->path, c->line, c->s);
    }
    return 0;
}

static int gpu_line(struct topo_node *node, struct cursor *c)
{
    char bus[TOPO_BUSID_LEN], *uuid, *name = NULL;
    long long links, active, gen, width, max_gen, max_width, bytes;
    struct topo_gpu *g;

    if (busid(c, "the GPU's PCI address", bus) < 0 ||
        number(c, "the count of NVLinks", -1, 64, &links) < 0 ||
        number(c, "the count of active NVLinks", -1, 64, &active) < 0 ||
        number(c, "the PCIe generation", -1, 16, &gen) < 0 ||
        number(c, "the PCIe width", -1, 32, &width) < 0 ||
        number(c, "the PCIe maximum generation", -1, 16, &max_gen) < 0 ||
        number(c, "the PCIe maximum width", -1, 32, &max_width) < 0 ||
        number(c, "the memory in bytes", 0, LLONG_MAX, &bytes) < 0 ||
        !(uuid = field(c, "the GPU's UUID")) || rest(c, "the GPU's name", &name) < 0)
        return -1;
    if ((links < 0) != (active < 0) || active > links) {
        errno = EINVAL;
        return ry_errorf(c->err, "%s:%d: %lld of %lld NVLinks active", c->path, c->line, active,
                         links);
    }
    if (!(g = topo_node_gpu_by_busid(node, bus))) {
        g = topo_node_add_gpu(node);
        snprintf(g->loc.busid, sizeof(g->loc.busid), "%s", bus);
    }
    free(g->vendor);
    g->vendor = xstrdup("NVIDIA");
    if (strcmp(name, "-")) {
        free(g->model);
        g->model = xstrdup(name);
    }
    if (strcmp(uuid, "-")) {
        free(g->uuid);
        g->uuid = xstrdup(uuid);
    }
    if (bytes)
        g->memory_bytes = (uint64_t)bytes;
    /* as NVML completes a node: a figure it gave replaces the bus's (0, as in the model, is
     * one not known) */
    if (gen > 0)
        g->link.cur_gen = (int)gen;
    if (width > 0)
        g->link.cur_width = (int)width;
    if (max_gen > 0)
        g->link.max_gen = (int)max_gen;
    if (max_width > 0)
        g->link.max_width = (int)max_width;
    if (links >= 0) {
        g->nvlink_links = (int)links;
        g->nvlink_active = (int)active;
    }
    return 0;
}

static int link_line(struct topo_node *node, struct cursor *c, int to_switch)
{
    char a[TOPO_BUSID_LEN], b[TOPO_NVTARGET_LEN], *s;
    long long count;

    if (busid(c, "the GPU's PCI address", a) < 0 || !(s = field(c, "the far end")))
        return -1;
    if ((to_switch ? topo_nvtarget_normalize(s, b) : topo_busid_normalize(s, b)) < 0) {
        errno = EINVAL;
        return ry_errorf(c->err, "%s:%d: the far end is not a PCI address: '%s'", c->path, c->line,
                         s);
    }
    if (number(c, "the count of NVLinks", 1, 64, &count) < 0 || line_end(c) < 0)
        return -1;
    if (to_switch)
        topo_node_add_switch_nvlink(node, a, b, (int)count);
    else
        topo_node_add_nvlink(node, a, b, (int)count);
    return 0;
}

int topo_nvml_replay(struct topo_node *node, const char *path, ry_error_t *err)
{
    char line[1024], *version = NULL;
    int lineno = 0, rc = 0, driver = -1;
    FILE *f;

    if (!(f = fopen(path, "r")))
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno));
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        struct cursor c = { line, path, ++lineno, err };
        size_t len = strlen(line);
        char *kind, *what;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(f)) {
            errno = EINVAL;
            rc =
                ry_errorf(err, "%s:%d: line longer than %zu bytes", path, lineno, sizeof(line) - 2);
            break;
        }
        if (lineno == 1) {
            if (strcmp(line, MAGIC)) {
                errno = EINVAL;
                rc = ry_errorf(err, "%s:1: not a railyard NVML record (no '%s' line)", path, MAGIC);
            }
            continue;
        }
        if (!(kind = field(&c, "the kind of line"))) {
            rc = -1;
            break;
        }
        if (!strcmp(kind, "driver")) {
            if (driver >= 0) {
                errno = EINVAL;
                rc = ry_errorf(err, "%s:%d: a second driver line", path, lineno);
            } else if (!(what = field(&c, "the driver's state")) ||
                       rest(&c, "the driver's version or why", &version) < 0)
                rc = -1;
            else if (!strcmp(what, "answering")) {
                driver = 1;
                version = xstrdup(version);
            } else if (!strcmp(what, "absent")) {
                driver = 0;
                free(node->gpu_driver_note);
                node->gpu_driver_note = xstrdup(version);
                version = NULL;
            } else if (!strcmp(what, "failed")) {
                errno = EIO;
                rc = ry_errorf(err, "%s: the NVIDIA driver failed when the bundle was gathered: %s",
                               path, version);
                version = NULL;
            } else {
                errno = EINVAL;
                rc = ry_errorf(err, "%s:%d: the driver is answering, absent or failed, not '%s'",
                               path, lineno, what);
                version = NULL;
            }
            continue;
        }
        if (driver != 1) {
            /* what follows the driver's state needs a driver that answered */
            errno = EINVAL;
            rc = ry_errorf(err, "%s:%d: '%s' before a 'driver answering' line", path, lineno, kind);
        } else if (!strcmp(kind, "note")) {
            char *note = NULL;
            if ((rc = rest(&c, "the note", &note)) == 0) {
                free(node->gpu_driver_note);
                node->gpu_driver_note = xstrdup(note);
            }
        } else if (!strcmp(kind, "gpu")) {
            rc = gpu_line(node, &c);
        } else if (!strcmp(kind, "nvlink") || !strcmp(kind, "nvswitch"))
            rc = link_line(node, &c, !strcmp(kind, "nvswitch"));
        else {
            errno = EINVAL;
            rc = ry_errorf(err, "%s:%d: not a line of an NVML record: '%.60s'", path, lineno, kind);
        }
    }
    fclose(f);
    if (rc == 0 && lineno == 0) {
        errno = EINVAL;
        rc = ry_errorf(err, "%s: empty file", path);
    } else if (rc == 0 && driver < 0) {
        errno = EINVAL;
        rc = ry_errorf(err, "%s: no driver line", path);
    }
    if (rc < 0) {
        free(version);
        return -1;
    }
    node->gpu_driver = driver;
    if (driver == 1) {
        node->gpus_listed = 1;
        free(node->gpu_driver_version);
        node->gpu_driver_version = version;
        topo_node_add_source(node, "nvml (driver %s, gathered)", version);
    } else
        topo_node_add_source(node, "nvml (no driver, gathered)");
    return 0;
}
