#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "reports/archive.h"
#include "reports/history.h"
#include "reports/out.h"
#include "reports/render.h"

const char *ry_archive_default(void)
{
    const char *env = getenv("RAILYARD_ARCHIVE");

    if (env)
        return *env && strcmp(env, "none") ? env : NULL;
    return geteuid() == 0 ? RY_ARCHIVE_DEFAULT : NULL;
}

static int fill_cmdline(FILE *fp, void *arg, ry_error_t *err)
{
    (void)err;
    fprintf(fp, "%s\n", ((const struct ry_archive *)arg)->command);
    return 0;
}

static int fill_copy(FILE *fp, void *arg, ry_error_t *err)
{
    char *buf;
    size_t len;

    if (ry_read_file(arg, &buf, &len, err) < 0)
        return -1;
    fwrite(buf, 1, len, fp);
    free(buf);
    return 0;
}

/* a host name as it may appear in a directory name */
static void safe_name(const char *in, char *out, size_t len)
{
    size_t n = 0;

    for (; in && *in && n + 1 < len; in++)
        out[n++] =
            (char)((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') ||
                           (*in >= '0' && *in <= '9') || *in == '-' || *in == '.' || *in == '_'
                       ? *in
                       : '_');
    if (!n)
        out[n++] = '_';
    out[n] = '\0';
}

static int readable_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

int ry_run_dir_init(struct ry_archive *a, const char *dir, const char *tool, int argc, char **argv,
                    const char *map, ry_error_t *err)
{
    size_t used = 0;

    a->started = time(NULL);
    snprintf(a->tool, sizeof(a->tool), "%s", tool);
    for (int i = 0; i < argc && used < sizeof(a->command); i++)
        used += (size_t)snprintf(a->command + used, sizeof(a->command) - used, "%s%s", i ? " " : "",
                                 argv[i]);
    if (snprintf(a->dir, sizeof(a->dir), "%s", dir) >= (int)sizeof(a->dir))
        return ry_errorf(err, "%s: path too long", dir);
    if (ry_mkdirs(a->dir) < 0)
        return ry_errorf(err, "cannot create %s: %s", a->dir, strerror(errno));
    if (ry_archive_write(a, "cmdline", fill_cmdline, a, err) < 0)
        return -1;
    /* a map that cannot be read is the run's own error, said by the command and kept in the
     * run's report: the run is archived without its copy */
    if (map && readable_file(map) &&
        ry_archive_write(a, "map.yaml", fill_copy, (void *)map, err) < 0)
        return -1;
    return 0;
}

int ry_archive_create(struct ry_archive *a, const char *root, const char *tool, const char *host,
                      int argc, char **argv, const char *map, ry_error_t *err)
{
    char day[16], stamp[32], h[64], dir[PATH_MAX];
    time_t now = time(NULL);
    struct tm tm;

    memset(a, 0, sizeof(*a));
    gmtime_r(&now, &tm);
    strftime(day, sizeof(day), "%Y-%m-%d", &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
    safe_name(host, h, sizeof(h));
    snprintf(a->root, sizeof(a->root), "%s", root);
    snprintf(a->id, sizeof(a->id), "%s-%s-%s-%ld", stamp, h, tool, (long)getpid());
    if (snprintf(dir, sizeof(dir), "%s/%s/%s", root, day, a->id) >= (int)sizeof(dir))
        return ry_errorf(err, "archive %s: path too long", root);
    if (ry_run_dir_init(a, dir, tool, argc, argv, map, err) < 0) {
        /* the run's own folder (its name is this process's): nothing half-made is left */
        int e = errno;
        ry_rm_tree(dir);
        errno = e;
        return -1;
    }
    return 0;
}

void ry_iso_time(time_t t, char *buf, size_t len)
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void ry_archive_print_run(struct out *o, const struct ry_archive *a, int done)
{
    char self[256] = "", t0[32], t1[32];
    time_t now = time(NULL);

    if (gethostname(self, sizeof(self) - 1) < 0)
        self[0] = '\0';
    ry_iso_time(a->started, t0, sizeof(t0));
    ry_iso_time(now, t1, sizeof(t1));
    out_obj_open(o, "run");
    out_str(o, "id", NULL, a->id);
    out_str(o, "tool", NULL, a->tool);
    out_str(o, "host", NULL, self);
    out_str(o, "command", NULL, a->command);
    out_str(o, "started", NULL, t0);
    out_int(o, "started_unix", NULL, (long long)a->started);
    out_str(o, "finished", NULL, done ? t1 : NULL);
    out_int_opt(o, "finished_unix", NULL, (long long)now, done);
    out_bool(o, "complete", NULL, done);
    out_str(o, "dir", NULL, a->dir);
    out_obj_close(o);
}

int ry_archive_write(const struct ry_archive *a, const char *name,
                     int (*fill)(FILE *fp, void *arg, ry_error_t *err), void *arg, ry_error_t *err)
{
    char path[PATH_MAX + 64];

    snprintf(path, sizeof(path), "%s/%s", a->dir, name);
    return ry_write_atomic(path, fill, arg, err);
}

struct stub_arg {
    const struct ry_archive *a;
    int schema;
    const char *node, *error;
};

void ry_report_error(struct out *o, int schema, const char *command, const char *node,
                     const char *error)
{
    out_int(o, "schema_version", NULL, schema);
    out_str(o, "tool", NULL, "railyard");
    if (command)
        out_str(o, "command", NULL, command);
    out_str(o, "version", NULL, PACKAGE_VERSION);
    if (node)
        out_str(o, "node", NULL, node);
    out_arr_open(o, "findings");
    out_arr_close(o);
    out_obj_open(o, "summary");
    out_int(o, "fail", NULL, 0);
    out_int(o, "warn", NULL, 0);
    out_int(o, "ok", NULL, 0);
    out_obj_close(o);
    out_str(o, "verdict", NULL, "error");
    out_str(o, "error", NULL, error);
}

static int fill_stub(FILE *fp, void *arg, ry_error_t *err)
{
    const struct stub_arg *x = arg;
    struct out *o = out_create(fp, OUT_JSON, err);
    int rc;

    if (!o)
        return -1;
    ry_report_error(o, x->schema, NULL, x->node,
                    x->error ? x->error : "the run did not finish (a signal, or its deadline)");
    ry_archive_print_run(o, x->a, x->error != NULL);
    rc = out_finish(o, err);
    out_destroy(o);
    return rc;
}

static int write_stub(const struct ry_archive *a, int schema, const char *node, const char *error,
                      ry_error_t *err)
{
    struct stub_arg x = { a, schema, node, error };

    return ry_archive_write(a, "report.json", fill_stub, &x, err);
}

int ry_archive_start(struct ry_archive *a, const char *root, const char *tool, const char *name,
                     int argc, char **argv, const char *map, int schema, const char *node,
                     ry_error_t *err)
{
    ry_error_t e;

    if (ry_archive_create(a, root, tool, name, argc, argv, map, err) < 0 ||
        write_stub(a, schema, node, NULL, err) < 0)
        return -1;
    ry_archive_record(a, &e); /* a history row now: a run cut short is listed too */
    return 0;
}

int ry_archive_fail(const struct ry_archive *a, int schema, const char *node, const char *error,
                    ry_error_t *err)
{
    if (write_stub(a, schema, node, error, err) < 0)
        return -1;
    return ry_archive_record(a, err);
}

static int fill_document(FILE *fp, void *arg, ry_error_t *err)
{
    return out_dump_json(arg, fp, err);
}

int ry_archive_done(const struct ry_archive *a, struct out *o, int keep, const char *prometheus,
                    const char *junit, ry_error_t *err)
{
    ry_archive_print_run(o, a, 1);
    if (ry_archive_write(a, "report.json", fill_document, o, err) < 0)
        return -1;
    return ry_archive_finish(a, keep, 0, prometheus, junit, err);
}

/* ---- listing: runs are <root>/<YYYY-MM-DD>/<id>, and ids sort by time ---- */

struct run {
    char day[16];
    char id[200];
};

static int is_day(const char *s)
{
    int y, m, d;
    char c;
    return strlen(s) == 10 && sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &c) == 3;
}

static int run_cmp(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : strcmp(x->day, y->day);
}

/* every run under root, oldest first; *n runs (free the array) */
static struct run *list_runs(const char *root, size_t *n, ry_error_t *err)
{
    struct run *v = NULL;
    size_t alloc = 0;
    DIR *d = opendir(root), *dd;
    struct dirent *e, *f;

    *n = 0;
    if (!d) {
        ry_errorf(err, "archive %s: %s", root, strerror(errno));
        return NULL;
    }
    while ((e = readdir(d))) {
        char path[PATH_MAX];
        if (!is_day(e->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
        if (!(dd = opendir(path)))
            continue;
        while ((f = readdir(dd))) {
            if (f->d_name[0] == '.' || strlen(f->d_name) >= sizeof(v->id))
                continue;
            if (*n == alloc) {
                alloc = alloc ? alloc * 2 : 64;
                v = xrealloc(v, alloc * sizeof(*v));
            }
            snprintf(v[*n].day, sizeof(v[*n].day), "%s", e->d_name);
            snprintf(v[*n].id, sizeof(v[*n].id), "%s", f->d_name);
            (*n)++;
        }
        closedir(dd);
    }
    closedir(d);
    if (*n)
        qsort(v, *n, sizeof(*v), run_cmp);
    return v ? v : xcalloc(1, sizeof(*v));
}

/* a run directory railyard wrote: report.json or cmdline in it, and nothing but files */
static int is_run_dir(const char *dir)
{
    char p[PATH_MAX + 512];
    struct stat st;

    snprintf(p, sizeof(p), "%s/report.json", dir);
    if (stat(p, &st) == 0)
        return 1;
    snprintf(p, sizeof(p), "%s/cmdline", dir);
    return stat(p, &st) == 0;
}

int ry_archive_prune(const char *root, int keep, int max_age_days, ry_error_t *err)
{
    size_t n;
    struct run *v = list_runs(root, &n, err);
    time_t cutoff = time(NULL) - (time_t)max_age_days * 86400;
    char cut[16];
    struct tm tm;
    int removed = 0;

    if (!v)
        return -1;
    gmtime_r(&cutoff, &tm);
    strftime(cut, sizeof(cut), "%Y-%m-%d", &tm);
    for (size_t i = 0; keep >= 0 && i + (size_t)keep < n; i++) {
        char dir[PATH_MAX + 256], daydir[PATH_MAX + 32];
        if (max_age_days > 0 && strcmp(v[i].day, cut) >= 0)
            continue; /* young enough to keep */
        snprintf(dir, sizeof(dir), "%s/%s/%s", root, v[i].day, v[i].id);
        if (!is_run_dir(dir))
            continue;
        ry_rm_tree(dir);
        removed++;
        snprintf(daydir, sizeof(daydir), "%s/%s", root, v[i].day);
        rmdir(daydir); /* only when empty */
    }
    free(v);
    return removed;
}

int ry_archive_find(const char *root, const char *run, char *dir, size_t len, ry_error_t *err)
{
    struct stat st;
    size_t n;
    struct run *v;
    int found = -1;

    if (strchr(run, '/')) { /* a directory */
        if (stat(run, &st) < 0 || !S_ISDIR(st.st_mode))
            return ry_errorf(err, "%s: not a run directory", run);
        snprintf(dir, len, "%s", run);
        return 0;
    }
    if (!(v = list_runs(root, &n, err)))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].id, run) || (!strcmp(run, "latest") && i + 1 == n))
            found = (int)i;
    if (found >= 0)
        snprintf(dir, len, "%s/%s/%s", root, v[found].day, v[found].id);
    else
        ry_errorf(err, "no run '%s' in the archive %s (%zu runs)", run, root, n);
    free(v);
    return found >= 0 ? 0 : -1;
}

