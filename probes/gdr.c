#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/sysfs.h"
#include "fabric/cuda.h"
#include "fabric/gpu_mr.h"
#include "probes/gdr.h"
#include "readers/pci_acs.h"
#include "topo/pci.h"

#define CHAIN_MAX 16

static int is_nvidia(const struct topo_gpu *g)
{
    return g->pci_vendor == TOPO_PCI_VENDOR_NVIDIA || (g->vendor && !strcmp(g->vendor, "NVIDIA"));
}

/* the first line of proc_root/rel, "" when absent */
static void read_proc(const char *proc_root, const char *rel, char *buf, size_t len)
{
    const char *root = proc_root ? proc_root : getenv("RAILYARD_PROC_ROOT");
    char path[4096];
    FILE *fp;

    buf[0] = '\0';
    if (root && !*root)
        return; /* a capture without /proc: unknown */
    snprintf(path, sizeof(path), "%s/%s", root ? root : "/proc", rel);
    if (!(fp = fopen(path, "r")))
        return;
    if (fgets(buf, (int)len, fp))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(fp);
}

static void driver_facts(const char *sroot, int have_sys, const char *proot, struct gdr_report *r)
{
    char line[256];
    int major = 0, minor = 0;

    r->modules_known = have_sys && ry_sysfs_exists(sroot, "module");
    r->peermem = ry_sysfs_exists(sroot, "module/nvidia_peermem") ||
                 ry_sysfs_exists(sroot, "module/nv_peer_mem");
    r->open_module = -1;
    /* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.03  Release Build ..." */
    read_proc(proot, "driver/nvidia/version", line, sizeof(line));
    if (line[0]) {
        char copy[256], *ver = NULL;
        r->open_module = strstr(line, "Open Kernel Module") != NULL;
        snprintf(copy, sizeof(copy), "%s", line);
        for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t && !ver;
             t = strtok_r(NULL, " \t", &save))
            if (t[0] >= '0' && t[0] <= '9' && strchr(t, '.') &&
                strspn(t, "0123456789.") == strlen(t))
                ver = t;
        snprintf(r->driver, sizeof(r->driver), "%s, %s kernel module",
                 ver ? ver : "version unknown", r->open_module ? "open" : "proprietary");
    } else if (r->modules_known &&
               ry_sysfs_read(sroot, line, sizeof(line), NULL, "module/nvidia/version") == 0)
        snprintf(r->driver, sizeof(r->driver), "%.100s", line); /* loaded; flavour unknown */
    read_proc(proot, "sys/kernel/osrelease", r->kernel, sizeof(r->kernel));
    r->kernel_dmabuf = -1;
    if (r->kernel[0] && sscanf(r->kernel, "%d.%d", &major, &minor) == 2)
        r->kernel_dmabuf = major > 5 || (major == 5 && minor >= 12);
#if defined(HAVE_DECL_IBV_REG_DMABUF_MR) && HAVE_DECL_IBV_REG_DMABUF_MR
    r->verbs_dmabuf = 1;
#elif defined(HAVE_VERBS)
    r->verbs_dmabuf = 0;
#else
    r->verbs_dmabuf = -1; /* built without libibverbs: the node's rdma-core is unknown here */
#endif
}

static void judge_driver(const char *host, const struct gdr_report *r, struct topo_findings *out)
{
    char obs[256];
    int dmabuf = r->open_module == 1 && r->kernel_dmabuf == 1 && r->verbs_dmabuf != 0;

    if (r->peermem) {
        snprintf(obs, sizeof(obs), "nvidia-peermem loaded%s", dmabuf ? "; dma-buf usable" : "");
        topo_findings_add(out, TOPO_SEV_OK, "gdr.driver", host, "peer memory or dma-buf", obs,
                          NULL);
    } else if (dmabuf) {
        snprintf(obs, sizeof(obs), "dma-buf (%s, kernel %s)", r->driver, r->kernel);
        topo_findings_add(out, TOPO_SEV_OK, "gdr.driver", host, "peer memory or dma-buf", obs,
                          NULL);
    } else if (!r->driver[0]) {
        topo_findings_add(out, TOPO_SEV_FAIL, "gdr.driver", host, "peer memory or dma-buf",
                          "the NVIDIA kernel driver is not loaded", "load the nvidia module");
    } else {
        snprintf(obs, sizeof(obs), "no nvidia-peermem; dma-buf: %s%s%s",
                 r->open_module == 0     ? "proprietary kernel module"
                 : r->open_module < 0    ? "driver flavour unknown"
                 : r->kernel_dmabuf == 0 ? "kernel older than 5.12"
                 : r->kernel_dmabuf < 0  ? "kernel release unknown"
                                         : "",
                 !r->verbs_dmabuf ? (r->open_module == 1 && r->kernel_dmabuf == 1 ? "" : ", ") : "",
                 !r->verbs_dmabuf ? "libibverbs without ibv_reg_dmabuf_mr" : "");
        topo_findings_add(out, TOPO_SEV_FAIL, "gdr.driver", host, "peer memory or dma-buf", obs,
                          "modprobe nvidia-peermem, or run NVIDIA's open kernel modules on a "
                          "kernel >= 5.12 with rdma-core >= 34 (dma-buf)");
    }
}

