#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "readers/gpubw.h"
#include "readers/gpubw_json.h"
#include "topo/gpubw.h"

#define MAX_COLS 256 /* GPUs one matrix may have (an NVL72 rack's multinode run has 72) */

/* ---- reading lines ---- */

struct reader {
    FILE *f;
    const char *path;
    char *buf;
    size_t cap;
    int line;
    ry_error_t *err;
    /* lines read from a text made of another format (nvbandwidth's JSON): the line of the
     * original each stands for */
    const int *map;
    int nmap;
    int fixed;                   /* a line to name instead of the current one (0: none) */
    const char *broke, *corrupt; /* what the other format said of the run (NULL: nothing) */
};

/* the line to name in messages and figures */
static int at(const struct reader *r)
{
    if (r->fixed)
        return r->fixed;
    return r->map && r->line >= 0 && r->line < r->nmap ? r->map[r->line] : r->line;
}

static char *next_line(struct reader *r)
{
    ssize_t n = getline(&r->buf, &r->cap, r->f);

    if (n < 0)
        return NULL;
    r->line++;
    /* the line's end (CRLF too) and a paste's quote markers go */
    return ry_paste_line(r->buf);
}

static int starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* A sample's banner, "[name] ...", also when a paste lost its '[' (a Markdown link's bracket) */
static int banner(const char *s, const char *name)
{
    return starts(s[0] == '[' ? s + 1 : s, name);
}

static int ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int fail(struct reader *r, const char *fmt, const char *a, long b)
{
    char what[300];

    snprintf(what, sizeof(what), fmt, a, b);
    errno = EINVAL;
    return ry_errorf(r->err, "%s:%d: %s", r->path, at(r), what);
}

/* A number or N/A; 1 a number, 0 N/A, -1 neither. */
static int cell(const char *tok, double *v)
{
    char *end;

    if (!strcmp(tok, "N/A"))
        return 0;
    errno = 0;
    *v = strtod(tok, &end);
    if (end == tok || *end || errno || *v < 0)
        return -1;
    return 1;
}

/* Split s (modified) at blanks into at most max tokens; returns the count. */
static int split(char *s, char **tok, int max)
{
    int n = 0;

    for (char *p = strtok(s, " \t"); p; p = strtok(NULL, " \t")) {
        if (n == max)
            return max + 1;
        tok[n++] = p;
    }
    return n;
}

/* A column header: the GPU numbers 0..n-1 in order, after an optional label ("D\D", "GPU",
 * "CPU"). Returns n, or -1 when s is not one. label gets the label ("" none). */
static int column_header(const char *line, char *label, size_t len)
{
    char tmp[4096], *tok[MAX_COLS + 2] = { NULL };
    int n, first = 0;

    snprintf(tmp, sizeof(tmp), "%s", line);
    n = split(tmp, tok, MAX_COLS + 1);
    if (n < 1 || n > MAX_COLS + 1)
        return -1;
    label[0] = '\0';
    if (!isdigit((unsigned char)tok[0][0])) {
        snprintf(label, len, "%s", tok[0]);
        first = 1;
    }
    if (n - first < 1)
        return -1;
    for (int i = first; i < n; i++) {
        char *end;
        long v = strtol(tok[i], &end, 10);
        if (*end || v != i - first)
            return -1;
    }
    return n - first;
}

static void set_model(struct topo_bw_capture *c, int i, const char *model, const char *busid,
                      int line)
{
    topo_bw_capture_gpu(c, i);
    free(c->model[i]);
    c->model[i] = model && *model ? xstrdup(model) : NULL;
    if (busid) {
        free(c->busid[i]);
        c->busid[i] = xstrdup(busid);
    }
    if (!c->gpus_line)
        c->gpus_line = line;
}

