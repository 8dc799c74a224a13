#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_JANSSON
#include <jansson.h>

#include "reports/render_json.h"
#endif

#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "reports/render.h"
#include "top/source.h"
#include "top/test.h"

/* The console's active test (railyard-top(1), ACTIVE TEST): a command the admin gives (a
 * railyard-fabric run of one pair, through srun, mpirun or the demo cluster) runs in the
 * background for the selected port and a peer; its JSON is read when it ends and the link of
 * the port's rail is shown, while the screen keeps refreshing. */

void top_test_init(struct top_test *t)
{
    memset(t, 0, sizeof(*t));
    t->pid = -1;
    t->fd = -1;
}

int top_test_running(const struct top_test *t)
{
    return t->pid > 0;
}

struct peer_pick {
    const char *self, *after;
    char first[TOP_NAME], next[TOP_NAME];
};

static int pick(const char *host, void *ctx)
{
    struct peer_pick *p = ctx;

    if (!strcmp(host, p->self))
        return 0;
    if (!p->first[0])
        snprintf(p->first, sizeof(p->first), "%s", host);
    if (!p->next[0] && strverscmp(host, p->after) > 0)
        snprintf(p->next, sizeof(p->next), "%s", host);
    return 0;
}

int top_test_peer(const struct top_model *m, const struct topo_map *map, const struct top_port *p,
                  char *peer, size_t len)
{
    struct peer_pick k = { p->node, p->node, "", "" };
    ry_error_t err;

    /* the next node (natural order) with a port on the same rail, else the map's next host */
    for (size_t i = 0; i < m->n; i++)
        if (m->p[i].rail == p->rail && p->rail >= 0)
            pick(m->p[i].node, &k);
    for (size_t i = 0; map && !k.first[0] && i < map->nnodes; i++)
        ry_hostlist_expand(map->nodes[i].hostlist, pick, &k, &err);
    if (!k.first[0])
        return -1;
    snprintf(peer, len, "%s", k.next[0] ? k.next : k.first);
    return 0;
}

/* The command: the template, each {name} replaced by a reference to the environment variable
 * that holds its value, written for where it stands (outside quotes "${V}", inside double
 * quotes ${V}, inside single quotes '"${V}"'), so that the shell never reads a value as code:
 * names come from the fabric (NodeDescriptions) and from other machines' results. */
char *top_test_command(const char *tmpl)
{
    static const struct {
        const char *key, *var;
    } subs[] = { { "{node}", TOP_TEST_ENV_NODE },
                 { "{peer}", TOP_TEST_ENV_PEER },
                 { "{rail}", TOP_TEST_ENV_RAIL },
                 { "{pairs}", TOP_TEST_ENV_PAIRS } };
    size_t cap = strlen(tmpl) * 8 + 64, n = 0;
    char *out = xmalloc(cap);
    char quote = 0; /* ', " or none */

    for (const char *s = tmpl; *s;) {
        const char *var = NULL;
        size_t skip = 0;
        for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]) && !var; i++)
            if (!strncmp(s, subs[i].key, strlen(subs[i].key)))
                var = subs[i].var, skip = strlen(subs[i].key);
        if (n + 64 >= cap)
            out = xrealloc(out, cap *= 2);
        if (var) {
            n += (size_t)snprintf(out + n, cap - n,
                                  quote == '\''  ? "'\"${%s}\"'"
                                  : quote == '"' ? "${%s}"
                                                 : "\"${%s}\"",
                                  var);
            s += skip;
            continue;
        }
        if (*s == '\\' && quote != '\'' && s[1]) { /* an escaped character, kept as it is */
            out[n++] = *s++;
            out[n++] = *s++;
            continue;
        }
        if ((*s == '\'' || *s == '"') && (!quote || quote == *s))
            quote = quote ? 0 : *s;
        out[n++] = *s++;
    }
    out[n] = '\0';
    return out;
}

int top_test_start(struct top_test *t, const char *tmpl, const struct top_port *p, const char *peer,
                   double timeout, ry_error_t *err)
{
    int fds[2], pf;
    const char *tmp = getenv("TMPDIR");
    char *cmd;
    FILE *fp;

    if (top_test_running(t))
        return ry_errorf(err, "a test is running (%s rail %d against %s)", t->node, t->rail,
                         t->peer);
    snprintf(t->node, sizeof(t->node), "%s", p->node);
    snprintf(t->peer, sizeof(t->peer), "%s", peer);
    t->rail = p->rail;
    snprintf(t->pairs, sizeof(t->pairs), "%s/railyard-top-pairs.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if ((pf = mkstemp(t->pairs)) < 0 || !(fp = fdopen(pf, "w"))) {
        if (pf >= 0)
            close(pf);
        return ry_errorf(err, "cannot write the pair file %s: %s", t->pairs, strerror(errno));
    }
    fprintf(fp, "%s %s\n", t->node, t->peer);
    fclose(fp);
    if (pipe(fds) < 0) {
        unlink(t->pairs);
        return ry_errorf(err, "pipe: %s", strerror(errno));
    }
    cmd = top_test_command(tmpl);
    if ((t->pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        free(cmd);
        unlink(t->pairs);
        return ry_errorf(err, "fork: %s", strerror(errno));
    }
    if (t->pid == 0) { /* the test, in a process group of its own, stdout to the console */
        int null = open("/dev/null", O_RDWR);
        setpgid(0, 0);
        dup2(fds[1], STDOUT_FILENO);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDERR_FILENO);
        }
        close(fds[0]);
        close(fds[1]);
        char rail[16];
        snprintf(rail, sizeof(rail), "%d", t->rail);
        setenv(TOP_TEST_ENV_NODE, t->node, 1);
        setenv(TOP_TEST_ENV_PEER, t->peer, 1);
        setenv(TOP_TEST_ENV_RAIL, rail, 1);
        setenv(TOP_TEST_ENV_PAIRS, t->pairs, 1);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(t->pid, t->pid);
    free(cmd);
    close(fds[1]);
    t->fd = fds[0];
    fcntl(t->fd, F_SETFL, fcntl(t->fd, F_GETFL) | O_NONBLOCK);
    t->len = 0;
    t->started = top_now();
    t->deadline = t->started + timeout;
    return 0;
}

