#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "readers/nvml.h"

/* The few NVML types used here, declared locally so that no NVML header or library is needed
 * at build time and any driver version works (the ABI of these calls is stable). */
typedef struct nvml_device *nvml_device_t;
typedef int nvml_return_t;
#define NVML_OK             0
#define NVML_NVLINK_MAX     18
#define NVML_NAME_LEN       96
#define NVML_UUID_LEN       96
#define NVML_DRIVER_VER_LEN 80

struct nvml_pci_info {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};

struct nvml_memory {
    unsigned long long total, free, used;
};

/* nvmlDeviceGetFieldValues: a field (NVML_FI_*) with its scope (the link, for NVLink fields) */
struct nvml_field_value {
    unsigned field_id;
    unsigned scope_id;
    long long timestamp_us, latency_us;
    int value_type;
    nvml_return_t ret;
    union {
        double d;
        unsigned ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
    } value;
};
#define NVML_FI_NVLINK_DATA_TX 138 /* NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX: KiB, a counter */
#define NVML_FI_NVLINK_DATA_RX 139
#define NVML_VALUE_ULL         3
#define NVML_NVLINK_ERRORS     4 /* replay, recovery, CRC flit, CRC data (nvmlNvLinkErrorCounter_t) */

/* nvmlProcessInfo_t as the _v3 process queries fill it */
struct nvml_process {
    unsigned pid;
    unsigned long long used_memory;
    unsigned gpu_instance, compute_instance;
};
struct nvml_utilization {
    unsigned gpu, memory; /* percent of the last sample period */
};
#define NVML_ERROR_INSUFFICIENT_SIZE 7

struct nvml_api {
    void *dl;
    nvml_return_t (*init)(void);
    nvml_return_t (*shutdown)(void);
    const char *(*error_string)(nvml_return_t);
    nvml_return_t (*driver_version)(char *, unsigned);
    nvml_return_t (*count)(unsigned *);
    nvml_return_t (*handle)(unsigned, nvml_device_t *);
    nvml_return_t (*name)(nvml_device_t, char *, unsigned);
    nvml_return_t (*uuid)(nvml_device_t, char *, unsigned);
    nvml_return_t (*pci)(nvml_device_t, struct nvml_pci_info *);
    nvml_return_t (*memory)(nvml_device_t, struct nvml_memory *);
    nvml_return_t (*cur_gen)(nvml_device_t, unsigned *);
    nvml_return_t (*max_gen)(nvml_device_t, unsigned *);
    nvml_return_t (*cur_width)(nvml_device_t, unsigned *);
    nvml_return_t (*max_width)(nvml_device_t, unsigned *);
    nvml_return_t (*nvlink_state)(nvml_device_t, unsigned, int *);
    nvml_return_t (*nvlink_remote_pci)(nvml_device_t, unsigned, struct nvml_pci_info *);
    nvml_return_t (*field_values)(nvml_device_t, int, struct nvml_field_value *);
    nvml_return_t (*nvlink_error)(nvml_device_t, unsigned, int, unsigned long long *);
    nvml_return_t (*nvlink_remote_type)(nvml_device_t, unsigned, int *);
    nvml_return_t (*processes)(nvml_device_t, unsigned *, struct nvml_process *);
    nvml_return_t (*utilization)(nvml_device_t, struct nvml_utilization *);
};
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2 /* nvmlIntNvLinkDeviceType_t */