/* ACS on the bridges between two devices below their common ancestor */
static void judge_acs(const char *host, const char *sroot, const struct topo_gpu *g,
                      const struct topo_nic *n, struct topo_findings *out, char *nj, size_t njlen)
{
    char a[CHAIN_MAX][16], b[CHAIN_MAX][16], subject[256], bad[512] = "", why[300] = "";
    size_t na = topo_pci_chain(sroot, g->loc.busid, a, CHAIN_MAX),
           nb = topo_pci_chain(sroot, n->loc.busid, b, CHAIN_MAX), k = 0, checked = 0;

    snprintf(subject, sizeof(subject), "%s/gpu%d<->%s", host, g->index, n->name);
    if (!na || !nb) {
        snprintf(nj, njlen, "ACS not judged: the PCI path of %s is not in the sysfs tree",
                 !na ? g->loc.busid : n->loc.busid);
        return;
    }
    while (k < na - 1 && k < nb - 1 && !strcmp(a[k], b[k]))
        k++;
    for (int side = 0; side < 2; side++) {
        char(*c)[16] = side ? b : a;
        size_t len = side ? nb : na;
        for (size_t i = k; i + 1 < len; i++) {
            unsigned ctrl;
            ry_error_t err;
            if (topo_pci_acs_ctrl(sroot, c[i], &ctrl, &err) < 0) {
                if (errno != ENOENT && !why[0])
                    snprintf(why, sizeof(why), "%.290s", err.text);
                continue;
            }
            checked++;
            if (ctrl & (TOPO_ACS_REQ_REDIRECT | TOPO_ACS_CMPLT_REDIRECT | TOPO_ACS_EGRESS)) {
                size_t used = strlen(bad);
                snprintf(bad + used, sizeof(bad) - used, "%s%s (%s%s%s)", used ? ", " : "", c[i],
                         ctrl & TOPO_ACS_REQ_REDIRECT ? "ReqRedir " : "",
                         ctrl & TOPO_ACS_CMPLT_REDIRECT ? "CmpltRedir " : "",
                         ctrl & TOPO_ACS_EGRESS ? "EgressCtrl " : "");
                bad[strlen(bad) - 2] = ')'; /* drop the space before ')' */
                bad[strlen(bad) - 1] = '\0';
            }
        }
    }
    if (bad[0]) {
        char obs[600];
        snprintf(obs, sizeof(obs), "ACS P2P redirect on %s", bad);
        topo_findings_add(out, TOPO_SEV_FAIL, "gdr.acs", subject, "no P2P redirect", obs,
                          "GPU<->NIC traffic detours through the root complex (often half the "
                          "GPUDirect bandwidth): disable ACS on these switch ports (BIOS, or "
                          "setpci at boot) where no IOMMU isolation needs it");
    } else if (checked) {
        char obs[64];
        snprintf(obs, sizeof(obs), "off on %zu bridge%s", checked, checked == 1 ? "" : "s");
        topo_findings_add(out, TOPO_SEV_OK, "gdr.acs", subject, "no P2P redirect", obs, NULL);
    } else if (why[0])
        snprintf(nj, njlen, "ACS not judged: %s", why);
}