/* ---- rendering and history ---- */

struct render_arg {
    const struct ry_report *r;
    const char *format, *inventory, *fabric;
};

/* The report.json of the archive's newest `railyard fabric` (InfiniBand) run, whose cabling
 * names the leaf of every port in railyard-fabric's rail diagram: 0 with path, -1 none. */
static int newest_ib_report(const char *root, char *path, size_t len)
{
    ry_error_t e;
    size_t n;
    struct run *v = list_runs(root, &n, &e);
    struct stat st;
    int found = -1;

    for (size_t i = n; v && found < 0 && i-- > 0;) {
        size_t l = strlen(v[i].id);
        const char *ib = strstr(v[i].id, "-ib-");
        if (!ib || strspn(ib + 4, "0123456789") != l - (size_t)(ib + 4 - v[i].id))
            continue;
        snprintf(path, len, "%s/%s/%s/report.json", root, v[i].day, v[i].id);
        if (stat(path, &st) == 0)
            found = 0;
    }
    free(v);
    return found;
}

static int fill_render(FILE *fp, void *arg, ry_error_t *err)
{
    const struct render_arg *x = arg;

    if (!strcmp(x->format, "junit"))
        return ry_render_junit(x->r, fp, err);
    if (!strcmp(x->format, "prometheus"))
        return ry_render_prometheus(x->r, fp, err);
    if (!strcmp(x->format, "html"))
        return ry_render_html(x->r, x->inventory, x->fabric, fp, err);
    if (!strcmp(x->format, "text"))
        return ry_render_text(x->r, fp, err);
    return ry_errorf(err, "unknown format '%s' (json, text, junit, prometheus, html)", x->format);
}

