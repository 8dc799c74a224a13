#ifndef RAILYARD_FABRIC_GID_H
#define RAILYARD_FABRIC_GID_H

/* GID selection: from a port's GID table, the index to use on netdev: override
 * when >= 0; else a RoCE v2 GID of netdev with an IPv4-mapped address, else any RoCE v2 GID of
 * netdev, else a RoCE v1 one (IB ports: 0). -1 when none fits. */
struct fabric_gid {
    int index;
    char gid[48];  /* "fe80:0000:..." as sysfs writes it */
    char type[16]; /* "RoCE v2", "RoCE v1", "IB/RoCE v1" */
    char ndev[32];
};
int fabric_pick_gid(const struct fabric_gid *t, int n, const char *netdev, int infiniband,
                    int override);

#endif