/* Attach a capture to the node: match its GPUs with those the node lists. */
static int attach(struct topo_node *node, struct topo_bw_capture *c, struct reader *r)
{
    int have_busid = 0;

    for (int i = 0; i < c->ngpus; i++)
        have_busid |= c->busid[i] != NULL;
    r->fixed = c->gpus_line ? c->gpus_line : at(r);
    if (node->ngpus > 0 && have_busid) {
        for (int i = 0; i < c->ngpus; i++) {
            struct topo_gpu *g = c->busid[i] ? topo_node_gpu_by_busid(node, c->busid[i]) : NULL;
            if (!g) {
                char what[96];
                snprintf(what, sizeof(what), "gpu%d (%s)", i, c->busid[i] ? c->busid[i] : "?");
                return fail(r, "%s is not among the node's GPUs (%ld listed)", what,
                            (long)node->ngpus);
            }
            c->node_gpu[i] = (int)(g - node->gpus);
        }
    } else if (node->ngpus > 0) {
        if ((size_t)c->ngpus != node->ngpus) {
            char what[64];
            snprintf(what, sizeof(what), "the capture measures %d GPU%s", c->ngpus,
                     c->ngpus == 1 ? "" : "s");
            return fail(r, "%s, the node has %ld", what, (long)node->ngpus);
        }
        for (int i = 0; i < c->ngpus; i++)
            c->node_gpu[i] = i;
    }
    node->bw = xrealloc(node->bw, (node->nbw + 1) * sizeof(*node->bw));
    node->bw[node->nbw++] = c;
    topo_node_add_source(node, "%s %s", c->tool, c->path);
    return 0;
}

/* the end of a reader: a capture with something in it joins the node (then *c is NULL),
 * else empty names why the file holds nothing */
static int finish(struct reader *r, struct topo_node *node, struct topo_bw_capture **c,
                  int something, const char *empty)
{
    if (!something) {
        errno = EINVAL;
        return ry_errorf(r->err, "%s: %s", r->path, empty);
    }
    if (attach(node, *c, r) < 0)
        return -1;
    *c = NULL;
    return 0;
}

static int done(struct reader *r, struct topo_bw_capture *c, int rc)
{
    topo_bw_capture_free(c);
    free(r->buf);
    fclose(r->f);
    return rc;
}

/* ---- matrices ---- */

/* How a matrix's rows and columns name GPUs. */
enum axes {
    AX_HOST_GPU,  /* one row (the host), a column per GPU */
    AX_GPU_GPU,   /* row and column are GPUs: row -> column */
    AX_GPU_GPU_R, /* row <- column */
};

struct matrix {
    int on;     /* reading one */
    int header; /* its column header was read */
    int ncols;
    int skip; /* rows are read but not kept (a CPU block, a partial bidirectional figure) */
    enum axes ax;
    enum topo_bw_kind kind;
    int diag_kind; /* kind of a diagonal value, -1 none kept */
    int sm, counts_rw, connectivity;
    double scale; /* to GB/s or microseconds */
    int group;
};

