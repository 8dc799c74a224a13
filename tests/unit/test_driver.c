#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/hwloc.h"
#include "readers/nvml.h"
#include "tests/tap/tap.h"
#include "topo/compare.h"
#include "topo/model.h"

/* gpu.driver: GPUs on this machine's PCI bus whose driver does not answer are a fault, not a
 * node without GPUs. The bus is a real HGX H100 board's (its hwloc capture: four H100 SXM);
 * the driver that does not answer is NVML pointed at a library that is not there, what a node
 * whose module failed to build after a kernel update gives. */

/* "SEV subject;..." of the findings of one check */
static void of_check(const struct topo_findings *f, const char *check, char *out, size_t len)
{
    static const char *const sev[] = { "ok", "warn", "fail" };

    out[0] = '\0';
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].check, check))
            snprintf(out + strlen(out), len - strlen(out), "%s%s %s", out[0] ? ";" : "",
                     f->v[i].sev == TOPO_SEV_FAIL   ? sev[2]
                     : f->v[i].sev == TOPO_SEV_WARN ? sev[1]
                                                    : sev[0],
                     f->v[i].subject);
}

static struct topo_node *board(const char *xml)
{
    struct topo_node *node = topo_node_create();
    ry_error_t err = { "" };

    if (topo_hwloc_discover(node, xml, &err) < 0) {
        ok(0, "%s: %s", xml, err.text);
        topo_node_destroy(node);
        return NULL;
    }
    return node;
}

int main(void)
{
    const char *fix = getenv("RAILYARD_FIXTURES");
    char xml[4096], got[1024];
    struct topo_findings f = { 0 };
    struct topo_node *node;
    ry_error_t err = { "" };

    if (!fix)
        skip_all("RAILYARD_FIXTURES is not set (run through make check)");
#ifndef HAVE_LIBXML2
    skip_all("built without libxml2: the board is an hwloc 3.0 XML, which hwloc 2 reads once "
             "libxml2 has rewritten it (the full build runs this test)");
#endif
    snprintf(xml, sizeof(xml), "%s/hwloc/hgx-h100-4gpu.xml", fix);
    if (!(node = board(xml)))
        return done_testing();
    is_int((long long)node->ngpus, 4, "the board's bus shows four H100");
    is_int(node->gpu_driver, -1, "a captured input: the driver was not asked");
    topo_compare(node, "n", NULL, NULL, &f);
    of_check(&f, "gpu.driver", got, sizeof(got));
    is_str(got, "", "...and is not judged by it");
    topo_findings_free(&f);

    setenv("RAILYARD_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    is_int(topo_nvml_discover(node, &err), 0,
           "NVML that cannot load is not an error of the reader %s", err.text);
    ok(node->gpu_driver == 0 && node->gpu_driver_note &&
           strstr(node->gpu_driver_note, "no NVIDIA driver (") &&
           strstr(node->gpu_driver_note, "/nonexistent/libnvidia-ml.so.1"),
       "...it is recorded, with what NVML said: %s",
       node->gpu_driver_note ? node->gpu_driver_note : "(nothing)");
    memset(&f, 0, sizeof(f));
    topo_compare(node, "n", NULL, NULL, &f);
    of_check(&f, "gpu.driver", got, sizeof(got));
    is_str(got, "fail n/gpu0;fail n/gpu1;fail n/gpu2;fail n/gpu3",
           "every GPU on the bus without its driver fails gpu.driver");
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(f.v[i].check, "gpu.driver")) {
            ok(f.v[i].observed && strstr(f.v[i].observed, "no NVIDIA driver") && f.v[i].hint &&
                   strstr(f.v[i].hint, "dkms"),
               "...naming what NVML said and what to look at: %s", f.v[i].observed);
            break;
        }
    ok(f.nfail >= 4, "the node is faulty (%zu failures), never a pass", f.nfail);
    topo_findings_free(&f);

    node->gpu_driver = 1; /* as NVML answers on a healthy node */
    memset(&f, 0, sizeof(f));
    topo_compare(node, "n", NULL, NULL, &f);
    of_check(&f, "gpu.driver", got, sizeof(got));
    is_str(got, "ok n/gpu0;ok n/gpu1;ok n/gpu2;ok n/gpu3", "the driver answering: gpu.driver ok");
    topo_findings_free(&f);

    /* another vendor's GPU is not the NVIDIA driver's */
    for (size_t i = 0; i < node->ngpus; i++) {
        free(node->gpus[i].vendor);
        node->gpus[i].vendor = strdup("AMD");
        node->gpus[i].pci_vendor = 0x1002;
    }
    node->gpu_driver = 0;
    memset(&f, 0, sizeof(f));
    topo_compare(node, "n", NULL, NULL, &f);
    of_check(&f, "gpu.driver", got, sizeof(got));
    is_str(got, "", "AMD GPUs without NVML: not the NVIDIA driver's to judge");
    topo_findings_free(&f);
    topo_node_destroy(node);
    return done_testing();
}
