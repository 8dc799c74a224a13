#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "readers/numa.h"
#include "tests/tap/tap.h"

static char root[256];

static void put(const char *rel, const char *content)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    f = fopen(path, "w");
    if (!f)
        abort();
    fputs(content, f);
    fclose(f);
}

int main(void)
{
    char buf[64], **names;
    ry_error_t err;
    uint64_t u;
    size_t n;
    int v;

    snprintf(root, sizeof(root), "%s/railyard-sysfs.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        skip_all("cannot create a temporary directory");
    put("rate", "400 Gb/sec (4X NDR)\n");
    put("num", "42\n");
    put("hex", "0x1f\n");
    put("neg", "-1\n");
    put("bad", "12abc\n");
    put("empty", "");
    put("long", "0123456789012345678901234567890123456789012345678901234567890123456789\n");
    mkdir(strcat(strcpy(buf, root), "/d"), 0755);
    put("d/mlx5_10", "");
    put("d/mlx5_2", "");
    put("d/mlx5_bond_0", "");

    ok(ry_sysfs_read(root, buf, sizeof(buf), &err, "rate") == 0, "read a value");
    is_str(buf, "400 Gb/sec (4X NDR)", "trailing newline removed");
    ok(ry_sysfs_read(root, buf, sizeof(buf), &err, "missing") < 0 && errno == ENOENT,
       "missing file: ENOENT");
    ok(strstr(err.text, "/missing") != NULL, "error names the file");
    ok(ry_sysfs_read(root, buf, sizeof(buf), &err, "long") < 0 && errno == ERANGE,
       "value longer than the buffer: ERANGE");
    ok(ry_sysfs_read_u64(root, &u, &err, "num") == 0 && u == 42, "decimal number");
    ok(ry_sysfs_read_u64(root, &u, &err, "hex") == 0 && u == 31, "hex number");
    ok(ry_sysfs_read_int(root, &v, &err, "neg") == 0 && v == -1, "negative int (numa_node)");
    ok(ry_sysfs_read_u64(root, &u, &err, "neg") < 0 && errno == EINVAL, "negative u64 refused");
    ok(ry_sysfs_read_u64(root, &u, &err, "bad") < 0 && errno == EINVAL, "12abc refused");
    ok(strstr(err.text, "bad: line 1: '12abc' is not a number") != NULL, "error quotes value");
    ok(ry_sysfs_read_int(root, &v, &err, "empty") < 0 && errno == EINVAL, "empty refused");
    ok(ry_sysfs_read(NULL, buf, 1, &err, "rate") < 0 && errno == EINVAL,
       "a one-byte buffer is refused");
    ok(ry_sysfs_list(root, &names, &n, &err, "d") == 0 && n == 3, "list a directory");
    ok(n == 3 && !strcmp(names[0], "mlx5_2") && !strcmp(names[1], "mlx5_10") &&
           !strcmp(names[2], "mlx5_bond_0"),
       "natural order: mlx5_2, mlx5_10, mlx5_bond_0");
    ry_sysfs_list_free(names, n);
    ok(ry_sysfs_list(root, &names, &n, &err, "nodir") < 0 && errno == ENOENT && !names,
       "missing directory: ENOENT");
    ok(ry_sysfs_exists(root, "d/mlx5_2") == 1, "exists");
    ok(ry_sysfs_exists(root, "d/mlx5_3") == 0, "does not exist");
    {
        /* NUMA placement: cpu0, cpu1 on node0, cpu2 on node1; a NIC on node 1 */
        char d[600];
        int c01[] = { 0, 1 }, c02[] = { 0, 2 }, c9[] = { 9 };
        const char *dirs[] = { "devices",
                               "devices/system",
                               "devices/system/cpu",
                               "devices/system/cpu/cpu0",
                               "devices/system/cpu/cpu0/node0",
                               "devices/system/cpu/cpu1",
                               "devices/system/cpu/cpu1/node0",
                               "devices/system/cpu/cpu2",
                               "devices/system/cpu/cpu2/node1",
                               "class",
                               "class/net",
                               "class/net/ib0",
                               "class/net/ib0/device",
                               "class/net/veth0" };
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
            snprintf(d, sizeof(d), "%s/%s", root, dirs[i]);
            mkdir(d, 0755);
        }
        put("class/net/ib0/device/numa_node", "1\n");
        is_int(topo_numa_of_cpus(root, c01, 2), 0, "cpus 0,1 are on NUMA node 0");
        is_int(topo_numa_of_cpus(root, c02, 2), -1, "cpus 0,2 span two nodes");
        is_int(topo_numa_of_cpus(root, c9, 1), -1, "an unknown cpu has no node");
        is_int(topo_numa_of_netdev(root, "ib0"), 1, "ib0's device is on node 1");
        is_int(topo_numa_of_netdev(root, "veth0"), -1, "a virtual interface has no node");
    }
    setenv("RAILYARD_SYSFS_ROOT", root, 1);
    is_str(ry_sysfs_root(NULL), root, "RAILYARD_SYSFS_ROOT is the default root");
    ok(ry_sysfs_read_u64(NULL, &u, &err, "num") == 0 && u == 42, "reads honour it");
    unsetenv("RAILYARD_SYSFS_ROOT");
    is_str(ry_sysfs_root(NULL), "/sys", "default root is /sys");
    ok(ry_natcmp("a2", "a10") < 0 && ry_natcmp("a10", "a2") > 0 && ry_natcmp("x", "x") == 0,
       "natcmp");
    {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        if (system(cmd) != 0)
            diag("could not remove %s", root);
    }
    return done_testing();
}