/* Read one matrix row into the capture. Returns 1 a row, 0 not a row, -1 an error. */
static int matrix_row(struct reader *r, struct topo_bw_capture *c, struct matrix *m, char *line)
{
    char tmp[8192], *tok[MAX_COLS + 2] = { NULL };
    int n, row;
    char *end;

    snprintf(tmp, sizeof(tmp), "%s", line);
    n = split(tmp, tok, MAX_COLS + 1);
    if (n < 1)
        return 0;
    row = (int)strtol(tok[0], &end, 10);
    if (*end || end == tok[0] || row < 0)
        return 0;
    if (n - 1 != m->ncols)
        return fail(r,
                    "row %s has %ld values where the header has more or fewer columns "
                    "(a matrix cut short?)",
                    tok[0], n - 1);
    if (m->ax == AX_HOST_GPU && row != 0)
        return fail(r, "row %s: a host-to-GPU matrix has one row (%ld)", tok[0], 0);
    if (m->ax != AX_HOST_GPU && row >= m->ncols)
        return fail(r, "row %s of a matrix of %ld GPUs", tok[0], m->ncols);
    for (int k = 0; k < m->ncols; k++) {
        struct topo_bw v = { .kind = m->kind, .sm = m->sm, .group = m->group, .line = at(r) };
        double x = 0;
        int diag = m->ax != AX_HOST_GPU && row == k, got = cell(tok[k + 1], &x);
        if (got < 0)
            return fail(r, "'%s' is neither a number nor N/A (column %ld)", tok[k + 1], k);
        if (got == 0) {
            if (diag)
                continue;
            return fail(r, "N/A where the test measures a value%s (column %ld)", "", k);
        }
        if (m->skip)
            continue;
        if (m->connectivity) {
            topo_bw_capture_gpu(c, row > k ? row : k);
            if (!diag)
                c->peer[row * c->ngpus + k] = x != 0;
            continue;
        }
        if (diag) {
            if (m->diag_kind < 0)
                continue;
            v.kind = (enum topo_bw_kind)m->diag_kind;
            v.counts_rw = 1;
            v.a = row;
            v.b = -1;
        } else if (m->ax == AX_HOST_GPU) {
            v.a = k;
            v.b = -1;
        } else if (m->ax == AX_GPU_GPU) {
            v.a = row;
            v.b = k;
        } else {
            v.a = k;
            v.b = row;
        }
        v.value = x * m->scale;
        topo_bw_capture_add(c, &v);
        if (!c->gpus_line)
            c->gpus_line = at(r);
    }
    return 1;
}

/* ---- nvbandwidth ---- */

/* What an nvbandwidth test measures, from its name; -1 a test not judged. */
static int nvb_kind(const char *test, const char *title, int *skip)
{
    *skip = 0;
    if (strstr(test, "latency"))
        return starts(test, "host") ? TOPO_BW_HOST_LATENCY : TOPO_BW_P2P_LATENCY;
    if (!strcmp(test, "device_local_copy"))
        return TOPO_BW_LOCAL;
    if (starts(test, "host_to_device_bidirectional") ||
        starts(test, "device_to_host_bidirectional"))
        return TOPO_BW_HOST_BIDIR;
    if (starts(test, "host_to_device"))
        return TOPO_BW_H2D;
    if (starts(test, "device_to_host"))
        return TOPO_BW_D2H;
    if (starts(test, "all_to_host") || starts(test, "host_to_all"))
        return TOPO_BW_HOST_ALL;
    if (strstr(test, "device_to_device_bidirectional")) {
        /* Read1/Read2 (Write1/Write2) are each direction; the total is both */
        *skip = !strstr(title, "Total");
        return TOPO_BW_P2P_BIDIR;
    }
    if (strstr(test, "device_to_device"))
        return TOPO_BW_P2P;
    if (strstr(test, "all_to_one") || strstr(test, "one_to_all"))
        return TOPO_BW_P2P_OTHER;
    return -1;
}

static int nvb_title(const char *s)
{
    return ends(s, "(GB/s)") || ends(s, "(ns)");
}

