#include "config.h"

#include <stddef.h>

#include "fabric/gid.h"
#include "tests/tap/tap.h"

/* GID selection from GID tables: a Soft-RoCE port as the kernel showed it in the rxe-vm guest,
 * and the usual mlx5 RoCE layout (v1/v2 pairs for the link-local and the IPv4 address). */

int main(void)
{
    static const struct fabric_gid rxe[] = {
        { 0, "fe80:0000:0000:0000:fcf9:4dff:fe2e:8d34", "RoCE v2", "ra0" },
        { 1, "0000:0000:0000:0000:0000:ffff:c612:0001", "RoCE v2", "ra0" },
    };
    static const struct fabric_gid mlx5[] = {
        { 0, "fe80:0000:0000:0000:a288:c2ff:fe10:0001", "IB/RoCE v1", "eth2" },
        { 1, "fe80:0000:0000:0000:a288:c2ff:fe10:0001", "RoCE v2", "eth2" },
        { 2, "0000:0000:0000:0000:0000:ffff:0a00:0011", "IB/RoCE v1", "eth2" },
        { 3, "0000:0000:0000:0000:0000:ffff:0a00:0011", "RoCE v2", "eth2" },
        { 4, "0000:0000:0000:0000:0000:ffff:0a00:0111", "RoCE v2", "vlan7" },
        { 5, "0000:0000:0000:0000:0000:0000:0000:0000", "", "" },
    };
    static const struct fabric_gid v1only[] = {
        { 0, "fe80:0000:0000:0000:a288:c2ff:fe10:0001", "IB/RoCE v1", "eth0" },
    };

    is_int(fabric_pick_gid(rxe, 2, "ra0", 0, -1), 1, "rxe: the RoCE v2 IPv4 GID");
    is_int(fabric_pick_gid(rxe, 2, "ra0", 0, 0), 0, "rxe: --gid-index 0 is taken as given");
    is_int(fabric_pick_gid(rxe, 2, "ra0", 0, 7), -1, "an override that is not in the table");
    is_int(fabric_pick_gid(mlx5, 6, "eth2", 0, -1), 3, "mlx5: index 3, RoCE v2 IPv4 of eth2");
    is_int(fabric_pick_gid(mlx5, 6, "vlan7", 0, -1), 4, "mlx5: a VLAN netdev gets its own GID");
    is_int(fabric_pick_gid(mlx5, 6, "eth9", 0, -1), -1, "no GID of another netdev");
    is_int(fabric_pick_gid(mlx5, 6, "eth2", 0, 5), -1, "an empty GID entry is refused");
    is_int(fabric_pick_gid(v1only, 1, "eth0", 0, -1), 0, "RoCE v1 when nothing better");
    is_int(fabric_pick_gid(NULL, 0, "ib0", 1, -1), 0, "InfiniBand: LID routing, GID 0");
    return done_testing();
}