static int load_api(struct nvml_api *api, const char *lib, ry_error_t *err)
{
    memset(api, 0, sizeof(*api));
    if (!(api->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
        const char *why = dlerror();
        errno = ENOENT;
        return ry_errorf(err, "%s", why ? why : lib);
    }
#define SYM(field, name)                                                                           \
    do {                                                                                           \
        *(void **)(&api->field) = dlsym(api->dl, name);                                            \
    } while (0)
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(error_string, "nvmlErrorString");
    SYM(driver_version, "nvmlSystemGetDriverVersion");
    SYM(count, "nvmlDeviceGetCount_v2");
    SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
    SYM(name, "nvmlDeviceGetName");
    SYM(uuid, "nvmlDeviceGetUUID");
    SYM(pci, "nvmlDeviceGetPciInfo_v3");
    SYM(memory, "nvmlDeviceGetMemoryInfo");
    SYM(cur_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
    SYM(max_gen, "nvmlDeviceGetMaxPcieLinkGeneration");
    SYM(cur_width, "nvmlDeviceGetCurrPcieLinkWidth");
    SYM(max_width, "nvmlDeviceGetMaxPcieLinkWidth");
    SYM(nvlink_state, "nvmlDeviceGetNvLinkState");
    SYM(nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    SYM(field_values, "nvmlDeviceGetFieldValues");
    SYM(nvlink_error, "nvmlDeviceGetNvLinkErrorCounter");
    SYM(nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
    SYM(processes, "nvmlDeviceGetComputeRunningProcesses_v3");
    SYM(utilization, "nvmlDeviceGetUtilizationRates");
#undef SYM
    if (!api->init || !api->shutdown || !api->count || !api->handle || !api->pci) {
        dlclose(api->dl);
        api->dl = NULL;
        errno = ENOSYS;
        return ry_errorf(err,
                         "%s lacks nvmlInit_v2/nvmlDeviceGetCount_v2/"
                         "nvmlDeviceGetPciInfo_v3 (driver too old)",
                         lib);
    }
    return 0;
}

static const char *nvml_err(struct nvml_api *api, nvml_return_t r)
{
    return api->error_string ? api->error_string(r) : "error";
}

static void read_gpu(struct topo_node *node, struct nvml_api *api, nvml_device_t dev,
                     const char *busid, char (*all)[TOPO_BUSID_LEN], unsigned ndev)
{
    struct topo_gpu *g = topo_node_gpu_by_busid(node, busid);
    char name[NVML_NAME_LEN], uuid[NVML_UUID_LEN];
    struct nvml_memory mem;
    unsigned v;

    if (!g) {
        g = topo_node_add_gpu(node);
        snprintf(g->loc.busid, sizeof(g->loc.busid), "%s", busid);
    }
    free(g->vendor);
    g->vendor = xstrdup("NVIDIA");
    if (api->name && api->name(dev, name, sizeof(name)) == NVML_OK) {
        free(g->model);
        g->model = xstrdup(name);
    }
    if (api->uuid && api->uuid(dev, uuid, sizeof(uuid)) == NVML_OK) {
        free(g->uuid);
        g->uuid = xstrdup(uuid);
    }
    if (api->memory && api->memory(dev, &mem) == NVML_OK)
        g->memory_bytes = mem.total;
    if (api->cur_gen && api->cur_gen(dev, &v) == NVML_OK)
        g->link.cur_gen = (int)v;
    if (api->max_gen && api->max_gen(dev, &v) == NVML_OK)
        g->link.max_gen = (int)v;
    if (api->cur_width && api->cur_width(dev, &v) == NVML_OK)
        g->link.cur_width = (int)v;
    if (api->max_width && api->max_width(dev, &v) == NVML_OK)
        g->link.max_width = (int)v;

    if (!api->nvlink_state)
        return;
    g->nvlink_links = g->nvlink_active = 0;
    for (unsigned l = 0; l < NVML_NVLINK_MAX; l++) {
        struct nvml_pci_info rp;
        char rb[TOPO_NVTARGET_LEN];
        int active = 0, peer_is_gpu = 0;
        /* links that do not exist on this GPU return an error */
        if (api->nvlink_state(dev, l, &active) != NVML_OK)
            continue;
        g->nvlink_links++;
        if (!active)
            continue;
        g->nvlink_active++;
        /* the far end: a GPU of this node, an NVSwitch, or the switch fabric as one address. On
         * some Blackwell trays the remote PCI query fails for switch links while the remote
         * device type answers (NCCL 2.31 asks that first): such a link goes to the fabric */
        if (!api->nvlink_remote_pci || api->nvlink_remote_pci(dev, l, &rp) != NVML_OK ||
            topo_nvtarget_normalize(rp.bus_id, rb) < 0) {
            int type;
            if (api->nvlink_remote_type && api->nvlink_remote_type(dev, l, &type) == NVML_OK &&
                type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
                topo_node_add_switch_nvlink(node, busid, "ffffffff:ff:ff.0", 1);
            continue;
        }
        for (unsigned k = 0; k < ndev; k++)
            if (!strcmp(all[k], rb))
                peer_is_gpu = 1;
        if (peer_is_gpu) {
            /* both ends enumerate the link: count it from the lower address only */
            if (strcmp(busid, rb) < 0)
                topo_node_add_nvlink(node, busid, rb, 1);
        } else
            topo_node_add_switch_nvlink(node, busid, rb, 1);
    }
}

/* Load the driver's library, initialise it and list its GPUs (handle and normalised PCI
 * address). 1 with *note when there is no driver (the library or nvmlInit fails); 0, the
 * caller then shuts the driver down and closes the library; -1 with err (all released). */
static int open_gpus(struct nvml_api *api, unsigned *n, nvml_device_t **devs,
                     char (**busids)[TOPO_BUSID_LEN], char **note, ry_error_t *err)
{
    const char *lib = getenv("RAILYARD_NVML_LIBRARY");
    ry_error_t why;
    nvml_return_t r;

    *n = 0;
    *devs = NULL;
    *busids = NULL;
    if (!lib || !*lib)
        lib = "libnvidia-ml.so.1";
    if (load_api(api, lib, &why) < 0) {
        *note = xasprintf("no NVIDIA driver (%s)", why.text);
        return 1;
    }
    if ((r = api->init()) != NVML_OK) {
        *note = xasprintf("no NVIDIA driver (nvmlInit: %s)", nvml_err(api, r));
        dlclose(api->dl);
        return 1;
    }
    if ((r = api->count(n)) != NVML_OK) {
        ry_errorf(err, "nvml: nvmlDeviceGetCount: %s", nvml_err(api, r));
        goto fail;
    }
    if (*n) {
        *devs = xcalloc(*n, sizeof(**devs));
        *busids = xcalloc(*n, sizeof(**busids));
    }
    for (unsigned i = 0; i < *n; i++) {
        struct nvml_pci_info pci;
        if ((r = api->handle(i, &(*devs)[i])) != NVML_OK ||
            (r = api->pci((*devs)[i], &pci)) != NVML_OK) {
            ry_errorf(err, "nvml: GPU %u: %s", i, nvml_err(api, r));
            goto fail;
        }
        if (topo_busid_normalize(pci.bus_id, (*busids)[i]) < 0) {
            errno = EINVAL;
            ry_errorf(err, "nvml: GPU %u: unexpected PCI address '%.32s'", i, pci.bus_id);
            goto fail;
        }
    }
    return 0;
fail:
    free(*devs);
    free(*busids);
    *devs = NULL;
    *busids = NULL;
    *n = 0;
    api->shutdown();
    dlclose(api->dl);
    return -1;
}

int topo_nvml_discover(struct topo_node *node, ry_error_t *err)
{
    char(*busids)[TOPO_BUSID_LEN] = NULL;
    nvml_device_t *devs = NULL;
    struct nvml_api api;
    char ver[NVML_DRIVER_VER_LEN], *note = NULL;
    unsigned n = 0;
    int rc;

    if ((rc = open_gpus(&api, &n, &devs, &busids, &note, err)) != 0) {
        if (rc > 0) { /* no driver: not an error here; a GPU on the bus without one is a
                       * finding (gpu.driver) */
            free(node->gpu_driver_note);
            node->gpu_driver_note = note;
            node->gpu_driver = 0;
            return 0;
        }
        node->gpus_listed = 1;
        return -1;
    }
    node->gpus_listed = 1;
    node->gpu_driver = 1;
    if (n == 0) {
        free(node->gpu_driver_note);
        node->gpu_driver_note = xstrdup("NVIDIA driver loaded, no GPU visible");
    }
    for (unsigned i = 0; i < n; i++)
        read_gpu(node, &api, devs[i], busids[i], busids, n);
    if (api.driver_version && api.driver_version(ver, sizeof(ver)) == NVML_OK) {
        free(node->gpu_driver_version);
        node->gpu_driver_version = xstrdup(ver);
        topo_node_add_source(node, "nvml (driver %s)", ver);
    } else
        topo_node_add_source(node, "nvml");
    free(devs);
    free(busids);
    api.shutdown();
    dlclose(api.dl);
    return 0;
}

/* ---- what else runs on the GPUs ---- */

int topo_nvml_busy(struct topo_gpu_busy **out, ry_error_t *err)
{
    char(*busids)[TOPO_BUSID_LEN] = NULL;
    nvml_device_t *devs = NULL;
    struct nvml_api api;
    char *note = NULL;
    unsigned n = 0;
    int rc;

    *out = NULL;
    if ((rc = open_gpus(&api, &n, &devs, &busids, &note, err)) != 0) {
        if (rc > 0) {
            ry_errorf(err, "%s", note);
            free(note);
        }
        return -1;
    }
    *out = xcalloc(n + 1, sizeof(**out));
    for (unsigned i = 0; i < n; i++) {
        struct topo_gpu_busy *b = &(*out)[i];
        struct nvml_process procs[64];
        struct nvml_utilization u;
        unsigned np = 64;
        nvml_return_t r;

        snprintf(b->busid, sizeof(b->busid), "%s", busids[i]);
        b->processes = b->util_gpu = b->util_memory = -1;
        if (api.processes && ((r = api.processes(devs[i], &np, procs)) == NVML_OK ||
                              r == NVML_ERROR_INSUFFICIENT_SIZE)) {
            b->processes = 0;
            for (unsigned k = 0; r == NVML_OK && k < np && k < 64; k++)
                if (procs[k].pid != (unsigned)getpid()) {
                    if (!b->processes)
                        b->first_pid = (int)procs[k].pid;
                    b->processes++;
                }
            if (r == NVML_ERROR_INSUFFICIENT_SIZE)
                b->processes = (int)np; /* more than 64: busy in any case */
        }
        if (api.utilization && api.utilization(devs[i], &u) == NVML_OK) {
            b->util_gpu = (int)u.gpu;
            b->util_memory = (int)u.memory;
        }
    }
    free(devs);
    free(busids);
    api.shutdown();
    dlclose(api.dl);
    return (int)n;
}

int topo_gpu_busy_why(const struct topo_gpu_busy *b, char *why, size_t len)
{
    why[0] = '\0';
    if (b->processes > 0)
        snprintf(why, len, "%d other process%s on it (pid %d)", b->processes,
                 b->processes == 1 ? "" : "es", b->first_pid);
    else if (b->util_gpu > TOPO_GPU_BUSY_PERCENT)
        snprintf(why, len, "%d%% busy with no process this user can see", b->util_gpu);
    else if (b->util_memory > TOPO_GPU_BUSY_PERCENT)
        snprintf(why, len, "its memory %d%% busy", b->util_memory);
    return why[0] != '\0';
}

/* ---- NVLink counters, sampled by a console ---- */

struct topo_nvml_links {
    struct nvml_api api;
    unsigned n;
    nvml_device_t *devs;
    char (*busid)[TOPO_BUSID_LEN];
    struct topo_nvlink_sample *v;
    size_t nv, alloc;
};

void topo_nvml_links_close(struct topo_nvml_links *s)
{
    if (!s)
        return;
    s->api.shutdown();
    dlclose(s->api.dl);
    free(s->devs);
    free(s->busid);
    free(s->v);
    free(s);
}

struct topo_nvml_links *topo_nvml_links_open(char *why, size_t len, int *failed)
{
    struct topo_nvml_links *s = xcalloc(1, sizeof(*s));
    ry_error_t e = { "" };
    char *note = NULL;
    int rc = open_gpus(&s->api, &s->n, &s->devs, &s->busid, &note, &e);

    if (failed)
        *failed = rc < 0;
    if (rc != 0) {
        snprintf(why, len, "%s", rc > 0 ? note : e.text);
        free(note);
        free(s);
        return NULL;
    }
    if (!s->api.nvlink_state) {
        snprintf(why, len, "this NVIDIA driver has no nvmlDeviceGetNvLinkState");
        goto fail;
    }
    if (!s->n) {
        snprintf(why, len, "NVIDIA driver loaded, no GPU visible");
        goto fail;
    }
    return s;
fail:
    topo_nvml_links_close(s);
    return NULL;
}

size_t topo_nvml_links_sample(struct topo_nvml_links *s, const struct topo_nvlink_sample **out)
{
    s->nv = 0;
    for (unsigned i = 0; i < s->n; i++)
        for (unsigned l = 0; l < NVML_NVLINK_MAX; l++) {
            struct topo_nvlink_sample *x;
            struct nvml_pci_info rp;
            int active = 0;
            /* links that do not exist on this GPU return an error */
            if (s->api.nvlink_state(s->devs[i], l, &active) != NVML_OK)
                continue;
            xgrow((void **)&s->v, &s->alloc, s->nv + 1, sizeof(*s->v));
            x = &s->v[s->nv++];
            memset(x, 0, sizeof(*x));
            x->gpu = i;
            x->link = l;
            x->active = active != 0;
            snprintf(x->busid, sizeof(x->busid), "%s", s->busid[i]);
            if (active && s->api.nvlink_remote_pci &&
                s->api.nvlink_remote_pci(s->devs[i], l, &rp) == NVML_OK &&
                topo_nvtarget_normalize(rp.bus_id, x->remote) < 0)
                x->remote[0] = '\0';
            if (active && !x->remote[0] && s->api.nvlink_remote_type) {
                int type; /* as in discovery: a switch link whose address NVML does not give */
                if (s->api.nvlink_remote_type(s->devs[i], l, &type) == NVML_OK &&
                    type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
                    snprintf(x->remote, sizeof(x->remote), "ffffffff:ff:ff.0");
            }
            if (s->api.field_values) {
                struct nvml_field_value f[2];
                memset(f, 0, sizeof(f));
                f[0].field_id = NVML_FI_NVLINK_DATA_TX;
                f[1].field_id = NVML_FI_NVLINK_DATA_RX;
                f[0].scope_id = f[1].scope_id = l;
                if (s->api.field_values(s->devs[i], 2, f) == NVML_OK && f[0].ret == NVML_OK &&
                    f[1].ret == NVML_OK && f[0].value_type == NVML_VALUE_ULL &&
                    f[1].value_type == NVML_VALUE_ULL) {
                    x->have_data = 1;
                    x->tx_kib = f[0].value.ull;
                    x->rx_kib = f[1].value.ull;
                }
            }
            if (s->api.nvlink_error) /* some GPUs lack a counter (CRC data on newer ones) */
                for (int c = 0; c < NVML_NVLINK_ERRORS; c++)
                    if (s->api.nvlink_error(s->devs[i], l, c, &x->errors[c]) == NVML_OK)
                        x->have_errors |= 1 << c;
        }
    *out = s->v;
    return s->nv;
}
