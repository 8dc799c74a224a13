#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "ib/ibcheck.h"
#include "ib/ibfabric.h"

/* libFuzzer target for the ibnetdiscover parser and the fabric checks: any input must give a
 * fabric or an error, never a crash, a leak or undefined behaviour; a fabric that parses is
 * judged (built-in references, and against itself as the reference). Seeds: the ibnetdiscover
 * dumps of the shared fixtures. */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ibf_fabric f;
    ry_error_t err;

    if (ibf_parse_ibnetdiscover_buffer(&f, (const char *)data, size, "fuzz", &err) == 0) {
        struct topo_findings out = { 0 };
        struct ibf_notes notes = { 0 };
        struct ibf_expect e = { NULL, &f, NULL, NULL, NULL, 0 };
        ibf_analyze(&f, &e, &out, &notes);
        topo_findings_free(&out);
        ibf_notes_free(&notes);
        ibf_fabric_free(&f);
    }
    return 0;
}