/* nvbandwidth's text from r (its stream open; closed here) into a capture of node */
static int nvb_parse(struct topo_node *node, struct reader r)
{
    struct topo_bw_capture *c = NULL;
    struct matrix m = { 0 };
    char test[128] = "", version[64] = "", label[32], tool[96], pending_title[160], *s, *line;
    int started = 0, note = 0, rc = -1, kind, nrow = 0, running_line = 0, pending = -1;
    const char *path = r.path;

    c = topo_bw_capture_new(path, "nvbandwidth");
    if (r.broke)
        c->broke = xstrdup(r.broke);
    if (r.corrupt)
        c->corrupt = xstrdup(r.corrupt);
    while ((line = next_line(&r))) {
        s = ry_trim(line);
        if (m.on && !m.header) {
            if ((m.ncols = column_header(s, label, sizeof(label))) < 0) {
                fail(&r, "a matrix's column header (0 1 2 ...) was expected here%s", "", 0);
                goto out;
            }
            m.header = 1;
            nrow = 0;
            continue;
        }
        if (m.on) {
            int got = matrix_row(&r, c, &m, s);
            if (got < 0)
                goto out;
            if (got) {
                nrow++;
                continue;
            }
            if (nrow == 0) {
                fail(&r, "the matrix has no row%s", "", 0);
                goto out;
            }
            m.on = 0;
        }
        if (!*s) {
            note = 0;
            continue;
        }
        if (s[0] == '{') {
            fail(&r,
                 "nvbandwidth's JSON output (--json) after other lines: give the file as "
                 "nvbandwidth wrote it%s",
                 "", 0);
            goto out;
        }
        if (sscanf(s, "nvbandwidth Version: %63s", version) == 1)
            continue;
        if (starts(s, "NOTE:") || starts(s, "***NOTE")) {
            note = 1;
            continue;
        }
        if (note) { /* a note's second line */
            note = 0;
            continue;
        }
        if (starts(s, "Built from Git version") || starts(s, "CUDA Runtime Version") ||
            starts(s, "CUDA Driver Version") || starts(s, "Driver Version") ||
            starts(s, "MPI version") || starts(s, "Current offset") || !strcmp(s, "..."))
            continue;
        {
            int idx = -1, proc = -1;
            char name[200] = "", bus[64];
            const char *p;
            if (sscanf(s, "Device %d: %199[^\n]", &idx, name) == 2 ||
                sscanf(s, "Process %d (%*[^)]): device %*d: %199[^\n]", &proc, name) == 2) {
                if (starts(s, "Process"))
                    idx = proc;
                if (idx < 0 || idx >= MAX_COLS) {
                    fail(&r, "GPU number %s%ld out of range", "", idx);
                    goto out;
                }
                bus[0] = '\0';
                if ((p = strrchr(name, '(')) && ends(name, ")")) {
                    char addr[64];
                    /* nvbandwidth prints the address without its function: "00000000:34:00" */
                    snprintf(addr, sizeof(addr), "%.*s%s", (int)(strlen(p + 1) - 1), p + 1,
                             memchr(p, '.', strlen(p)) ? "" : ".0");
                    if (topo_busid_normalize(addr, bus) == 0)
                        name[p - name] = '\0';
                    else
                        bus[0] = '\0';
                }
                set_model(c, idx, ry_trim(name), bus[0] ? bus : NULL, at(&r));
                started = 1;
                continue;
            }
        }
        if (sscanf(s, "Running %127[^.].", test) == 1) {
            started = 1;
            pending = -1;
            running_line = at(&r);
            continue;
        }
        if (sscanf(s, "Waiving %95[^.].", tool) == 1) {
            topo_bw_capture_waive(c, "%s (line %d)", tool, at(&r));
            started = 1;
            continue;
        }
        if (starts(s, "Invalid value when checking the pattern")) {
            char why[300];
            snprintf(why, sizeof(why),
                     "line %d: the data %s copied differs from the pattern "
                     "written (\"%.80s\")",
                     at(&r), test[0] ? test : "a test", s);
            free(c->corrupt);
            c->corrupt = xstrdup(why);
            continue;
        }
        if (starts(s, "ASSERT in expression") || strstr(s, "Aborted") || strstr(s, "core dumped") ||
            starts(s, "terminate called")) {
            char why[200];
            if (!c->broke) {
                snprintf(why, sizeof(why), "line %d, in %s: %.80s", at(&r),
                         test[0] ? test : "its start", s);
                c->broke = xstrdup(why);
            }
            continue;
        }
        if (starts(s, "SUM ") && pending >= 0) {
            /* a matrix whose 'Running' line was left out of the paste: its SUM line names the
             * test */
            char name[128];
            int skip;
            if (sscanf(s, "SUM %127s", name) == 1 &&
                (kind = nvb_kind(name, pending_title, &skip)) >= 0) {
                free(c->groups[pending]);
                c->groups[pending] = xstrdup(name);
                for (size_t i = 0; i < c->n; i++)
                    if (c->v[i].group == pending)
                        c->v[i].kind = (enum topo_bw_kind)kind;
                pending = -1;
                continue;
            }
        }
        if (starts(s, "SUM ") || starts(s, "COEFFICIENT_OF_VARIATION"))
            continue;
        if (nvb_title(s)) {
            memset(&m, 0, sizeof(m));
            if (!test[0]) {
                /* no test named yet: kept apart until a SUM line names it, else not judged */
                char group[96];
                snprintf(group, sizeof(group), "matrix at line %d", at(&r));
                m.group = pending = topo_bw_capture_group(c, group);
                snprintf(pending_title, sizeof(pending_title), "%s", s);
                kind = ends(s, "(ns)")             ? TOPO_BW_P2P_LATENCY
                       : strstr(s, "local GPU")    ? TOPO_BW_LOCAL
                       : strstr(s, "CPU(row) <->") ? TOPO_BW_HOST_BIDIR
                       : strstr(s, "CPU(row) ->")  ? TOPO_BW_H2D
                       : strstr(s, "CPU(row) <-")  ? TOPO_BW_D2H
                                                   : TOPO_BW_P2P;
            } else if ((kind = nvb_kind(test, s, &m.skip)) < 0)
                m.skip = 1;
            m.on = 1;
            m.kind = kind < 0 ? TOPO_BW_P2P_OTHER : (enum topo_bw_kind)kind;
            m.diag_kind = -1;
            m.sm = ends(test, "_sm") || strstr(test, "_sm_") != NULL;
            m.scale = ends(s, "(ns)") ? 1e-3 : 1;
            m.ax = strstr(s, "CPU(row)") || strstr(s, "local GPU(column)") ? AX_HOST_GPU
                   : strstr(s, "GPU(row) <- GPU(column)")                  ? AX_GPU_GPU_R
                                                                           : AX_GPU_GPU;
            if (m.kind == TOPO_BW_P2P_OTHER)
                m.ax = AX_HOST_GPU; /* one figure per GPU: the one all others copy to or from */
            if (test[0])
                m.group = topo_bw_capture_group(c, test);
            started = 1;
            continue;
        }
        if (!started)
            continue; /* the preamble: a host name, the tool's banner */
        fail(&r, "a line that is not nvbandwidth output: '%.60s'", s, 0);
        goto out;
    }
    if (m.on && !m.header) {
        fail(&r, "the file ends before the matrix's column header%s", "", 0);
        goto out;
    }
    if (m.on && nrow == 0) {
        fail(&r, "the file ends before the matrix's first row%s", "", 0);
        goto out;
    }
    if (test[0] && running_line && c->n == 0 && !c->broke && !c->corrupt && !c->nwaived) {
        fail(&r, "the run of %s printed no matrix", test, 0);
        goto out;
    }
    snprintf(tool, sizeof(tool), "nvbandwidth%s%s", version[0] ? " " : "", version);
    free(c->tool);
    c->tool = xstrdup(tool);
    rc = finish(&r, node, &c, c->n || c->corrupt || c->nwaived || c->broke,
                "no nvbandwidth figure (no 'Running <test>.' line with a matrix)");
out:
    return done(&r, c, rc);
}

