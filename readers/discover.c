#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "readers/bundle.h"
#include "readers/discover.h"
#include "readers/gpubw.h"
#include "readers/hwloc.h"
#include "readers/nccl.h"
#include "readers/nvml.h"
#include "readers/nvml_record.h"
#include "readers/pastes.h"
#include "readers/sysfs.h"

#define BUNDLE_MAGIC "railyard-bundle 1"

extern char **environ;

/* snprintf for paths: a path that does not fit is cut (and then not found), never overrun */
static int pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int pathf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

static int run_tar(char *const argv[], ry_error_t *err)
{
    posix_spawn_file_actions_t fa;
    int status, rc;
    pid_t pid;

    posix_spawn_file_actions_init(&fa);
    /* tar's messages would not name our input: the caller reports the failure in one line */
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return ry_errorf(err, "cannot run %s: %s", argv[0], strerror(rc));
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return ry_errorf(err, "waiting for %s: %s", argv[0], strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        errno = EIO;
        return ry_errorf(err, "%s failed (status %d)", argv[0],
                         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
    return 0;
}

static int make_tmpdir(char *buf, size_t len, ry_error_t *err)
{
    const char *tmp = getenv("TMPDIR");

    pathf(buf, len, "%s/railyard.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(buf))
        return ry_errorf(err, "cannot create a directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
                         strerror(errno));
    return 0;
}

/* Extract bundle into a new directory; *top receives the bundle's top directory inside it */
static int bundle_extract(const char *bundle, char *tmp, size_t tmplen, char *top, size_t toplen,
                          ry_error_t *err)
{
    char magic[512];
    char **names = NULL;
    size_t n = 0;
    FILE *f;

    if (!(f = fopen(bundle, "r")))
        return ry_errorf(err, "cannot open %s: %s", bundle, strerror(errno));
    fclose(f);
    if (make_tmpdir(tmp, tmplen, err) < 0)
        return -1;
    if (topo_bundle_unpack(bundle, tmp, err) < 0)
        return -1;
    if (ry_sysfs_list(tmp, &names, &n, err, ".") < 0)
        return -1;
    if (n != 1 || pathf(top, toplen, "%s/%s", tmp, names[0]) >= (int)toplen ||
        ry_sysfs_read(top, magic, sizeof(magic), NULL, "railyard-bundle") < 0 ||
        strncmp(magic, BUNDLE_MAGIC, strlen(BUNDLE_MAGIC)) != 0) {
        ry_sysfs_list_free(names, n);
        errno = EINVAL;
        return ry_errorf(err, "%s: not a railyard gather bundle (no %s marker)", bundle,
                         BUNDLE_MAGIC);
    }
    ry_sysfs_list_free(names, n);
    return 0;
}

int topo_inputs_given(const struct topo_inputs *in)
{
    return in->sysfs_root || in->hwloc_xml || in->nccl_topo || in->bundle || in->ibstat ||
           in->nvlink_status || in->nvbandwidth || in->p2p_bandwidth || in->bandwidth_test;
}

struct topo_node *topo_discover(const struct topo_inputs *inputs, ry_error_t *err)
{
    struct topo_inputs in = *inputs;
    struct topo_node *node = topo_node_create();
    char tmp[PATH_MAX] = "", top[PATH_MAX], sysdir[PATH_MAX + 8], xml[PATH_MAX + 16];
    char host[256];
    int captured, rdma = 0;

    if (!in.hwloc_xml && getenv("RAILYARD_HWLOC_XML") && *getenv("RAILYARD_HWLOC_XML"))
        in.hwloc_xml = getenv("RAILYARD_HWLOC_XML");
    if (in.bundle) {
        if (bundle_extract(in.bundle, tmp, sizeof(tmp), top, sizeof(top), err) < 0)
            goto fail;
        pathf(sysdir, sizeof(sysdir), "%s/sys", top);
        pathf(xml, sizeof(xml), "%s/hwloc.xml", top);
        in.sysfs_root = sysdir;
        if (!in.hwloc_xml && access(xml, R_OK) == 0)
            in.hwloc_xml = xml;
        if (ry_sysfs_read(top, host, sizeof(host), NULL, "hostname") == 0 && host[0])
            node->hostname = xstrdup(host);
    }
    captured =
        topo_inputs_given(&in) || (getenv("RAILYARD_SYSFS_ROOT") && *getenv("RAILYARD_SYSFS_ROOT"));

    if (in.nccl_topo) {
        if (topo_nccl_discover(node, in.nccl_topo, err) < 0)
            goto fail;
    } else if (in.hwloc_xml || !captured) {
        if (topo_hwloc_discover(node, in.hwloc_xml, err) < 0)
            goto fail;
    }
    if (!captured) {
        if (topo_sysfs_discover_live(node, NULL, err) < 0)
            goto fail;
    } else if (in.sysfs_root) {
        if (topo_sysfs_discover(node, in.sysfs_root, !in.hwloc_xml && !in.nccl_topo, err) < 0)
            goto fail;
    }
    if (!captured && topo_nvml_discover(node, err) < 0)
        goto fail;
    if (in.bundle) {
        /* what NVML said when the bundle was gathered (bundles of railyard 0.1.0 before it
         * recorded it have none: the driver is then not judged) */
        char rec[PATH_MAX + 8];
        pathf(rec, sizeof(rec), "%s/nvml", top);
        if (access(rec, F_OK) == 0 && topo_nvml_replay(node, rec, err) < 0) {
            ry_error_prefix(err, "%s", in.bundle);
            goto fail;
        }
    }
    if (in.ibstat && topo_ibstat_read(node, in.ibstat, err) < 0)
        goto fail;
    if (in.nvlink_status && topo_nvlink_status_read(node, in.nvlink_status, err) < 0)
        goto fail;
    /* after the topology: the captures' GPUs are matched with those it lists */
    if (in.nvbandwidth && topo_nvbandwidth_read(node, in.nvbandwidth, err) < 0)
        goto fail;
    if (in.p2p_bandwidth && topo_p2p_bandwidth_read(node, in.p2p_bandwidth, err) < 0)
        goto fail;
    if (in.bandwidth_test && topo_bandwidth_test_read(node, in.bandwidth_test, err) < 0)
        goto fail;
    if (!node->hostname && !captured && gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        node->hostname = xstrdup(host);
    }
    if (in.bundle)
        topo_node_add_source(node, "bundle %s", in.bundle);
    topo_node_sort(node);
    for (size_t i = 0; i < node->nnics; i++)
        rdma |= node->nics[i].rdma;
    if (captured && node->ngpus == 0 && !node->gpu_driver_note)
        node->gpu_driver_note = xstrdup("no GPU in the captured input");
    if (!rdma && !node->rdma_note)
        node->rdma_note = xstrdup("no RDMA devices");
    ry_rm_tree(tmp);
    return node;
fail:
    ry_rm_tree(tmp);
    topo_node_destroy(node);
    return NULL;
}

/* ---- gather ---- */

/* Copy one sysfs attribute (relative path) into dst/sys/; absent or unreadable ones are
 * skipped: a capture keeps what the machine shows */
static int copy_attr(const char *dst, const char *rel, ry_error_t *err)
{
    char buf[8192], path[PATH_MAX], dir[PATH_MAX];
    FILE *f;
    char *slash;

    if (ry_sysfs_read(NULL, buf, sizeof(buf), NULL, "%s", rel) < 0)
        return 0;
    if (pathf(path, sizeof(path), "%s/sys/%s", dst, rel) >= (int)sizeof(path))
        return ry_errorf(err, "path too long: %s", rel);
    pathf(dir, sizeof(dir), "%s", path);
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    if (ry_mkdirs(dir) < 0 || !(f = fopen(path, "w")))
        return ry_errorf(err, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "%s\n", buf);
    if (fclose(f) != 0)
        return ry_errorf(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

static int copy_dir_attrs(const char *dst, const char *reldir, ry_error_t *err)
{
    char **names;
    size_t n;
    int rc = 0;

    if (ry_sysfs_list(NULL, &names, &n, NULL, "%s", reldir) < 0)
        return 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char rel[PATH_MAX];
        pathf(rel, sizeof(rel), "%s/%s", reldir, names[i]);
        rc = copy_attr(dst, rel, err);
    }
    ry_sysfs_list_free(names, n);
    return rc;
}

static int link_to_pci(const char *dst, const char *rel, ry_error_t *err)
{
    char busid[64], path[PATH_MAX], target[PATH_MAX];
    int depth = 0;

    if (ry_sysfs_link_base(NULL, busid, sizeof(busid), NULL, "%s", rel) < 0)
        return 0;
    for (const char *p = rel; *p; p++)
        depth += *p == '/';
    target[0] = '\0';
    for (int i = 0; i < depth; i++)
        strcat(target, "../");
    strcat(target, "bus/pci/devices/");
    strncat(target, busid, sizeof(target) - strlen(target) - 1);
    pathf(path, sizeof(path), "%s/sys/%s", dst, rel);
    if (symlink(target, path) < 0 && errno != EEXIST)
        return ry_errorf(err, "cannot create %s: %s", path, strerror(errno));
    return 0;
}

static const char *const pci_attrs[] = { "class",
                                         "vendor",
                                         "device",
                                         "subsystem_vendor",
                                         "subsystem_device",
                                         "numa_node",
                                         "local_cpulist",
                                         "current_link_speed",
                                         "current_link_width",
                                         "max_link_speed",
                                         "max_link_width",
                                         NULL };
static const char *const port_attrs[] = { "state",          "phys_state", "rate",
                                          "link_layer",     "lid",        "sm_lid",
                                          "lid_mask_count", "cap_mask",   NULL };
static const char *const dev_attrs[] = { "fw_ver",         "board_id",  "hca_type",  "node_guid",
                                         "sys_image_guid", "node_desc", "node_type", NULL };
static const char *const net_attrs[] = { "operstate", "speed",    "mtu",     "address",
                                         "type",      "dev_port", "carrier", NULL };

static int gather_ib(const char *dst, ry_error_t *err)
{
    char **devs = NULL;
    size_t n = 0;
    int rc = 0;

    if (ry_sysfs_list(NULL, &devs, &n, NULL, "class/infiniband") < 0)
        return 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char rel[PATH_MAX], **ports = NULL, **nets = NULL;
        size_t np = 0, nn = 0;
        for (int a = 0; dev_attrs[a] && rc == 0; a++) {
            pathf(rel, sizeof(rel), "class/infiniband/%s/%s", devs[i], dev_attrs[a]);
            rc = copy_attr(dst, rel, err);
        }
        ry_sysfs_list(NULL, &ports, &np, NULL, "class/infiniband/%s/ports", devs[i]);
        for (size_t p = 0; p < np && rc == 0; p++) {
            static const char *const subdirs[] = { "gids",     "gid_attrs/types", "gid_attrs/ndevs",
                                                   "counters", "hw_counters",     NULL };
            for (int a = 0; port_attrs[a] && rc == 0; a++) {
                pathf(rel, sizeof(rel), "class/infiniband/%s/ports/%s/%s", devs[i], ports[p],
                      port_attrs[a]);
                rc = copy_attr(dst, rel, err);
            }
            for (int s = 0; subdirs[s] && rc == 0; s++) {
                pathf(rel, sizeof(rel), "class/infiniband/%s/ports/%s/%s", devs[i], ports[p],
                      subdirs[s]);
                rc = copy_dir_attrs(dst, rel, err);
            }
        }
        ry_sysfs_list_free(ports, np);
        pathf(rel, sizeof(rel), "class/infiniband/%s/device", devs[i]);
        if (rc == 0)
            rc = link_to_pci(dst, rel, err);
        ry_sysfs_list(NULL, &nets, &nn, NULL, "class/infiniband/%s/device/net", devs[i]);
        for (size_t k = 0; k < nn && rc == 0; k++)
            for (int a = 0; net_attrs[a] && rc == 0; a++) {
                char busid[64];
                if (ry_sysfs_link_base(NULL, busid, sizeof(busid), NULL,
                                       "class/infiniband/%s/device", devs[i]) < 0)
                    break;
                pathf(rel, sizeof(rel), "bus/pci/devices/%s/net/%s/%s", busid, nets[k],
                      net_attrs[a]);
                rc = copy_attr(dst, rel, err);
            }
        ry_sysfs_list_free(nets, nn);
    }
    ry_sysfs_list_free(devs, n);
    return rc;
}

static int gather_sysfs(const char *dst, ry_error_t *err)
{
    char **names = NULL;
    size_t n = 0;
    int rc = 0;

    if (ry_sysfs_list(NULL, &names, &n, NULL, "bus/pci/devices") == 0) {
        for (size_t i = 0; i < n && rc == 0; i++)
            for (int a = 0; pci_attrs[a] && rc == 0; a++) {
                char rel[PATH_MAX];
                pathf(rel, sizeof(rel), "bus/pci/devices/%s/%s", names[i], pci_attrs[a]);
                rc = copy_attr(dst, rel, err);
            }
        ry_sysfs_list_free(names, n);
    }
    if (rc == 0 && ry_sysfs_list(NULL, &names, &n, NULL, "class/net") == 0) {
        for (size_t i = 0; i < n && rc == 0; i++) {
            char rel[PATH_MAX];
            for (int a = 0; net_attrs[a] && rc == 0; a++) {
                pathf(rel, sizeof(rel), "class/net/%s/%s", names[i], net_attrs[a]);
                rc = copy_attr(dst, rel, err);
            }
            pathf(rel, sizeof(rel), "class/net/%s", names[i]);
            if (rc == 0 && ry_mkdirs(dst) == 0) {
                char dir[PATH_MAX];
                pathf(dir, sizeof(dir), "%s/sys/%s", dst, rel);
                if (ry_mkdirs(dir) < 0)
                    rc = ry_errorf(err, "cannot create %s: %s", dir, strerror(errno));
            }
            pathf(rel, sizeof(rel), "class/net/%s/device", names[i]);
            if (rc == 0)
                rc = link_to_pci(dst, rel, err);
        }
        ry_sysfs_list_free(names, n);
    }
    if (rc == 0)
        rc = gather_ib(dst, err);
    return rc;
}

/* What NVML says, as discovery on this node reads it: the driver's state (absent or failing
 * too: a node whose driver is gone is what a bundle is gathered for), GPUs, NVLinks */
static int gather_nvml(const char *top, ry_error_t *err)
{
    struct topo_node *v = topo_node_create();
    ry_error_t why = { "" };
    char file[PATH_MAX + 8];
    int rc = topo_nvml_discover(v, &why), wrc;
    FILE *f;

    pathf(file, sizeof(file), "%s/nvml", top);
    if (!(f = fopen(file, "w"))) {
        topo_node_destroy(v);
        return ry_errorf(err, "cannot write %s: %s", file, strerror(errno));
    }
    wrc = topo_nvml_record(f, v, rc, why.text);
    topo_node_destroy(v);
    if (fclose(f) != 0 || wrc < 0)
        return ry_errorf(err, "cannot write %s: %s", file, strerror(errno));
    return 0;
}

int topo_gather(const char *path, ry_error_t *err)
{
    char tmp[PATH_MAX] = "", top[PATH_MAX + 300], file[PATH_MAX + 400], host[256] = "node";
    char abspath[PATH_MAX], stamp[64];
    time_t now = time(NULL);
    struct tm tm;
    FILE *f;
    int rc = -1;

    if (gethostname(host, sizeof(host)) < 0 || !host[0])
        pathf(host, sizeof(host), "node");
    host[sizeof(host) - 1] = '\0';
    if (path[0] == '/')
        pathf(abspath, sizeof(abspath), "%s", path);
    else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof(cwd)))
            return ry_errorf(err, "cannot get the current directory: %s", strerror(errno));
        if (pathf(abspath, sizeof(abspath), "%s/%s", cwd, path) >= (int)sizeof(abspath))
            return ry_errorf(err, "path too long: %s", path);
    }
    if (make_tmpdir(tmp, sizeof(tmp), err) < 0)
        return -1;
    pathf(top, sizeof(top), "%s/railyard-bundle-%s", tmp, host);
    if (ry_mkdirs(top) < 0) {
        ry_errorf(err, "cannot create %s: %s", top, strerror(errno));
        goto out;
    }
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    pathf(file, sizeof(file), "%s/railyard-bundle", top);
    if (!(f = fopen(file, "w"))) {
        ry_errorf(err, "cannot write %s: %s", file, strerror(errno));
        goto out;
    }
    fprintf(f, "%s\nrailyard %s\nhost %s\ndate %s\n", BUNDLE_MAGIC, PACKAGE_VERSION, host, stamp);
    fclose(f);
    pathf(file, sizeof(file), "%s/hostname", top);
    if ((f = fopen(file, "w"))) {
        fprintf(f, "%s\n", host);
        fclose(f);
    }
    pathf(file, sizeof(file), "%s/hwloc.xml", top);
    if (topo_hwloc_export_live(file, err) < 0)
        goto out;
    if (gather_sysfs(top, err) < 0)
        goto out;
    if (gather_nvml(top, err) < 0)
        goto out;
    {
        char base[PATH_MAX];
        pathf(base, sizeof(base), "railyard-bundle-%s", host);
        char *argv[] = { RY_TAR, "-c", "-z", "-f", abspath, "-C", tmp, base, NULL };
        if (run_tar(argv, err) < 0)
            goto out;
    }
    rc = 0;
out:
    ry_rm_tree(tmp);
    return rc;
}
