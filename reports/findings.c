#include "config.h"

#include "reports/findings.h"

static void print_finding(struct out *o, const struct topo_finding *f, int verbose)
{
    static const char *const label[] = { "ok", "WARN", "FAIL" };
    int show = f->sev != TOPO_SEV_OK || verbose;

    out_obj_open(o, NULL);
    out_str(o, "severity", NULL, topo_sev_name(f->sev));
    if (show)
        out_text(o, "%-4s  ", label[f->sev]);
    out_str(o, "check", show ? "%-20s" : NULL, f->check);
    out_str(o, "subject", show ? " %-22s" : NULL, f->subject);
    out_str(o, "expected", show ? " expected %s" : NULL, f->expected);
    out_str(o, "observed", show ? ", observed %s\n" : NULL, f->observed);
    out_str(o, "hint", show && f->hint ? "      hint: %s\n" : NULL, f->hint);
    out_obj_close(o);
}

void report_findings(struct out *o, const struct topo_findings *f, int verbose)
{
    out_arr_open(o, "findings");
    for (size_t i = 0; i < f->n; i++)
        print_finding(o, &f->v[i], verbose);
    out_arr_close(o);
    /* what could not be judged is said, in text and JSON: never a silent pass */
    out_arr_open(o, "not_judged");
    for (size_t i = 0; i < f->nunjudged; i++)
        out_str(o, NULL, "not judged: %s\n", f->unjudged[i]);
    out_arr_close(o);
    out_obj_open(o, "summary");
    out_u64(o, "fail", "%s failed", f->nfail);
    out_u64(o, "warn", ", %s warnings", f->nwarn);
    out_u64(o, "ok", ", %s passed", f->nok);
    out_obj_close(o);
}
