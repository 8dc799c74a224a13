#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readers/nvml_record.h"
#include "tests/tap/tap.h"
#include "topo/model.h"

/* The NVML record of a gather bundle (readers/nvml_record.c), written from a node as NVML fills
 * one and read back into the node a bundle's bus gives: what NVML said is kept figure by
 * figure, a figure it did not give (-1, or a PCIe figure of 0) leaves the bus's, one it gave
 * replaces it. The
 * GPUs are those of a real board (an HGX H100: 10de:2330, 80 GiB, 18 NVLinks each). */

static char dir[64];

/* write text to a file of its own; the path is static */
static const char *file_of(const char *text)
{
    static char path[128];
    static int n;
    FILE *f;

    snprintf(path, sizeof(path), "%s/rec%d", dir, n++);
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* the record topo_nvml_record writes for v */
static char *record_of(const struct topo_node *v, int rc, const char *why)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (topo_nvml_record(f, v, rc, why) < 0)
        ok(0, "topo_nvml_record failed");
    fclose(f);
    return buf;
}

static struct topo_gpu *gpu(struct topo_node *n, const char *busid, int gen, int width)
{
    struct topo_gpu *g = topo_node_add_gpu(n);

    snprintf(g->loc.busid, sizeof(g->loc.busid), "%s", busid);
    g->link.cur_gen = g->link.max_gen = gen;
    g->link.cur_width = g->link.max_width = width;
    return g;
}

