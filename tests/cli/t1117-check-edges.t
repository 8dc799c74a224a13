#!/bin/bash
# The node checks of a map's NIC entries, each tried on both sides of its rule with a real
# H200 node's NCCL dump (and a real H100 node's ibstat): nic.pcie.gen (at least the map's
# generation; below the part's highest a warning), nic.port.link_layer (equal to the map's),
# affinity.path (the class the map gives, exactly), rail.assignment (the rail's NIC is the one
# nearest its GPU) - each on the NIC or GPU bent and on nothing else.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature yaml || skip_all "built without libyaml: no maps"
X=$RAILYARD_SRCDIR/tests/fixtures
H200=$X/nccl/hgx-h200-nvswitch.xml

# judge KIND MAP OPTION INPUT: got = "subject severity" of every KIND finding that is not ok
# (subjects without the host), joined with ';'; rc = check's exit status
judge() {
    "$RAILYARD" check --json --map "$2" "$3" "$4" >"$TMP/c.json" 2>"$TMP/c.err"
    rc=$?
    got=$(jq -r --arg k "$1" '[.findings[] | select(.check == $k and .severity != "ok") |
        "\(.subject | sub("^[^/]*/"; "")) \(.severity)"] | join(";")' "$TMP/c.json")
}
# oks KIND: how many KIND findings of the last judge were ok
oks() { jq --arg k "$1" '[.findings[] | select(.check == $k and .severity == "ok")] | length' "$TMP/c.json"; }
"$RAILYARD" map capture --nccl-topo "$H200" -o "$TMP/h200.map" 2>/dev/null
ok $? "an H200 node's map captured from its NCCL dump"
# mapset NIC FROM TO: the map with FROM replaced by TO in NIC's entry alone
mapset() { sed "/name: \"$1\"/s/$2/$3/" "$TMP/h200.map" >"$TMP/m.map"; }

# ---- gpu.count: equal to the map's, on both sides
for n in 7 8 9; do
    printf 'cluster: c\nnode_types:\n  golden:\n    gpus: {count: %s}\nnodes:\n  node: golden\n' $n >"$TMP/n.map"
    judge gpu.count "$TMP/n.map" --nccl-topo "$H200"
    if [ $n = 8 ]; then
        is "$got|$(oks gpu.count) $rc" "|1 0" "8 GPUs, the map's 8: ok"
    else
        is "$got $rc" "node fail 1" "8 GPUs, the map's $n: gpu.count fails on the node ($(cat "$TMP/c.err"))"
    fi
done

# ---- nic.pcie.gen: at least the map's generation (fail), at least the part's highest (warn)
judge nic.pcie.gen "$TMP/h200.map" --nccl-topo "$H200"
is "$got|$(oks nic.pcie.gen)" "|8" "Gen5 NICs, the map's Gen5: 8 ok"
mapset mlx5_3 'pcie: {gen: 5' 'pcie: {gen: 4'
judge nic.pcie.gen "$TMP/m.map" --nccl-topo "$H200"
is "$got" "" "the map asks Gen4 of a Gen5 NIC: more than asked is no finding"
# mlx5_3's function trained at Gen4 (16 GT/s): the <pci> line two above its <net>
awk '{ a[NR] = $0 } END { for (i = 1; i <= NR; i++) {
         if (a[i + 2] ~ /<net name="mlx5_3"/) sub(/link_speed="32.0 GT\/s PCIe"/, "link_speed=\"16.0 GT/s PCIe\"", a[i])
         print a[i] } }' "$H200" >"$TMP/gen4.xml"
grep -B2 'name="mlx5_3"' "$TMP/gen4.xml" | grep -q 'link_speed="16.0 GT/s PCIe"'; ok $? "a dump whose mlx5_3 trained at Gen4"
judge nic.pcie.gen "$TMP/h200.map" --nccl-topo "$TMP/gen4.xml"
is "$got $rc" "mlx5_3 fail 1" "the map's Gen5, mlx5_3 at Gen4: fails on mlx5_3 alone"
judge nic.pcie.gen "$TMP/m.map" --nccl-topo "$TMP/gen4.xml"
is "$got $rc" " 0" "the map's Gen4 (a platform that gives no more), mlx5_3 at Gen4: passes"
sed 's/, pcie: {gen: 5, width: 16}}$/}/' "$TMP/h200.map" >"$TMP/nogen.map"
judge nic.pcie.gen "$TMP/nogen.map" --nccl-topo "$TMP/gen4.xml"
is "$got" "mlx5_3 warn" "no generation in the map: a ConnectX-7 (Gen5 part) at Gen4 is a warning"
judge nic.pcie.gen "$TMP/nogen.map" --nccl-topo "$H200"
is "$got" "" "...and at Gen5 nothing"

