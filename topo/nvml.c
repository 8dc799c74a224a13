#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/xmalloc.h"
#include "topo/nvml.h"

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
};

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

struct switch_links {
    char busid[TOPO_BUSID_LEN];
    int links;
};

static void read_gpu(struct topo_node *node, struct nvml_api *api, nvml_device_t dev,
                     const char *busid, struct switch_links *sw, char (*all)[TOPO_BUSID_LEN],
                     unsigned ndev)
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
    snprintf(sw->busid, sizeof(sw->busid), "%s", busid);
    for (unsigned l = 0; l < NVML_NVLINK_MAX; l++) {
        struct nvml_pci_info rp;
        char rb[TOPO_BUSID_LEN];
        int active = 0, peer_is_gpu = 0;
        /* links that do not exist on this GPU return an error */
        if (api->nvlink_state(dev, l, &active) != NVML_OK)
            continue;
        g->nvlink_links++;
        if (!active)
            continue;
        g->nvlink_active++;
        if (!api->nvlink_remote_pci || api->nvlink_remote_pci(dev, l, &rp) != NVML_OK ||
            topo_busid_normalize(rp.bus_id, rb) < 0)
            continue;
        for (unsigned k = 0; k < ndev; k++)
            if (!strcmp(all[k], rb))
                peer_is_gpu = 1;
        if (peer_is_gpu) {
            /* both ends enumerate the link: count it from the lower address only */
            if (strcmp(busid, rb) < 0)
                topo_node_add_nvlink(node, busid, rb, 1);
        } else
            sw->links++; /* NVSwitch */
    }
}

int topo_nvml_discover(struct topo_node *node, ry_error_t *err)
{
    const char *lib = getenv("RAILYARD_NVML_LIBRARY");
    struct switch_links *sw = NULL;
    char(*busids)[TOPO_BUSID_LEN] = NULL;
    nvml_device_t *devs = NULL;
    struct nvml_api api;
    ry_error_t why;
    char ver[NVML_DRIVER_VER_LEN];
    unsigned n = 0;
    nvml_return_t r;
    int rc = -1;

    if (!lib || !*lib)
        lib = "libnvidia-ml.so.1";
    if (load_api(&api, lib, &why) < 0) {
        free(node->gpu_driver_note);
        node->gpu_driver_note = xasprintf("no NVIDIA driver (%s)", why.text);
        return 0;
    }
    if ((r = api.init()) != NVML_OK) {
        free(node->gpu_driver_note);
        node->gpu_driver_note = xasprintf("no NVIDIA driver (nvmlInit: %s)", nvml_err(&api, r));
        dlclose(api.dl);
        return 0;
    }
    node->gpus_listed = 1;
    if ((r = api.count(&n)) != NVML_OK) {
        ry_errorf(err, "nvml: nvmlDeviceGetCount: %s", nvml_err(&api, r));
        goto out;
    }
    if (n == 0) {
        free(node->gpu_driver_note);
        node->gpu_driver_note = xstrdup("NVIDIA driver loaded, no GPU visible");
    } else {
        devs = xcalloc(n, sizeof(*devs));
        busids = xcalloc(n, sizeof(*busids));
        sw = xcalloc(n, sizeof(*sw));
    }
    for (unsigned i = 0; i < n; i++) {
        struct nvml_pci_info pci;
        if ((r = api.handle(i, &devs[i])) != NVML_OK || (r = api.pci(devs[i], &pci)) != NVML_OK) {
            ry_errorf(err, "nvml: GPU %u: %s", i, nvml_err(&api, r));
            goto out;
        }
        if (topo_busid_normalize(pci.bus_id, busids[i]) < 0) {
            errno = EINVAL;
            ry_errorf(err, "nvml: GPU %u: unexpected PCI address '%.32s'", i, pci.bus_id);
            goto out;
        }
    }
    for (unsigned i = 0; i < n; i++)
        read_gpu(node, &api, devs[i], busids[i], &sw[i], busids, n);
    /* GPUs on the same NVSwitch fabric reach each other over their switch links */
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++)
            if (sw[i].links > 0 && sw[j].links > 0)
                topo_node_add_nvlink(node, sw[i].busid, sw[j].busid,
                                     sw[i].links < sw[j].links ? sw[i].links : sw[j].links);
    if (api.driver_version && api.driver_version(ver, sizeof(ver)) == NVML_OK)
        topo_node_add_source(node, "nvml (driver %s)", ver);
    else
        topo_node_add_source(node, "nvml");
    rc = 0;
out:
    free(devs);
    free(busids);
    free(sw);
    api.shutdown();
    dlclose(api.dl);
    return rc;
}
