#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/sysfs.h"
#include "readers/numa.h"

static int node_of_cpu(const char *root, int cpu)
{
    char **names;
    size_t n;
    int node = -1;

    if (ry_sysfs_list(root, &names, &n, NULL, "devices/system/cpu/cpu%d", cpu) < 0)
        return -1;
    for (size_t i = 0; i < n && node < 0; i++)
        if (!strncmp(names[i], "node", 4) && names[i][4] >= '0' && names[i][4] <= '9')
            node = atoi(names[i] + 4);
    ry_sysfs_list_free(names, n);
    return node;
}

int topo_numa_of_cpus(const char *root, const int *cpus, size_t n)
{
    int node = -1;

    for (size_t i = 0; i < n; i++) {
        int m = node_of_cpu(root, cpus[i]);
        if (m < 0 || (node >= 0 && m != node))
            return -1;
        node = m;
    }
    return node;
}

int topo_numa_of_netdev(const char *root, const char *netdev)
{
    int v;

    if (ry_sysfs_read_int(root, &v, NULL, "class/net/%s/device/numa_node", netdev) < 0)
        return -1;
    return v >= 0 ? v : -1;
}