/* Allocate 2 MiB on the GPU, export it as a dma-buf and register it with the NIC. */
static void run_probe(const struct topo_gpu *g, const struct topo_nic *n, struct gdr_report *r,
                      const char *host, struct topo_findings *out)
{
    struct fabric_cuda_dev dev;
    struct fabric_cuda_buf b;
    ry_error_t err = { "" };
    char how[256] = "", subject[256];
    int fd = -1;
    size_t used;

    if (fabric_cuda_load(&err) < 0) {
        snprintf(r->probe, sizeof(r->probe), "skipped: %s", err.text);
        return;
    }
    r->probe_ran = 1;
    if (fabric_cuda_device(g->loc.busid, &dev, &err) < 0 ||
        fabric_cuda_alloc(dev.ordinal, 2 << 20, &b, &err) < 0) {
        snprintf(r->probe, sizeof(r->probe), "gpu%d %s: %s", g->index, g->loc.busid, err.text);
        if (n) {
            snprintf(subject, sizeof(subject), "%s/gpu%d<->%s", host, g->index, n->name);
            topo_findings_add(out, TOPO_SEV_FAIL, "gdr.dmabuf", subject, "GPU memory registered",
                              err.text, NULL);
        }
        return;
    }
    used = (size_t)snprintf(
        r->probe, sizeof(r->probe), "gpu%d %s (%s, driver %d.%d, dma-buf attribute %s): ", g->index,
        dev.busid, dev.name, dev.driver_version / 1000, dev.driver_version % 1000 / 10,
        dev.dma_buf < 0 ? "unknown"
        : dev.dma_buf   ? "yes"
                        : "no");
    if (fabric_cuda_dmabuf(&b, &fd, &err) == 0)
        used += (size_t)snprintf(r->probe + used, sizeof(r->probe) - used,
                                 "2 MiB exported as dma-buf fd %d", fd);
    else
        used += (size_t)snprintf(r->probe + used, sizeof(r->probe) - used,
                                 "dma-buf export failed: %s", err.text);
    if (used >= sizeof(r->probe))
        used = sizeof(r->probe) - 1;
    if (n) {
        int rc = fabric_verbs_register_gpu(n->name, b.dptr, b.size, fd, how, sizeof(how), &err);
        snprintf(subject, sizeof(subject), "%s/gpu%d<->%s", host, g->index, n->name);
        snprintf(r->probe + used, sizeof(r->probe) - used, "; %s: %s", n->name,
                 rc == 0 ? how : err.text);
        topo_findings_add(out, rc == 0 ? TOPO_SEV_OK : TOPO_SEV_FAIL, "gdr.dmabuf", subject,
                          "GPU memory registered", rc == 0 ? how : err.text,
                          rc == 0 ? NULL
                                  : "the NIC cannot reach GPU memory: see gdr.driver; "
                                    "GPUDirect RDMA traffic will fall back to host memory");
    } else
        snprintf(r->probe + used, sizeof(r->probe) - used, "; no RDMA device to register it with");
    if (fd >= 0)
        close(fd);
    fabric_cuda_free(&b);
}

void gdr_check(const struct topo_node *node, const char *host, const char *sysfs_root,
               const char *proc_root, int live, struct gdr_report *r, struct topo_findings *out)
{
    int probe = live, have_sys = live || sysfs_root;
    const struct topo_gpu *first = NULL;
    int first_nic = -1;

    memset(r, 0, sizeof(*r));
    for (size_t i = 0; i < node->ngpus; i++)
        if (is_nvidia(&node->gpus[i])) {
            r->gpus++;
            if (!first)
                first = &node->gpus[i];
        }
    for (size_t i = 0; i < node->nnics; i++)
        r->nics += node->nics[i].rdma != 0;
    driver_facts(sysfs_root, have_sys, live ? proc_root : proc_root ? proc_root : "", r);
    if (!r->gpus || !r->nics)
        snprintf(r->not_judged, sizeof(r->not_judged), "GPUDirect RDMA not judged: %s",
                 !r->gpus && !r->nics ? "no NVIDIA GPU and no RDMA device"
                 : !r->gpus           ? "no NVIDIA GPU"
                                      : "no RDMA device");
    else if (!r->modules_known)
        snprintf(r->not_judged, sizeof(r->not_judged),
                 "the GPUDirect driver path is not judged: the input has no module list");
    else
        judge_driver(host, r, out);
    /* each GPU with its nearest NIC */
    for (size_t i = 0; i < node->ngpus && r->nics; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        int n = is_nvidia(g) ? topo_node_nearest_nic(node, i) : -1;
        enum topo_path p;
        char subject[256], obs[64];
        if (n < 0)
            continue;
        if (first == g)
            first_nic = n;
        p = topo_node_gpu_nic_path(node, i, (size_t)n);
        snprintf(subject, sizeof(subject), "%s/gpu%d<->%s", host, g->index, node->nics[n].name);
        snprintf(obs, sizeof(obs), "%s", topo_path_name(p));
        topo_findings_add(out, p <= TOPO_PATH_PXB ? TOPO_SEV_OK : TOPO_SEV_WARN, "gdr.path",
                          subject, "PIX or PXB", obs,
                          p <= TOPO_PATH_PXB
                              ? NULL
                              : "the GPU and its nearest NIC meet only at or above the host "
                                "bridge: NCCL leaves GPUDirect RDMA off at this distance by "
                                "default (NCCL_NET_GDR_LEVEL), and P2P crosses the CPU");
        if ((p == TOPO_PATH_PIX || p == TOPO_PATH_PXB) && !have_sys) {
            if (!r->not_judged[0])
                snprintf(r->not_judged, sizeof(r->not_judged),
                         "ACS not judged: the input has no sysfs tree");
        } else if (p == TOPO_PATH_PIX || p == TOPO_PATH_PXB) {
            char nj[320] = "";
            judge_acs(host, sysfs_root, g, &node->nics[n], out, nj, sizeof(nj));
            if (nj[0] && !r->not_judged[0])
                snprintf(r->not_judged, sizeof(r->not_judged), "%s", nj);
        }
    }
    if (probe && first)
        run_probe(first, first_nic >= 0 ? &node->nics[first_nic] : NULL, r, host, out);
    else if (probe)
        snprintf(r->probe, sizeof(r->probe), "skipped: no NVIDIA GPU in this node's topology");
}
