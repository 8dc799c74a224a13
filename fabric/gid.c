#include "config.h"

#include <string.h>

#include "fabric/gid.h"

static int is_v4_mapped(const char *gid)
{
    return !strncmp(gid, "0000:0000:0000:0000:0000:ffff:", 30);
}

static int unused(const char *gid)
{
    return !strcmp(gid, "0000:0000:0000:0000:0000:0000:0000:0000") || !gid[0];
}

int fabric_pick_gid(const struct fabric_gid *t, int n, const char *netdev, int infiniband,
                    int override)
{
    int best = -1, rank = 0;

    if (override >= 0) {
        for (int i = 0; i < n; i++)
            if (t[i].index == override && !unused(t[i].gid))
                return override;
        return -1;
    }
    if (infiniband)
        return 0;
    for (int i = 0; i < n; i++) {
        int r;
        if (unused(t[i].gid) || (t[i].ndev[0] && strcmp(t[i].ndev, netdev)))
            continue;
        if (!strcmp(t[i].type, "RoCE v2"))
            r = is_v4_mapped(t[i].gid) ? 3 : 2;
        else
            r = 1;
        if (r > rank)
            rank = r, best = t[i].index;
    }
    return best;
}