int main(void)
{
    struct topo_node *v = topo_node_create(), *b;
    ry_error_t err = { "" };
    struct topo_gpu *g;
    char *text;

    snprintf(dir, sizeof(dir), "%s/nvmlrecXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        skip_all("cannot make a temporary directory");

    /* a node as NVML fills it: two H100, one of 16 links up and a PCIe link NVML did not say,
     * one named with a control byte and no UUID; an NVLink pair and the switch fabric */
    v->gpu_driver = 1;
    v->gpu_driver_version = strdup("580.95.05");
    g = gpu(v, "0000:19:00.0", 5, 16);
    g->model = strdup("NVIDIA H100 80GB HBM3");
    g->uuid = strdup("GPU-0b8e4d9f-1c2a-4e55-9a10-3c1f0e2d7a61");
    g->memory_bytes = 85520809984ULL;
    g->nvlink_links = 18;
    g->nvlink_active = 16;
    g->link.cur_width = -1;
    g = gpu(v, "0000:3b:00.0", 4, 0); /* a width NVML did not give: the model's 0 */
    g->model = strdup("H100\x1b[2J");
    g->nvlink_links = g->nvlink_active = -1;
    topo_node_add_nvlink(v, "0000:19:00.0", "0000:3b:00.0", 4);
    topo_node_add_switch_nvlink(v, "0000:19:00.0", "ffffffff:ff:ff.0", 12);
    text = record_of(v, 0, NULL);
    is_str(text,
           "railyard-nvml 1\n"
           "driver answering 580.95.05\n"
           "gpu 0000:19:00.0 18 16 5 -1 5 16 85520809984 GPU-0b8e4d9f-1c2a-4e55-9a10-3c1f0e2d7a61 "
           "NVIDIA H100 80GB HBM3\n"
           "gpu 0000:3b:00.0 -1 -1 4 -1 4 -1 0 - H100\\x1b[2J\n"
           "nvlink 0000:19:00.0 0000:3b:00.0 4\n"
           "nvswitch 0000:19:00.0 ffffffff:ff:ff.0 12\n",
           "the record: every figure, -1 where NVML gave none, '-' for no UUID, a control byte "
           "in a name written \\xHH, spaces kept");

    /* read back over a bus that says Gen5 x16 for both, and a third GPU NVML did not list */
    b = topo_node_create();
    gpu(b, "0000:19:00.0", 5, 16);
    gpu(b, "0000:3b:00.0", 5, 16);
    gpu(b, "0000:5d:00.0", 5, 16);
    is_int(topo_nvml_replay(b, file_of(text), &err), 0, "the record reads back (%s)", err.text);
    is_int(b->gpu_driver, 1, "the driver answered");
    is_str(b->gpu_driver_version, "580.95.05", "...its version");
    is_int(b->gpus_listed, 1, "NVML lists the GPUs");
    g = topo_node_gpu_by_busid(b, "0000:19:00.0");
    is_str(g->model, "NVIDIA H100 80GB HBM3", "the name, spaces and all");
    is_str(g->vendor, "NVIDIA", "the vendor");
    is_str(g->uuid, "GPU-0b8e4d9f-1c2a-4e55-9a10-3c1f0e2d7a61", "the UUID");
    is_int((long long)g->memory_bytes, 85520809984LL, "the memory");
    ok(g->nvlink_links == 18 && g->nvlink_active == 16, "16 of 18 NVLinks up");
    is_int(g->link.cur_width, 16, "a width NVML did not give (-1) leaves the bus's x16");
    ok(g->link.cur_gen == 5 && g->link.max_gen == 5 && g->link.max_width == 16,
       "the figures it gave, the same as the bus's");
    g = topo_node_gpu_by_busid(b, "0000:3b:00.0");
    is_int(g->link.cur_gen, 4, "a generation NVML gave replaces the bus's: Gen4 over Gen5");
    is_int(g->link.max_gen, 4, "...the maximum too");
    ok(g->link.cur_width == 16 && g->link.max_width == 16,
       "a width NVML did not give (the model's 0, written -1) leaves the bus's x16");
    ok(g->nvlink_links == -1 && g->nvlink_active == -1, "NVLinks NVML could not read stay unknown");
    is_str(g->uuid, NULL, "no UUID ('-')");
    is_str(g->model, "H100\\x1b[2J", "the name as written");
    is_int((long long)g->memory_bytes, 0, "memory unknown (0)");
    g = topo_node_gpu_by_busid(b, "0000:5d:00.0");
    ok(g && !g->model && g->nvlink_links == -1, "a GPU NVML did not list keeps what the bus said");
    ok(b->nnvlinks == 1 && b->nvlinks[0].count == 4, "the NVLink pair: 4 links");
    ok(b->nnvswitch == 1 && b->nvswitch[0].count == 12 &&
           !strcmp(b->nvswitch[0].sw, "ffffffff:ff:ff.0"),
       "the switch fabric: 12 links");
    ok(b->sources && strstr(b->sources, "nvml (driver 580.95.05, gathered)"), "the source: %s",
       b->sources ? b->sources : "(none)");
    topo_node_destroy(b);
    free(text);

    /* Gen1 x1, the least there is, is written; a record's 0 is not known, and leaves the bus's */
    topo_node_destroy(v);
    v = topo_node_create();
    v->gpu_driver = 1;
    g = gpu(v, "0000:7f:00.0", 1, 1);
    g->link.max_gen = 0;
    g->link.max_width = 0;
    text = record_of(v, 0, NULL);
    ok(strstr(text, "gpu 0000:7f:00.0 -1 -1 1 1 -1 -1 0 - -\n") != NULL,
       "Gen1 x1 written as 1 1, unknown maxima as -1");
    free(text);
    b = topo_node_create();
    gpu(b, "0000:7f:00.0", 5, 16);
    is_int(topo_nvml_replay(b,
                            file_of("railyard-nvml 1\ndriver answering 1\n"
                                    "gpu 0000:7f:00.0 0 0 1 8 0 0 0 - -\n"),
                            &err),
           0, "a record over a bus of Gen5 x16 (%s)", err.text);
    g = &b->gpus[0];
    ok(g->link.cur_gen == 1 && g->link.cur_width == 8,
       "Gen1 x8 from the record replaces the bus's");
    ok(g->link.max_gen == 5 && g->link.max_width == 16, "maxima of 0 leave the bus's Gen5 x16");
    topo_node_destroy(b);

    /* a GPU NVML lists that the bus did not: added */
    b = topo_node_create();
    is_int(topo_nvml_replay(b,
                            file_of("railyard-nvml 1\ndriver answering unknown\n"
                                    "gpu 0000:19:00.0 0 0 -1 -1 -1 -1 0 - -\n"
                                    "gpu 0000:3b:00.0 0 0 0 0 1 1 0 - -\n"),
                            &err),
           0, "a GPU only NVML lists reads (%s)", err.text);
    ok(b->ngpus == 2 && !strcmp(b->gpus[0].loc.busid, "0000:19:00.0") && !b->gpus[0].model &&
           b->gpus[0].link.cur_gen == 0 && b->gpus[0].link.max_width == 0,
       "...and is added, with nothing more than NVML gave");
    g = topo_node_gpu_by_busid(b, "0000:3b:00.0");
    ok(g && g->link.cur_gen == 0 && g->link.cur_width == 0 && g->link.max_gen == 1 &&
           g->link.max_width == 1,
       "...PCIe figures of 0 are not known; Gen1 x1, the least there is, is kept");
    topo_node_destroy(b);

    /* a driver that answered with no GPU: the note is kept */
    topo_node_destroy(v);
    v = topo_node_create();
    v->gpu_driver = 1;
    v->gpu_driver_note = strdup("NVIDIA driver loaded, no GPU visible");
    text = record_of(v, 0, NULL);
    is_str(text,
           "railyard-nvml 1\ndriver answering unknown\nnote NVIDIA driver loaded, no GPU visible\n",
           "a driver without a version, and its note");
    b = topo_node_create();
    is_int(topo_nvml_replay(b, file_of(text), &err), 0, "...reads back");
    is_str(b->gpu_driver_note, "NVIDIA driver loaded, no GPU visible", "...the note kept");
    ok(b->gpu_driver == 1 && b->ngpus == 0, "...a driver answering, no GPU");
    topo_node_destroy(b);
    free(text);

    /* no driver; a driver that failed */
    topo_node_destroy(v);
    v = topo_node_create();
    v->gpu_driver = 0;
    v->gpu_driver_note = strdup("no NVIDIA driver (nvmlInit_v2: Driver Not Loaded)");
    text = record_of(v, 0, NULL);
    is_str(text,
           "railyard-nvml 1\ndriver absent no NVIDIA driver (nvmlInit_v2: Driver Not Loaded)\n",
           "no driver: absent, with why");
    b = topo_node_create();
    is_int(topo_nvml_replay(b, file_of(text), &err), 0, "...reads back");
    ok(b->gpu_driver == 0 && b->gpu_driver_note &&
           !strcmp(b->gpu_driver_note, "no NVIDIA driver (nvmlInit_v2: Driver Not Loaded)") &&
           !b->gpus_listed,
       "...the driver did not answer, why is kept, no GPU list claimed");
    topo_node_destroy(b);
    free(text);
    v->gpu_driver = -1; /* never asked: as absent */
    free(v->gpu_driver_note);
    v->gpu_driver_note = NULL;
    text = record_of(v, 0, NULL);
    is_str(text, "railyard-nvml 1\ndriver absent no NVIDIA driver\n", "not asked: absent");
    free(text);
    text = record_of(v, -1, "nvmlDeviceGetCount_v2: Unknown Error\n");
    is_str(text, "railyard-nvml 1\ndriver failed nvmlDeviceGetCount_v2: Unknown Error\\x0a\n",
           "a driver that failed: failed, with why on one line");
    b = topo_node_create();
    is_int(topo_nvml_replay(b, file_of(text), &err), -1, "...a replay fails as discovery did");
    ok(strstr(err.text, "the NVIDIA driver failed when the bundle was gathered: "
                        "nvmlDeviceGetCount_v2: Unknown Error\\x0a") != NULL,
       "...saying so: %s", err.text);
    topo_node_destroy(b);
    free(text);
    text = record_of(v, -1, "");
    is_str(text, "railyard-nvml 1\ndriver failed error\n", "a failure without words: 'error'");
    free(text);

    /* a record that cannot be written says so */
    {
        FILE *full = fopen("/dev/full", "w");
        if (full) {
            is_int(topo_nvml_record(full, v, 0, NULL), -1, "a record on a full disk: -1");
            fclose(full);
        } else
            ok(1, "# SKIP no /dev/full here");
    }

    /* the fields a line must have */
    b = topo_node_create();
    is_int(topo_nvml_replay(b, file_of("railyard-nvml 1\ndriver answering 1\ngpu\n"), &err), -1,
           "a gpu line without its address is refused");
    ok(strstr(err.text, ":3: the GPU's PCI address is missing") != NULL, "...%s", err.text);
    is_int(topo_nvml_replay(b, file_of("railyard-nvml 1\ndriver answering 1\nnote\n"), &err), -1,
           "a note without its text is refused");
    ok(strstr(err.text, ":3: the note is missing") != NULL, "...%s", err.text);
    is_int(topo_nvml_replay(b, file_of("railyard-nvml 1\ndriver\n"), &err), -1,
           "a driver line without its state is refused");
    ok(strstr(err.text, ":2: the driver's state is missing") != NULL, "...%s", err.text);
    is_int(topo_nvml_replay(b, file_of("railyard-nvml 1\ndriver answering 1\n\n"), &err), -1,
           "an empty line is refused");
    ok(strstr(err.text, ":3: the kind of line is missing") != NULL, "...%s", err.text);
    topo_node_destroy(b);
    topo_node_destroy(v);

    {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            diag("could not remove %s", dir);
    }
    return done_testing();
}
