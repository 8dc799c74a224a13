#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers/sysfs.h"
#include "tests/fuzz/fuzz_util.h"
#include "topo/model.h"

/* libFuzzer target for the sysfs readers: a tree laid out as /sys is on a node with one RDMA
 * device (port 1, its GID, a PCI function and a network interface), whose attribute files hold
 * the input, cut at NUL bytes, one piece per file in the order below (a capture or a bundle
 * brings any bytes in them). Discovery gives a node or an error, never a crash, a leak or
 * undefined behaviour. Seed: a healthy port's values (tests/cli/t1103-fuzz.t). */

#define SYS  "sys"
#define IB   "class/infiniband/mlx5_0"
#define PORT IB "/ports/1"
#define PCI  "bus/pci/devices/0000:17:00.0"
#define NET  "class/net/eth0"

static const char *const files[] = {
    IB "/fw_ver",
    IB "/board_id",
    IB "/hca_type",
    IB "/node_guid",
    IB "/sys_image_guid",
    IB "/node_desc",
    IB "/node_type",
    PORT "/state",
    PORT "/phys_state",
    PORT "/rate",
    PORT "/link_layer",
    PORT "/lid",
    PORT "/sm_lid",
    PORT "/lid_mask_count",
    PORT "/cap_mask",
    PORT "/gids/0",
    PORT "/gid_attrs/types/0",
    PORT "/gid_attrs/ndevs/0",
    PORT "/counters/port_xmit_data",
    PORT "/hw_counters/out_of_sequence",
    PCI "/class",
    PCI "/vendor",
    PCI "/device",
    PCI "/subsystem_vendor",
    PCI "/subsystem_device",
    PCI "/numa_node",
    PCI "/local_cpulist",
    PCI "/current_link_speed",
    PCI "/current_link_width",
    PCI "/max_link_speed",
    PCI "/max_link_width",
    PCI "/net/eth0/dev_port",
    NET "/operstate",
    NET "/speed",
    NET "/mtu",
    NET "/address",
    NET "/type",
    NET "/dev_port",
    NET "/carrier",
};
static const char *const dirs[] = { PORT "/gids",
                                    PORT "/gid_attrs/types",
                                    PORT "/gid_attrs/ndevs",
                                    PORT "/counters",
                                    PORT "/hw_counters",
                                    PCI "/net/eth0",
                                    NET };

static const char *tree(void)
{
    static char root[600];
    char path[1024];

    if (root[0])
        return root;
    snprintf(root, sizeof(root), "%s/" SYS, fuzz_folder());
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
        if (ry_mkdirs(path) < 0)
            abort();
    }
    snprintf(path, sizeof(path), "%s/" IB "/device", root);
    if (symlink("../../../" PCI, path) < 0)
        abort();
    snprintf(path, sizeof(path), "%s/" NET "/device", root);
    if (symlink("../../../" PCI, path) < 0)
        abort();
    return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *root = tree();
    const uint8_t *p = data, *end = data + size;
    struct topo_node *node;
    ry_error_t err;

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        const uint8_t *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
        size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);
        char rel[256];
        snprintf(rel, sizeof(rel), SYS "/%s", files[i]);
        (void)fuzz_write(rel, p, n);
        p = nul ? nul + 1 : end;
    }
    for (int scan_pci = 0; scan_pci < 2; scan_pci++) {
        node = topo_node_create();
        if (topo_sysfs_discover(node, root, scan_pci, &err) == 0)
            topo_node_sort(node);
        topo_node_destroy(node);
    }
    return 0;
}