int topo_nvbandwidth_read(struct topo_node *node, const char *path, ry_error_t *err)
{
    struct reader r = { .path = path, .err = err };
    struct nvb_json j = { 0 };
    int ch, rc;

    if (!(r.f = fopen(path, "r")))
        return ry_errorf(err, "%s: %s", path, strerror(errno));
    while ((ch = getc(r.f)) != EOF && isspace(ch))
        ;
    if (ch != '{') { /* its text output */
        rewind(r.f);
        return nvb_parse(node, r);
    }
    fclose(r.f);
    /* its JSON output (--json): read as the text it stands for, lines named as in the file */
    if (topo_nvbandwidth_json(path, &j, err) < 0)
        return -1;
    if (!(r.f = fmemopen(j.text, j.len, "r"))) {
        rc = ry_errorf(err, "%s: %s", path, strerror(errno));
        goto out;
    }
    r.map = j.map;
    r.nmap = j.nmap;
    r.broke = j.broke;
    r.corrupt = j.corrupt;
    rc = nvb_parse(node, r);
out:
    topo_nvbandwidth_json_free(&j);
    return rc;
}

/* ---- p2pBandwidthLatencyTest ---- */

static int p2p_title(const char *s, struct matrix *m)
{
    int uni = starts(s, "Unidirectional"), bi = starts(s, "Bidirectional");
    int enabled = strstr(s, "P2P=Enabled") != NULL, disabled = strstr(s, "P2P=Disabled") != NULL;

    memset(m, 0, sizeof(*m));
    m->diag_kind = -1;
    m->scale = 1;
    m->ax = AX_GPU_GPU;
    if (!strcmp(s, "P2P Connectivity Matrix")) {
        m->connectivity = 1;
        return 1;
    }
    if ((uni || bi) && (enabled || disabled) && ends(s, "Matrix (GB/s)")) {
        m->kind = uni ? (enabled ? TOPO_BW_P2P : TOPO_BW_P2P_HOST)
                      : (enabled ? TOPO_BW_P2P_BIDIR : TOPO_BW_P2P_HOST_BIDIR);
        if (uni) /* the diagonal is a copy within the GPU, counted read plus write */
            m->diag_kind = TOPO_BW_LOCAL;
        return 1;
    }
    if ((enabled || disabled) && strstr(s, "Latency") && ends(s, "Matrix (us)")) {
        m->kind = enabled ? TOPO_BW_P2P_LATENCY : TOPO_BW_P2P_HOST_LATENCY;
        return 1;
    }
    return 0;
}