/* the link of the tested rail between node and peer in railyard-fabric's JSON */
static void read_result(struct top_test *t, int status, struct top_model *m)
{
    const char *what = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "the command was not found"
                       : WIFSIGNALED(status)                           ? "killed"
                                                                       : NULL;
#ifdef HAVE_JANSSON
    struct ry_report *rep = NULL;
    ry_error_t perr;
    size_t i;

    if (t->len) /* poll keeps a byte free */
        t->buf[t->len] = '\0';
    if (t->len && (rep = ry_report_parse(t->buf, "the test's output", &perr))) {
        json_t *root = ry_report_json(rep);
        const struct ry_report_links *lv = ry_report_links(rep);
        int rails = (int)json_integer_value(json_object_get(root, "rails"));
        double *refs = xcalloc(rails > 0 ? (size_t)rails : 1, sizeof(double)),
               *med = xcalloc(rails > 0 ? (size_t)rails : 1, sizeof(double)), ref = NAN;
        if (t->rail < rails && ry_report_rail_refs(rep, rails, refs, med) == 0)
            ref = refs[t->rail];
        free(refs);
        free(med);
        for (i = 0; i < lv->n; i++) {
            const struct ry_link *l = &lv->v[i];
            const char *from = ry_link_node(lv, l->from), *to = ry_link_node(lv, l->to);
            if (l->rail != t->rail || !from || !to ||
                !((!strcmp(from, t->node) && !strcmp(to, t->peer)) ||
                  (!strcmp(from, t->peer) && !strcmp(to, t->node))))
                continue;
            if (!(l->flags & RY_LINK_OK)) {
                const char *e = ry_link_strings(lv, l).error;
                t->sev = TOP_FAIL;
                snprintf(m->status, sizeof(m->status), "test %s rail %d <-> %s: failed: %.150s",
                         t->node, t->rail, t->peer, e ? e : "no reason given");
            } else {
                double v = l->bw_gbps;
                char against[96] = "";
                t->sev = !isnan(ref) && v < 0.5 * ref   ? TOP_FAIL
                         : !isnan(ref) && v < 0.9 * ref ? TOP_WARN
                                                        : TOP_OK;
                if (!isnan(ref))
                    snprintf(against, sizeof(against), " (rail reference %.3g Gb/s%s)", ref,
                             t->sev == TOP_FAIL   ? ": LOW"
                             : t->sev == TOP_WARN ? ": below"
                                                  : "");
                snprintf(m->status, sizeof(m->status),
                         "test %s rail %d <-> %s: %.3g Gb/s%s in %.1f s", t->node, t->rail, t->peer,
                         v, against, top_now() - t->started);
            }
            m->status_sev = t->sev;
            ry_report_free(rep);
            return;
        }
        ry_report_free(rep);
        what = "its JSON has no link for this rail and pair";
    } else if (!what)
        what = t->len ? "its output is not railyard-fabric's JSON (--json)" : "it printed nothing";
#else
    if (!what)
        what = "railyard was built without a JSON library: the result cannot be read";
#endif
    t->sev = TOP_FAIL;
    m->status_sev = TOP_FAIL;
    snprintf(m->status, sizeof(m->status), "test %s rail %d <-> %s: no result (exit %d): %s",
             t->node, t->rail, t->peer, WIFEXITED(status) ? WEXITSTATUS(status) : -1, what);
}

int top_test_poll(struct top_test *t, struct top_model *m)
{
    int status = 0;

    if (!top_test_running(t))
        return 0;
    for (;;) {
        ssize_t r;
        if (t->len + 4096 > t->cap)
            t->buf = xrealloc(t->buf, t->cap = (t->len + 4096) * 2);
        r = read(t->fd, t->buf + t->len, t->cap - t->len - 1);
        if (r > 0) {
            t->len += (size_t)r;
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (top_now() > t->deadline) {
                kill(-t->pid, SIGTERM);
                waitpid(t->pid, &status, 0);
                close(t->fd);
                unlink(t->pairs);
                t->pid = -1;
                t->fd = -1;
                t->sev = m->status_sev = TOP_FAIL;
                snprintf(m->status, sizeof(m->status),
                         "test %s rail %d <-> %s: no result within %.0f s (stopped)", t->node,
                         t->rail, t->peer, t->deadline - t->started);
                return 1;
            }
            snprintf(m->status, sizeof(m->status), "test %s rail %d <-> %s: running (%.0f s)",
                     t->node, t->rail, t->peer, top_now() - t->started);
            m->status_sev = TOP_OK;
            return 0;
        }
        break; /* end of output */
    }
    close(t->fd);
    t->fd = -1;
    waitpid(t->pid, &status, 0);
    t->pid = -1;
    unlink(t->pairs);
    read_result(t, status, m);
    return 1;
}

void top_test_stop(struct top_test *t)
{
    if (top_test_running(t)) {
        kill(-t->pid, SIGTERM);
        waitpid(t->pid, NULL, 0);
        close(t->fd);
        unlink(t->pairs);
    }
    free(t->buf);
    top_test_init(t);
}
