#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/file.h"
#include "common/xmalloc.h"
#include "fabric/run.h"

/* The run as a whole (fabric/run.h): its log line, the analysis of what rank 0 collected, and
 * the exit status. */

void fabric_run_log(const struct fabric_run *r, const char *fmt, ...)
{
    char raw[1024], safe[1024], host[FABRIC_NAME_LEN * 4];
    va_list ap;

    /* host names and error texts of other ranks are quoted: inert */
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    fprintf(stderr, "railyard-fabric: %s:%d: %s\n", ry_inert(r->host, host, sizeof(host)), r->rank,
            ry_inert(raw, safe, sizeof(safe)));
}

void fabric_run_input(const struct fabric_run *r, struct fabric_input *in,
                      struct fabric_port **ports)
{
    int *uniq = xcalloc(r->nfailed ? r->nfailed : 1, sizeof(*uniq));
    size_t nu = 0;

    *ports = xcalloc((size_t)r->nodes * (size_t)r->rails, sizeof(**ports));
    for (int i = 0; i < r->nodes * r->rails; i++)
        (*ports)[i].carrier = r->info[r->rank_of[i]].carrier;
    for (size_t i = 0; i < r->nfailed; i++) {
        int seen = 0;
        for (size_t k = 0; k < nu; k++)
            seen |= uniq[k] == r->failed[i];
        if (!seen)
            uniq[nu++] = r->failed[i];
    }
    *in = (struct fabric_input){ r->nodes, r->rails,       r->names,  *ports, r->expect,
                                 r->links, r->nlinks,      uniq,      nu,     r->lat_links,
                                 r->nlat,  r->goodput_min, r->ecn_max };
}

void fabric_run_analyse(struct fabric_run *r, struct topo_findings *f)
{
    struct fabric_port *ports;
    struct fabric_input in;

    fabric_run_input(r, &in, &ports);
    fabric_analyze(&in, f);
    free((void *)in.failed_nodes);
    free(ports);
    /* a rank bound to another NUMA node than its NIC crosses the socket link */
    for (int k = 0; k < r->size; k++) {
        const struct fabric_rank_info *ri = &r->info[k];
        char e[48], ob[48], subject[FABRIC_NAME_LEN + 16];
        if (ri->rank_numa < 0 || ri->nic_numa < 0)
            continue;
        snprintf(e, sizeof(e), "NUMA %d (its NIC's)", ri->nic_numa);
        snprintf(ob, sizeof(ob), "bound to NUMA %d", ri->rank_numa);
        snprintf(subject, sizeof(subject), "%s/rail%d", ri->host, ri->local_rank);
        topo_findings_add(f, ri->rank_numa == ri->nic_numa ? TOPO_SEV_OK : TOPO_SEV_WARN,
                          "affinity.numa", subject, e, ob,
                          ri->rank_numa == ri->nic_numa
                              ? NULL
                              : "bind each rank next to its NIC (srun --cpu-bind, mpirun "
                                "--map-by)");
    }
    /* the collective phase's verdicts */
    for (size_t i = 0; i < r->coll_f.n; i++) {
        const struct topo_finding *x = &r->coll_f.v[i];
        topo_findings_add(f, x->sev, x->check, x->subject, x->expected, x->observed, x->hint);
    }
    for (size_t i = 0; i < r->coll_f.nunjudged; i++)
        topo_findings_unjudged(f, "%s", r->coll_f.unjudged[i]);
    topo_findings_override(f, r->map, r->type);
    topo_findings_sort(f);
}

enum fabric_hello_step fabric_run_hello_step(int missing, double now, double deadline, double last,
                                             double next_look)
{
    if (missing <= 0 || now >= deadline)
        return FABRIC_HELLO_END;
    if (now - last >= FABRIC_REACH_GRACE && now >= next_look)
        return FABRIC_HELLO_LOOK;
    return FABRIC_HELLO_WAIT;
}

enum fabric_hello_verdict fabric_run_hello_verdict(int size, int nunreached, int nofacts)
{
    if (nofacts > 0)
        return FABRIC_HELLO_NOT_STARTED;
    if (2 * nunreached >= size)
        return FABRIC_HELLO_CUT_OFF;
    return FABRIC_HELLO_HEARD;
}

int fabric_run_exit_status(const struct topo_findings *f, size_t nfailed)
{
    int code = f->nfail ? 1 : f->nok + f->nwarn == 0 && f->nunjudged > 0 ? 2 : 0;

    return nfailed && !code ? 1 : code;
}

void fabric_run_nodes_text(const struct fabric_run *r, const int *nodes, int n, char *buf,
                           size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < n && i < 6; i++)
        ry_appendf(buf, len, "%s%s", i ? ", " : "", r->names[nodes[i]]);
    if (n > 6)
        ry_appendf(buf, len, " and %d more", n - 6);
}

const char *fabric_run_size_text(size_t bytes, char *buf, size_t len)
{
    if (bytes >= 1024 * 1024)
        snprintf(buf, len, "%g MiB", (double)bytes / (1024.0 * 1024));
    else
        snprintf(buf, len, "%g KiB", (double)bytes / 1024);
    return buf;
}