int topo_p2p_bandwidth_read(struct topo_node *node, const char *path, ry_error_t *err)
{
    struct reader r = { .path = path, .err = err };
    struct topo_bw_capture *c;
    struct matrix m = { 0 };
    char label[32], title[160] = "", *s, *line;
    int note = 0, rc = -1, nrow = 0, any = 0;

    if (!(r.f = fopen(path, "r")))
        return ry_errorf(err, "%s: %s", path, strerror(errno));
    c = topo_bw_capture_new(path, "p2pBandwidthLatencyTest");
    while ((line = next_line(&r))) {
        int idx, a, b, dom;
        unsigned bus, dev;
        char name[200], word[16];

        s = ry_trim(line);
        if (m.on == 2) { /* after a blank line in a latency matrix: its CPU block, or the end */
            if (!*s)
                continue;
            if ((m.ncols = column_header(s, label, sizeof(label))) > 0) {
                m.header = 1;
                m.on = 1;
                m.skip = !strcmp(label, "CPU");
                nrow = 0;
                continue;
            }
            m.on = 0;
        }
        if (m.on == 1 && !m.header) {
            if ((m.ncols = column_header(s, label, sizeof(label))) < 0) {
                fail(&r, "a matrix's column header (D\\D 0 1 2 ...) was expected after '%.60s'",
                     title, 0);
                goto out;
            }
            m.header = 1;
            m.skip = !strcmp(label, "CPU"); /* the CPU's own latency, not a GPU path */
            nrow = 0;
            continue;
        }
        if (m.on == 1) {
            int got = matrix_row(&r, c, &m, s);
            if (got < 0)
                goto out;
            if (got) {
                nrow++;
                any = 1;
                continue;
            }
            if (nrow == 0) {
                fail(&r, "the matrix '%.60s' has no row", title, 0);
                goto out;
            }
            if (!*s) { /* a latency matrix's CPU block may follow */
                m.header = 0;
                m.on = 2;
                continue;
            }
            m.on = 0;
        }
        if (!*s) {
            note = 0;
            continue;
        }
        if (banner(s, "P2P (Peer-to-Peer) GPU Bandwidth Latency Test]") || starts(s, "Result =") ||
            banner(s, "./p2pBandwidthLatencyTest]"))
            continue;
        if (starts(s, "NOTE:") || starts(s, "***NOTE")) {
            note = 1;
            continue;
        }
        if (note) {
            note = 0;
            continue;
        }
        if (sscanf(s, "Device: %d, %199[^,], pciBusID: %x, pciDeviceID: %x, pciDomainID:%x", &idx,
                   name, &bus, &dev, &dom) == 5) {
            char addr[32];
            if (idx < 0 || idx >= MAX_COLS) {
                fail(&r, "GPU number %s%ld out of range", "", idx);
                goto out;
            }
            snprintf(addr, sizeof(addr), "%04x:%02x:%02x.0", (unsigned)dom & 0xffff, bus & 0xff,
                     dev & 0x1f);
            set_model(c, idx, ry_trim(name), addr, r.line);
            continue;
        }
        if (sscanf(s, "Device=%d %15s Access Peer Device=%d", &a, word, &b) == 3 &&
            (!strcmp(word, "CAN") || !strcmp(word, "CANNOT"))) {
            if (a < 0 || b < 0 || a >= MAX_COLS || b >= MAX_COLS) {
                fail(&r, "GPU number out of range (0 to %s%ld)", "", MAX_COLS - 1);
                goto out;
            }
            topo_bw_capture_gpu(c, a > b ? a : b);
            c->peer[a * c->ngpus + b] = !strcmp(word, "CAN");
            if (!c->gpus_line)
                c->gpus_line = r.line;
            any = 1;
            continue;
        }
        if (p2p_title(s, &m)) {
            snprintf(title, sizeof(title), "%s", s);
            m.on = 1;
            if (!m.connectivity) {
                char group[160];
                snprintf(group, sizeof(group), "%.*s", (int)(strstr(s, " Matrix") - s), s);
                m.group = topo_bw_capture_group(c, group);
            }
            continue;
        }
        fail(&r, "a line that is not p2pBandwidthLatencyTest output: '%.60s'", s, 0);
        goto out;
    }
    if (m.on == 1 && (!m.header || nrow == 0)) {
        fail(&r, "the file ends inside the matrix '%.60s'", title, 0);
        goto out;
    }
    rc = finish(&r, node, &c, any, "no p2pBandwidthLatencyTest matrix or peer access line");
out:
    return done(&r, c, rc);
}

