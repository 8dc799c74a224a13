#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/render.h"

/* libFuzzer target for report.json as railyard report reads it (an archived run, or one
 * attached to a ticket): any input gives a report or an error, never a crash, a leak or
 * undefined behaviour; a report that parses is rendered in every format (HTML, text, JUnit,
 * Prometheus) and compared with itself. Seeds: report.json of the fixtures' runs. */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    struct ry_report *r;
    ry_error_t err;
    FILE *null;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if ((r = ry_report_parse(text, "fuzz", &err)) && (null = fopen("/dev/null", "w"))) {
        double ref[64], median[64];
        (void)ry_render_html(r, NULL, NULL, null, &err);
        (void)ry_render_text(r, null, &err);
        (void)ry_render_junit(r, null, &err);
        (void)ry_render_prometheus(r, null, &err);
        (void)ry_render_diff(r, r, 0.1, null, &err);
        (void)ry_report_rail_refs(r, 64, ref, median);
        (void)ry_report_complete(r);
        fclose(null);
    }
    ry_report_free(r);
    free(text);
    return 0;
}
