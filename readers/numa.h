#ifndef RAILYARD_READERS_NUMA_H
#define RAILYARD_READERS_NUMA_H

#include <stddef.h>

/* NUMA placement read from sysfs (root as in common/sysfs.h). */

/* The NUMA node every CPU of cpus[0..n-1] belongs to (devices/system/cpu/cpuN/nodeM), or -1
 * when they span several nodes or the tree does not say. */
int topo_numa_of_cpus(const char *root, const int *cpus, size_t n);

/* The NUMA node of a network interface's PCI device (class/net/IF/device/numa_node), or -1
 * (virtual interfaces, single-node machines). */
int topo_numa_of_netdev(const char *root, const char *netdev);

#endif