/* ---- bandwidthTest ---- */

struct bt_best {
    double size, value;
    int line, seen;
};

int topo_bandwidth_test_read(struct topo_node *node, const char *path, ry_error_t *err)
{
    struct reader r = { .path = path, .err = err };
    struct topo_bw_capture *c;
    struct bt_best best[3] = { { 0 } }; /* H2D, D2H, D2D, pinned memory */
    char *s, *line, name[200];
    int dir = -1, pinned = 1, note = 0, rc = -1, device = 0, ndev;
    double scale = 1;

    if (!(r.f = fopen(path, "r")))
        return ry_errorf(err, "%s: %s", path, strerror(errno));
    c = topo_bw_capture_new(path, "bandwidthTest");
    while ((line = next_line(&r))) {
        double size, v;
        char unit[8], d[8], mem[16];
        int csv;

        s = ry_trim(line);
        /* a note's second line is passed over, blank or not; a blank line elsewhere is a line of
         * no character that is not a dot */
        if (starts(s, "NOTE:")) {
            note = 1;
            continue;
        }
        if (note) {
            note = 0;
            continue;
        }
        if (banner(s, "CUDA Bandwidth Test]") || !strcmp(s, "Running on...") || ends(s, " Mode") ||
            starts(s, "Result =") || strspn(s, ".") == strlen(s))
            continue;
        if (sscanf(s, "Device %d: %199[^\n]", &device, name) == 2) {
            if (device < 0 || device >= MAX_COLS) {
                fail(&r, "GPU number %s%ld out of range", "", device);
                goto out;
            }
            set_model(c, device, ry_trim(name), NULL, r.line);
            continue;
        }
        if (sscanf(s, "Host to Device Bandwidth, %d Device", &ndev) == 1 ||
            sscanf(s, "Device to Host Bandwidth, %d Device", &ndev) == 1 ||
            sscanf(s, "Device to Device Bandwidth, %d Device", &ndev) == 1) {
            dir = starts(s, "Host") ? 0 : starts(s, "Device to Host") ? 1 : 2;
            if (ndev != 1) {
                fail(&r,
                     "figures summed over %s%ld devices are not judged: run bandwidthTest "
                     "once per device",
                     "", ndev);
                goto out;
            }
            continue;
        }
        if (starts(s, "PINNED Memory") || starts(s, "PAGEABLE Memory")) {
            pinned = starts(s, "PINNED");
            continue;
        }
        if (starts(s, "Transfer Size (Bytes)")) {
            if (strstr(s, "(GB/s)"))
                scale = 1;
            else if (strstr(s, "(MB/s)"))
                scale = 1e-3;
            else {
                fail(&r, "a bandwidth unit other than GB/s or MB/s%s", "", 0);
                goto out;
            }
            continue;
        }
        /* the CSV lines: H2D and D2H name the host memory (-Pinned, -Paged), D2D has none */
        csv =
            sscanf(s, "bandwidthTest-%7[^-]-%15[^,], Bandwidth = %lf %7s Time = %*f s, Size = %lf",
                   d, mem, &v, unit, &size) == 5;
        if (!csv && sscanf(s, "bandwidthTest-D2D, Bandwidth = %lf %7s Time = %*f s, Size = %lf", &v,
                           unit, &size) == 3) {
            snprintf(d, sizeof(d), "D2D");
            mem[0] = '\0';
            csv = 1;
        }
        if (csv) {
            int k = !strcmp(d, "H2D") ? 0 : !strcmp(d, "D2H") ? 1 : !strcmp(d, "D2D") ? 2 : -1;
            double sc = starts(unit, "GB/s") ? 1 : starts(unit, "MB/s") ? 1e-3 : -1;
            if (k < 0 || sc < 0) {
                fail(&r, "unknown direction or unit in '%.60s'", s, 0);
                goto out;
            }
            if (strcmp(mem, "Pinned") && k != 2)
                continue; /* pageable memory measures the host's copies, not the link */
            if (size >= best[k].size) {
                best[k] = (struct bt_best){ size, v * sc, r.line, 1 };
            }
            continue;
        }
        if (sscanf(s, "%lf %lf%c", &size, &v, unit) == 2) {
            if (dir < 0) {
                fail(&r, "a figure before its 'Host to Device' (or other) heading%s", "", 0);
                goto out;
            }
            if ((pinned || dir == 2) && size >= best[dir].size)
                best[dir] = (struct bt_best){ size, v * scale, r.line, 1 };
            continue;
        }
        fail(&r, "a line that is not bandwidthTest output: '%.60s'", s, 0);
        goto out;
    }
    for (int k = 0; k < 3; k++) {
        static const char *const names[] = { "host to device, pinned", "device to host, pinned",
                                             "device to device" };
        static const enum topo_bw_kind kinds[] = { TOPO_BW_H2D, TOPO_BW_D2H, TOPO_BW_LOCAL };
        struct topo_bw v = { .kind = kinds[k], .a = device, .b = -1, .counts_rw = k == 2 };
        if (!best[k].seen)
            continue;
        v.value = best[k].value;
        v.line = best[k].line;
        v.group = topo_bw_capture_group(c, names[k]);
        topo_bw_capture_add(c, &v);
    }
    rc = finish(&r, node, &c, c->n > 0, "no bandwidthTest figure");
out:
    return done(&r, c, rc);
}
