#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "readers/gpubw_json.h"

/* Where things are in the file: jansson keeps no positions, so the raw text is walked for the
 * lines of the keys "name" and "bandwidth_matrix" and of each matrix row. nvbandwidth writes
 * one object per test case with its keys in order, so the k-th of each key belongs to the k-th
 * test case that has it. */
struct places {
    int *name, nname;     /* line of each "name" key */
    int *matrix, nmatrix; /* line of each "bandwidth_matrix" key */
    int **row, *nrow;     /* per matrix: the line each row opens on */
    size_t name_alloc, matrix_alloc;
};

static void places_free(struct places *p)
{
    for (int i = 0; i < p->nmatrix; i++)
        free(p->row[i]);
    free(p->row);
    free(p->nrow);
    free(p->name);
    free(p->matrix);
}

static void find_places(const char *s, size_t len, struct places *p)
{
    int line = 1, depth = 0, in_matrix = -1, matrix_depth = 0;
    size_t row_alloc = 0;

    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (ch == '\n') {
            line++;
        } else if (ch == '"') {
            size_t start = ++i, k;
            while (i < len && s[i] != '"') {
                if (s[i] == '\\' && i + 1 < len)
                    i++;
                else if (s[i] == '\n')
                    line++;
                i++;
            }
            /* a key: the string is followed by ':' */
            for (k = i + 1; k < len && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'); k++)
                ;
            if (k >= len || s[k] != ':')
                continue;
            if (i - start == 4 && !memcmp(s + start, "name", 4)) {
                xgrow(&p->name, &p->name_alloc, (size_t)p->nname + 1, sizeof(*p->name));
                p->name[p->nname++] = line;
            } else if (i - start == 16 && !memcmp(s + start, "bandwidth_matrix", 16)) {
                size_t n = (size_t)p->nmatrix + 1;
                xgrow(&p->matrix, &p->matrix_alloc, n, sizeof(*p->matrix));
                p->row = xrealloc(p->row, n * sizeof(*p->row));
                p->nrow = xrealloc(p->nrow, n * sizeof(*p->nrow));
                p->matrix[p->nmatrix] = line;
                p->row[p->nmatrix] = NULL;
                p->nrow[p->nmatrix] = 0;
                in_matrix = p->nmatrix++;
                matrix_depth = depth + 1; /* the '[' that follows opens it */
                row_alloc = 0;
            }
        } else if (ch == '[' || ch == '{') {
            depth++;
            if (ch == '[' && in_matrix >= 0 && depth == matrix_depth + 1) {
                xgrow(&p->row[in_matrix], &row_alloc, (size_t)p->nrow[in_matrix] + 1,
                      sizeof(**p->row));
                p->row[in_matrix][p->nrow[in_matrix]++] = line;
            }
        } else if (ch == ']' || ch == '}') {
            depth--;
            if (in_matrix >= 0 && depth < matrix_depth)
                in_matrix = -1;
        }
    }
}

/* ---- the text ---- */

struct out {
    FILE *fp;
    int **map;
    int *nmap;
    size_t alloc;
};