/* the archive a run directory is in (<root>/<YYYY-MM-DD>/<id>): 0 with root, -1 none */
static int archive_root_of(const char *dir, char *root, size_t len)
{
    char *slash;
    size_t l;

    snprintf(root, len, "%s", dir);
    for (l = strlen(root); l > 1 && root[l - 1] == '/'; l--)
        root[l - 1] = '\0';
    if (!(slash = strrchr(root, '/')))
        return -1;
    *slash = '\0'; /* <root>/<day> */
    if (!(slash = strrchr(root, '/')) || !is_day(slash + 1))
        return -1;
    *slash = '\0';
    if (!root[0])
        snprintf(root, len, "/");
    return 0;
}

int ry_archive_render(const char *dir, const char *format, FILE *fp, ry_error_t *err)
{
    char path[PATH_MAX + 32], inv[PATH_MAX + 32], fab[PATH_MAX + 512], root[PATH_MAX];
    struct ry_report *r;
    struct render_arg x;
    struct stat st;
    int rc;

    snprintf(path, sizeof(path), "%s/report.json", dir);
    snprintf(inv, sizeof(inv), "%s/inventory.json", dir);
    if (!strcmp(format, "json")) {
        char *buf;
        size_t len;
        /* validated first: a damaged report is an error, not output */
        if (!(r = ry_report_load(path, err)))
            return -1;
        ry_report_free(r);
        if (ry_read_file(path, &buf, &len, err) < 0)
            return -1;
        /* as archived, but for what a terminal would act on: JSON keeps C0 controls escaped,
         * and DEL and the C1 controls (U+0080..U+009F, which the loader found only inside
         * strings) are written as \u escapes, the same text to a JSON reader */
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)buf[i];
            if (c == 0x7f)
                fputs("\\u007f", fp);
            else if (c == 0xc2 && i + 1 < len && (unsigned char)buf[i + 1] >= 0x80 &&
                     (unsigned char)buf[i + 1] <= 0x9f)
                fprintf(fp, "\\u%04x", (unsigned char)buf[++i]);
            else
                putc(c, fp);
        }
        free(buf);
        return ferror(fp) ? ry_errorf(err, "cannot write: %s", strerror(errno)) : 0;
    }
    if (!(r = ry_report_load(path, err)))
        return -1;
    x.r = r;
    x.format = format;
    x.inventory = stat(inv, &st) == 0 ? inv : NULL;
    x.fabric = NULL;
    if (!strcmp(ry_report_tool(r), "fabric") && archive_root_of(dir, root, sizeof(root)) == 0 &&
        newest_ib_report(root, fab, sizeof(fab)) == 0)
        x.fabric = fab;
    rc = fill_render(fp, &x, err);
    ry_report_free(r);
    return rc;
}

