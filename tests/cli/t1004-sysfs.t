#!/bin/sh
# --sysfs-root on a real capture of /sys/class/infiniband (H100 node: 8x NDR + a bond).
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared sysfs/gpud_h100_sys-class-infiniband/mlx5_0
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"

mkdir -p "$TMP/sys/class"
cp -r "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" "$TMP/sys/class/infiniband"
"$RAILYARD" inventory --json --sysfs-root "$TMP/sys" >"$TMP/j" 2>"$TMP/err"; is $? 0 "capture loads"
is "$(jq '.nics|length' $TMP/j)" 9 "9 RDMA devices"
is "$(jq '[.nics[].ports[] | select(.rate_gbps==400 and .width==4 and .speed=="NDR" and .link_layer=="InfiniBand")] | length' $TMP/j)" 8 \
   "8 ports at 400 Gb/s (4X NDR) InfiniBand"
is "$(jq -r '.nics[] | select(.name=="mlx5_bond_0") | .ports[0] | "\(.rate_gbps) \(.width)X \(.speed) \(.link_layer)"' $TMP/j)" \
   "200 2X NDR Ethernet" "the bond is 200 Gb/s (2X NDR) Ethernet"
is "$(jq -r '[.nics[].ports[].state]|unique|join(",")' $TMP/j)" ACTIVE "every port ACTIVE"
is "$(jq -r '[.nics[].ports[].phys_state]|unique|join(",")' $TMP/j)" LinkUp "every port LinkUp"
is "$(jq -r '.nics[0].fw_ver' $TMP/j)" 28.41.1000 "firmware version"
is "$(jq -r '.nics[0].board_id' $TMP/j)" MT_0000000838 "board id"
is "$(jq -r '.nics|map(.name)|join(",")' $TMP/j)" "mlx5_0,mlx5_1,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9,mlx5_bond_0" \
   "devices in natural order"

# the fixture itself (a copy of class/infiniband, not of /sys) is refused with a hint
"$RAILYARD" inventory --sysfs-root "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" 2>"$TMP/err"
is $? 2 "a class/infiniband copy given as the root: exit 2"
grep -q "looks like a copy of /sys/class/infiniband" "$TMP/err"; ok $? "...with a hint"

# A second real capture: ConnectX-3 FDR with a PCI device link and GIDs
if [ -d "$SHARED_FIXTURES/sysfs/hwloc-stampede-c412-603_sys-class-infiniband/mlx4_0" ]; then
    mkdir -p "$TMP/sys2/class"
    cp -r "$SHARED_FIXTURES/sysfs/hwloc-stampede-c412-603_sys-class-infiniband" "$TMP/sys2/class/infiniband"
    "$RAILYARD" inventory --json --sysfs-root "$TMP/sys2" >"$TMP/j2" 2>"$TMP/err"; is $? 0 "stampede capture loads"
    is "$(jq -r '.nics[0].ports[0] | "\(.rate_gbps) \(.width)X \(.speed)"' $TMP/j2)" "56 4X FDR" "ConnectX-3 at 56 Gb/s (4X FDR)"
    jq -e '.nics[0].ports[0].gids|length >= 1' $TMP/j2 >/dev/null; ok $? "GIDs are read"
    is "$(jq -r '.nics[0].node_desc' $TMP/j2)" "c412-603 HCA-1" "node description"
else
    skip "stampede capture absent"
fi
done_testing