/* one text line standing for line `at` of the file */
static void put(struct out *o, int at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(struct out *o, int at, const char *fmt, ...)
{
    va_list ap;

    /* text line numbers start at 1, as the reader counts them */
    xgrow(o->map, &o->alloc, (size_t)*o->nmap + 2, sizeof(**o->map));
    if (*o->nmap == 0)
        (*o->map)[(*o->nmap)++] = 0;
    (*o->map)[(*o->nmap)++] = at > 0 ? at : 1;
    va_start(ap, fmt);
    vfprintf(o->fp, fmt, ap);
    va_end(ap);
    fputc('\n', o->fp);
}

static int bad(ry_error_t *err, const char *path, int line, const char *fmt, const char *a,
               size_t k)
{
    char what[300];

    snprintf(what, sizeof(what), fmt, a, k);
    errno = EINVAL;
    if (line > 0)
        return ry_errorf(err, "%s:%d: %s", path, line, what);
    return ry_errorf(err, "%s: %s", path, what);
}

/* a cell as the text output prints it: a number, or N/A; NULL when it is neither */
static const char *cell_text(json_t *v, char *buf, size_t len)
{
    const char *s;

    if (json_is_number(v)) {
        snprintf(buf, len, "%.17g", json_number_value(v));
        return buf;
    }
    if (!json_is_string(v))
        return NULL;
    s = json_string_value(v);
    if (!*s || strlen(s) >= len || strpbrk(s, " \t\r\n"))
        return NULL;
    snprintf(buf, len, "%s", s);
    return buf;
}

int topo_nvbandwidth_json(const char *path, struct nvb_json *j, ry_error_t *err)
{
    struct places pl = { 0 };
    struct out o = { 0 };
    json_error_t jerr;
    json_t *root = NULL, *nvb, *cases, *tc;
    char *raw = NULL, cellbuf[64], why[400];
    size_t rawlen, k;
    int rc = -1, nmat = 0;

    memset(j, 0, sizeof(*j));
    if (ry_read_file(path, &raw, &rawlen, err) < 0)
        return -1;
    if (!(root = json_loadb(raw, rawlen, JSON_REJECT_DUPLICATES, &jerr))) {
        errno = EINVAL;
        ry_errorf(err, "%s:%d:%d: not JSON: %s", path, jerr.line, jerr.column, jerr.text);
        goto out;
    }
    find_places(raw, rawlen, &pl);
    nvb = json_object_get(root, "nvbandwidth");
    if (!json_is_object(nvb)) {
        bad(err, path, 1,
            "JSON without an \"nvbandwidth\" object: not nvbandwidth's --json output%s", "", 0);
        goto out;
    }
    cases = json_object_get(nvb, "testcases");
    if (cases && !json_is_array(cases)) {
        bad(err, path, 0, "nvbandwidth.testcases is not an array%s", "", 0);
        goto out;
    }
    if (json_is_string(json_object_get(nvb, "error")))
        snprintf(why, sizeof(why), "the run's error: %.200s",
                 json_string_value(json_object_get(nvb, "error")));
    else
        why[0] = '\0';
    if (why[0])
        j->broke = xstrdup(why);

    o.map = &j->map;
    o.nmap = &j->nmap;
    if (!(o.fp = open_memstream(&j->text, &j->len))) {
        ry_errorf(err, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (json_is_string(json_object_get(nvb, "version")))
        put(&o, 1, "nvbandwidth Version: %s", json_string_value(json_object_get(nvb, "version")));
    json_array_foreach(cases, k, tc)
    {
        json_t *name = json_object_get(tc, "name"), *status = json_object_get(tc, "status");
        json_t *desc = json_object_get(tc, "bandwidth_description");
        json_t *mat = json_object_get(tc, "bandwidth_matrix"), *row, *cellv, *e;
        int name_line = k < (size_t)pl.nname ? pl.name[k] : 0, mat_line = 0;
        const char *n, *st;
        size_t r, c;

        if (!json_is_object(tc) || !json_is_string(name) || !*json_string_value(name)) {
            bad(err, path, name_line, "nvbandwidth.testcases[%s%zu] has no name", "", k);
            goto out;
        }
        n = json_string_value(name);
        if (strpbrk(n, " \t\r\n.")) {
            bad(err, path, name_line,
                "test case name '%.60s' is not a test's name (testcases[%zu])", n, k);
            goto out;
        }
        st = json_is_string(status) ? json_string_value(status) : "";
        if (!strcmp(st, "Not Found"))
            continue; /* a test asked for by a name nvbandwidth does not know */
        put(&o, name_line, "Running %s.", n);
        if (!strcmp(st, "Waived"))
            put(&o, name_line, "Waiving %s.", n);
        e = json_object_get(tc, "error");
        if ((json_is_string(e) || !strcmp(st, "Error") || !strcmp(st, "Running")) && !j->broke) {
            const char *msg = json_is_string(e)        ? json_string_value(e)
                              : !strcmp(st, "Running") ? "it never finished"
                                                       : "status Error";
            if (strstr(msg, "Invalid value when checking the pattern")) {
                snprintf(why, sizeof(why),
                         "line %d: the data %s copied differs from the pattern "
                         "written (\"%.80s\")",
                         name_line, n, msg);
                free(j->corrupt);
                j->corrupt = xstrdup(why);
            } else {
                snprintf(why, sizeof(why), "line %d, in %s: %.120s", name_line, n, msg);
                j->broke = xstrdup(why);
            }
        }
        if (!mat)
            continue;
        if (nmat < pl.nmatrix)
            mat_line = pl.matrix[nmat];
        if (!json_is_array(mat) || json_array_size(mat) == 0) {
            bad(err, path, mat_line, "%s: bandwidth_matrix is not an array of rows", n, 0);
            goto out;
        }
        if (!json_is_string(desc) || strchr(json_string_value(desc), '\n')) {
            bad(err, path, mat_line,
                "%s: a bandwidth_matrix without its bandwidth_description (what its rows and "
                "columns are)",
                n, 0);
            goto out;
        }
        put(&o, mat_line, "%s", json_string_value(desc));
        /* the column header: as many GPUs as the first row has cells */
        row = json_array_get(mat, 0);
        if (!json_is_array(row)) {
            bad(err, path, mat_line, "%s: a matrix row that is not an array", n, 0);
            goto out;
        }
        {
            char hdr[4096];
            size_t hl = 0;
            hdr[0] = '\0';
            for (c = 0; c < json_array_size(row) && hl < sizeof(hdr) - 16; c++)
                hl += (size_t)snprintf(hdr + hl, sizeof(hdr) - hl, "%s%zu", c ? " " : "", c);
            put(&o, mat_line, "%s", hdr);
        }
        json_array_foreach(mat, r, row)
        {
            int rl = nmat < pl.nmatrix && r < (size_t)pl.nrow[nmat] ? pl.row[nmat][r] : mat_line;
            if (!json_is_array(row)) {
                bad(err, path, rl, "%s: a matrix row that is not an array (row %zu)", n, r);
                goto out;
            }
            fprintf(o.fp, "%zu", r);
            json_array_foreach(row, c, cellv)
            {
                if (!cell_text(cellv, cellbuf, sizeof(cellbuf))) {
                    bad(err, path, rl, "%s: a cell that is neither a number nor N/A (row %zu)", n,
                        r);
                    goto out;
                }
                fprintf(o.fp, " %s", cellbuf);
            }
            put(&o, rl, "%s", "");
        }
        nmat++;
    }
    if (fflush(o.fp) != 0) {
        ry_errorf(err, "%s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (o.fp)
        fclose(o.fp);
    if (rc < 0)
        topo_nvbandwidth_json_free(j);
    places_free(&pl);
    json_decref(root);
    free(raw);
    return rc;
}

void topo_nvbandwidth_json_free(struct nvb_json *j)
{
    free(j->text);
    free(j->map);
    free(j->broke);
    free(j->corrupt);
    memset(j, 0, sizeof(*j));
}