int ry_archive_record(const struct ry_archive *a, ry_error_t *err)
{
    char path[PATH_MAX + 32];
    struct ry_report *r;
    int rc;

    snprintf(path, sizeof(path), "%s/report.json", a->dir);
    if (!(r = ry_report_load(path, err)))
        return -1;
    rc = ry_history_record(a->root, a->id, a->dir, r, err);
    ry_report_free(r);
    return rc;
}

static int copy_to(const char *from, const char *to, ry_error_t *err)
{
    return ry_write_atomic(to, fill_copy, (void *)from, err);
}

/* junit.xml, metrics.prom and report.html of the run in dir from its parsed report (root: its
 * archive, for the cabling of railyard-fabric's rail diagram; NULL none): the number written */
static int render_files(const char *dir, const char *root, const struct ry_report *r)
{
    static const struct {
        const char *format, *file;
    } outs[] = { { "junit", "junit.xml" },
                 { "prometheus", "metrics.prom" },
                 { "html", "report.html" } };
    char inv[PATH_MAX + 32], fab[PATH_MAX + 512];
    struct ry_archive at;
    struct stat st;
    ry_error_t e;
    int n = 0;

    memset(&at, 0, sizeof(at));
    snprintf(at.dir, sizeof(at.dir), "%s", dir);
    snprintf(inv, sizeof(inv), "%s/inventory.json", dir);
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
        struct render_arg x = { r, outs[i].format, stat(inv, &st) == 0 ? inv : NULL, NULL };
        if (root && !strcmp(ry_report_tool(r), "fabric") && !strcmp(outs[i].file, "report.html") &&
            newest_ib_report(root, fab, sizeof(fab)) == 0)
            x.fabric = fab;
        /* a format this build cannot render is left out; asked-for copies then fail */
        n += ry_archive_write(&at, outs[i].file, fill_render, &x, &e) == 0;
    }
    return n;
}