# ---- affinity.path: the path class the map gives, exactly
mapset mlx5_2 'path: "PIX"' 'path: "PXB"'
judge affinity.path "$TMP/m.map" --nccl-topo "$H200"
is "$got $rc" "mlx5_2 fail 1" "the map's PXB, the dump's PIX (gpu2 and mlx5_2 on one switch): fails on mlx5_2"
jq -r '.findings[] | select(.check == "affinity.path" and .severity == "fail") | "\(.expected)|\(.observed)"' "$TMP/c.json" |
    grep -qx 'gpu2 PXB|gpu2 PIX'; ok $? "...saying both classes"
hints() { # CHECK: each finding of CHECK in the last judge's JSON, "SEVERITY|HINT" (null: none), sorted
    jq -r --arg c "$1" '.findings[] | select(.check == $c) | "\(.severity)|\(.hint)"' "$TMP/c.json" | sort | uniq -c |
        awk '{ $1 = $1 "x"; print }' | paste -sd';'
}
is "$(hints affinity.path)" "1x fail|the GPU and NIC are not where the map puts them: a card in the wrong slot, or a PCIe switch in another mode;7x ok|null" \
    "...the failure with its hint, the 7 others ok with none"
judge affinity.path "$TMP/h200.map" --nccl-topo "$H200"
is "$got|$(oks affinity.path)" "|8" "the captured map: PIX for each of 8 NICs, 8 ok"

# ---- rail.assignment: the NIC nearest the GPU a rail serves is that rail's NIC
sed -e 's/name: "mlx5_0"/name: "TMPX"/' -e 's/name: "mlx5_1"/name: "mlx5_0"/' -e 's/name: "TMPX"/name: "mlx5_1"/' \
    "$TMP/h200.map" >"$TMP/swap.map"
judge rail.assignment "$TMP/swap.map" --nccl-topo "$H200"
is "$got $rc" "gpu0 fail;gpu1 fail 1" "the map swaps mlx5_0 and mlx5_1 (rails 0 and 1): rail.assignment fails on gpu0 and gpu1"
jq -r '.findings[] | select(.check == "rail.assignment" and .severity == "fail") | "\(.expected)|\(.observed)"' "$TMP/c.json" |
    head -1 | grep -qx 'rail 0: mlx5_1|rail 0: mlx5_0'; ok $? "...naming the rail's NIC and the one nearest"
is "$(hints rail.assignment)" "2x fail|another NIC is closest to this GPU: NICs swapped between slots, or the map's rail order is wrong;6x ok|null" \
    "...the two failures with their hint, the 6 others ok with none"
judge rail.assignment "$TMP/h200.map" --nccl-topo "$H200"
is "$got|$(oks rail.assignment)" "|8" "the captured map: 8 rails, each its GPU's nearest NIC"

# ---- nic.port.link_layer: the map's link layer, per port
IB=$SHARED_FIXTURES/ibstat/gpud_ibstat_h100_ib_8x400_all_active.txt
if [ -f "$IB" ]; then
    "$RAILYARD" map capture --ibstat "$IB" -o "$TMP/ib.map" 2>/dev/null
    judge nic.port.link_layer "$TMP/ib.map" --ibstat "$IB"
    n=$(grep -c 'link_layer: "' "$TMP/ib.map")
    is "$got|$(oks nic.port.link_layer)|$(grep -c 'link_layer: "InfiniBand"' "$TMP/ib.map")" "|$n|8" \
        "an H100 node's ibstat: 8 InfiniBand ports and a RoCE bond, each ok against its captured map"
    sed '/name: "mlx5_4"/s/link_layer: "InfiniBand"/link_layer: "Ethernet"/' "$TMP/ib.map" >"$TMP/eth.map"
    judge nic.port.link_layer "$TMP/eth.map" --ibstat "$IB"
    is "$got $rc" "mlx5_4:1 fail 1" "the map says Ethernet for mlx5_4 (an InfiniBand port): fails on mlx5_4 alone"
    sed '/name: "mlx5_bond_0"/s/link_layer: "Ethernet"/link_layer: "InfiniBand"/' "$TMP/ib.map" >"$TMP/ib2.map"
    judge nic.port.link_layer "$TMP/ib2.map" --ibstat "$IB"
    is "$got $rc" "mlx5_bond_0:1 fail 1" "the map says InfiniBand for the RoCE bond: fails on it alone"
else
    for i in 1 2 3; do skip "no shared fixtures: an H100 node's ibstat"; done
fi
done_testing