int ry_archive_rerender(const char *dir, ry_error_t *err)
{
    char path[PATH_MAX + 32], root[PATH_MAX];
    struct ry_report *r;
    int n;

    snprintf(path, sizeof(path), "%s/report.json", dir);
    if (!(r = ry_report_load(path, err)))
        return -1;
    n = render_files(dir, archive_root_of(dir, root, sizeof(root)) == 0 ? root : NULL, r);
    ry_report_free(r);
    return n;
}

int ry_archive_finish(const struct ry_archive *a, int keep, int max_age_days,
                      const char *prometheus, const char *junit, ry_error_t *err)
{
    char path[PATH_MAX + 32], out[PATH_MAX + 32];
    struct ry_report *r;
    ry_error_t e;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/report.json", a->dir);
    if (!(r = ry_report_load(path, err)))
        return -1;
    render_files(a->dir, a->root, r);
    snprintf(out, sizeof(out), "%s/metrics.prom", a->dir);
    if (prometheus && copy_to(out, prometheus, err) < 0)
        rc = -1;
    snprintf(out, sizeof(out), "%s/junit.xml", a->dir);
    if (junit && rc == 0 && copy_to(out, junit, err) < 0)
        rc = -1;
    if (rc == 0 && ry_history_record(a->root, a->id, a->dir, r, &e) < 0 && errno != ENOSYS &&
        !strstr(e.text, "built without")) {
        ry_errorf(err, "history: %s", e.text);
        rc = -1;
    }
    if (keep > 0 && ry_archive_prune(a->root, keep, max_age_days, &e) > 0)
        ry_history_forget_missing(a->root, &e);
    ry_report_free(r);
    return rc;
}
