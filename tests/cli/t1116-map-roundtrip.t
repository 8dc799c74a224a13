#!/bin/bash
# Round trips: a map captured from each capture of a node the project holds (NCCL and hwloc XML,
# sysfs trees, ibstat, NVLink status, a bundle: its own and other projects') validates, and the
# same input checked against it passes; a capture of a faulty node fails on its fault alone.
# A capture of another node names the differences, the kind of GPU included: by PCI id, by name
# or by compute capability, whichever both sides have. Only RDMA NICs become the map's NICs.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature yaml || skip_all "built without libyaml: no maps to capture"
X=$RAILYARD_SRCDIR/tests/fixtures
S=$SHARED_FIXTURES

# rt OPTION INPUT: capture, validate, check the input against its own map; prints the three exit
# statuses and the findings that are not ok ("check subject", joined with ';')
rt() {
    local c v k
    rm -f "$TMP/rt.map" "$TMP/rt.json"
    "$RAILYARD" map capture "$1" "$2" -o "$TMP/rt.map" 2>"$TMP/rt.err"
    c=$?
    "$RAILYARD" map validate "$TMP/rt.map" >/dev/null 2>>"$TMP/rt.err"
    v=$?
    "$RAILYARD" check --json --map "$TMP/rt.map" "$1" "$2" >"$TMP/rt.json" 2>>"$TMP/rt.err"
    k=$?
    echo "$c $v $k $(jq -r '[.findings[] | select(.severity != "ok") | "\(.check) \(.subject | sub("^[^/]*/"; ""))"] | join(";")' "$TMP/rt.json" 2>/dev/null)"
}
# findings KIND MAP OPTION INPUT: sets got to "subject severity" of every KIND finding (the
# subject without the host), joined with ';', and rc to check's exit status
findings() {
    "$RAILYARD" check --json --map "$2" "$3" "$4" >"$TMP/f.json" 2>"$TMP/f.err"
    rc=$?
    got=$(jq -r --arg k "$1" '[.findings[] | select(.check == $k) | "\(.subject | sub("^[^/]*/"; "")) \(.severity)"] | join(";")' "$TMP/f.json")
}

# ---- every healthy capture is its own golden node
healthy=0
for f in "$X"/nccl/hgx-b200-fabric.xml "$X"/nccl/hgx-h200-nvswitch.xml "$X"/nccl/nic-shapes.xml "$X"/nccl/rccl-mi300x-4.xml \
    "$S"/nccl-topo/*-topo*.xml; do
    [ -f "$f" ] || continue
    is "$(rt --nccl-topo "$f")" "0 0 0 " "round trip, NCCL topology: $(basename "$f") ($(head -c 300 "$TMP/rt.err"))"
    healthy=$((healthy + 1))
done
for f in "$X"/hwloc/*.xml "$S"/hwloc-xml/*.xml; do
    [ -f "$f" ] || continue
    is "$(rt --hwloc-xml "$f")" "0 0 0 " "round trip, hwloc XML: $(basename "$f") ($(head -c 300 "$TMP/rt.err"))"
    healthy=$((healthy + 1))
done
for d in "$S"/sysfs/*; do # copies of /sys/class/infiniband, under a root that stands for /sys
    [ -d "$d" ] || continue
    rm -rf "$TMP/sys" && mkdir -p "$TMP/sys/class" && ln -s "$d" "$TMP/sys/class/infiniband"
    is "$(rt --sysfs-root "$TMP/sys")" "0 0 0 " "round trip, sysfs: $(basename "$d") ($(head -c 300 "$TMP/rt.err"))"
    healthy=$((healthy + 1))
done
for f in "$S"/ibstat/*; do
    case $f in *missing_mlx5_8*) continue ;; esac
    [ -f "$f" ] || continue
    is "$(rt --ibstat "$f")" "0 0 0 " "round trip, ibstat: $(basename "$f") ($(head -c 300 "$TMP/rt.err"))"
    healthy=$((healthy + 1))
done
for f in "$S"/nvlink/azurenhc_good_nvlink_status.txt "$S"/nvlink/gpud_nvidia-smi_nvlink_status_a100x8.txt; do
    [ -f "$f" ] || continue
    is "$(rt --nvlink-status "$f")" "0 0 0 " "round trip, NVLink status: $(basename "$f") ($(head -c 300 "$TMP/rt.err"))"
    healthy=$((healthy + 1))
done
if have_feature libarchive; then
    is "$(rt --bundle "$X/bundles/h200-vm.tar.gz")" "0 0 0 " "round trip, a gathered bundle (an H200 VM)"
    healthy=$((healthy + 1))
else
    skip "built without libarchive: no bundles"
fi
[ "$healthy" -ge 10 ]; ok $? "$healthy healthy captures tried (the project's own, and the shared ones where present)"
# an input that gives no value a map covers: its map is empty and it cannot be judged against it
is "$(rt --nvlink-status "$X/h200-vm/nvidia-smi-nvlink-status.txt")" "0 0 2 " \
    "round trip, an empty NVLink status (a GPU without NVLink): cannot-judge against its own map"

# ---- a capture of a faulty node fails on its fault, and on nothing else
is "$(rt --nccl-topo "$X/nccl/demo-hgx-h100.xml")" "0 0 1 gpu.pcie.width gpu5" \
    "faulty node's own map: the GPU at x8 of eight at x16 still fails"
is "$(rt --nccl-topo "$X/nccl/hgx-a100-nvswitch.xml")" "0 0 1 nvlink.state gpu3" \
    "faulty node's own map: the GPU with 11 of 12 NVLinks still fails"
is "$(rt --nccl-topo "$X/nccl/gb300-tray-gpu1-no-nvlink.xml")" "0 0 1 nvlink.state gpu1" \
    "faulty node's own map: the GB300 GPU without NVLink still fails"
if [ -f "$S/nvlink/azurenhc_bad_nvlink_status.txt" ]; then
    is "$(rt --nvlink-status "$S/nvlink/azurenhc_bad_nvlink_status.txt")" "0 0 1 nvlink.state gpu6" \
        "faulty node's own map (NVLink status): the GPU with its links down still fails"
else
    skip "no shared fixtures: the bad NVLink status"
fi

# ---- only RDMA NICs become the map's NICs; a map NCCL's socket NIC was in is no longer refused
"$RAILYARD" map capture --nccl-topo "$X/nccl/hgx-b200-fabric.xml" -o "$TMP/b200.map" 2>/dev/null
! grep -q 'eth0\|port: 0' "$TMP/b200.map"; ok $? "B200 dump: NCCL's socket NIC eth0 (port 0) is not a map NIC"
"$RAILYARD" map capture --nccl-topo "$X/nccl/nic-shapes.xml" -o "$TMP/nics.map" 2>/dev/null
is "$(grep -o 'name: "[a-z0-9_]*"' "$TMP/nics.map" | tr '\n' ' ')" \
    "$(for i in 0 1 2 3 4 5 6 7 8 9; do printf 'name: "mlx5_%s" ' $i; done)" \
    "ConnectX, Slingshot and socket NICs: the ten verbs devices become map NICs (no cxi, eth0, tailscale0)"

# rails are made of RDMA NICs: a ConnectX whose RDMA driver is gone (a real Lassen node's hwloc
# XML, mlx5_0's device cut out and its function made Ethernet) is no rail; the next NIC is
if [ -f "$S/hwloc-xml/llnl-mpibind_coral-lassen.xml" ]; then
    sed -e '/gp_index="415" name="mlx5_0"/,/<\/object>/d' -e 's/\(pci_busid="0003:01:00.0" pci_type="\)0207/\10200/' \
        "$S/hwloc-xml/llnl-mpibind_coral-lassen.xml" >"$TMP/lassen.xml"
    "$RAILYARD" map capture --hwloc-xml "$TMP/lassen.xml" -o "$TMP/lassen.map" 2>"$TMP/err"
    is "$(grep -o 'name: "[a-z0-9_]*", netdev: "[a-z0-9]*", rail: [0-9], near_gpu: [0-9]' "$TMP/lassen.map" | tr '\n' ';')" \
        'name: "mlx5_1", netdev: "hsi1", rail: 0, near_gpu: 0;name: "mlx5_2", netdev: "hsi2", rail: 1, near_gpu: 2;' \
        "Lassen without mlx5_0's RDMA driver: mlx5_1 is GPU0's rail 0, mlx5_2 GPU2's rail 1"
    grep -q '^railyard: map capture: hsi0 (0003:01:00.0) has no RDMA device (its driver not loaded?): it is not in the map$' "$TMP/err"
    ok $? "...and the capture says which NIC it left out: $(cat "$TMP/err")"
else
    skip "no shared fixtures: Lassen's hwloc XML"
    skip "no shared fixtures: Lassen's hwloc XML"
fi

# kind MAP INPUT WANT DESCRIPTION: the gpu.model findings of an NCCL dump against a map
kind() {
    findings gpu.model "$1" --nccl-topo "$2"
    is "$got" "$3" "$4"
}

# ---- the kind of GPU: an A100 node against an H200 node's map
"$RAILYARD" map capture --nccl-topo "$X/nccl/hgx-h200-nvswitch.xml" -o "$TMP/h200.map" 2>/dev/null
grep -q 'model: "GH100 \[H200 SXM 141GB\]", pci_id: "10de:2335", compute_capability: "9.0"' "$TMP/h200.map"
ok $? "H200 dump: the map records the GPU's name, PCI id and compute capability ($(grep -o 'gpus: {[^}]*' "$TMP/h200.map"))"
ids="gpu0 fail;gpu1 fail;gpu2 fail;gpu3 fail;gpu4 fail;gpu5 fail;gpu6 fail;gpu7 fail"
fine="gpu0 ok;gpu1 ok;gpu2 ok;gpu3 ok;gpu4 ok;gpu5 ok;gpu6 ok;gpu7 ok"
kind "$TMP/h200.map" "$X/nccl/hgx-a100-nvswitch.xml" "$ids" "A100 node, H200 map: gpu.model fails on every GPU"
is "$rc" 1 "...and check exits 1"
jq -r '.findings[] | select(.check == "gpu.model") | "\(.expected) | \(.observed)"' "$TMP/f.json" | head -1 |
    grep -qx 'GH100 \[H200 SXM 141GB\] (10de:2335, 9.0) | GA100 \[A100 SXM4 80GB\] (10de:20b2, 8.0)'
ok $? "...saying both kinds: $(jq -r '[.findings[] | select(.check == "gpu.model")][0] | "\(.expected) / \(.observed)"' "$TMP/f.json")"
# by the PCI id alone (a map without the name)
sed 's/model: "[^"]*", //' "$TMP/h200.map" >"$TMP/id.map"
kind "$TMP/id.map" "$X/nccl/hgx-a100-nvswitch.xml" "$ids" "a map with the PCI id and no name: the A100 node fails by its id"
kind "$TMP/id.map" "$X/nccl/hgx-h200-nvswitch.xml" "$fine" "...and the H200 node passes by it"
# the PCI id goes before the name: another tool's name for the same device is the same GPU
sed 's/model: "[^"]*"/model: "NVIDIA H200"/' "$TMP/h200.map" >"$TMP/name.map"
kind "$TMP/name.map" "$X/nccl/hgx-h200-nvswitch.xml" "$fine" "NVML's name in the map, the PCI ID database's in the input, the same PCI id: the same kind"
sed 's/pci_id: "10de:2335"/pci_id: "10de:2330"/' "$TMP/h200.map" >"$TMP/h100id.map"
kind "$TMP/h100id.map" "$X/nccl/hgx-h200-nvswitch.xml" "$ids" "the same name, another PCI id (an H100 SXM's): fails"
sed 's/pci_id: "10de:2335"/pci_id: "1002:2335"/' "$TMP/h200.map" >"$TMP/amdid.map"
kind "$TMP/amdid.map" "$X/nccl/hgx-h200-nvswitch.xml" "$ids" "the same device id under another vendor (AMD's 1002): fails"
# by the compute capability alone
sed 's/model: "[^"]*", pci_id: "[^"]*", //' "$TMP/h200.map" >"$TMP/cc.map"
grep -q 'gpus: {count: 8, compute_capability: "9.0",' "$TMP/cc.map"; ok $? "a map with the compute capability alone"
kind "$TMP/cc.map" "$X/nccl/hgx-b200-fabric.xml" "$ids" "compute capability 9.0 in the map, a B200 node (10.0): fails"
kind "$TMP/cc.map" "$X/nccl/hgx-h100-slow-uplink.xml" "$fine" "compute capability 9.0 in the map, an H100 node (9.0): the same generation passes"
# an input without names or ids (the PCI device ids cut out of the dump): its compute capability
sed 's/ device="0x2335"//' "$X/nccl/hgx-h200-nvswitch.xml" >"$TMP/noid.xml"
kind "$TMP/h200.map" "$TMP/noid.xml" "$fine" "an input with only the compute capability, a map with all three: judged by the capability"
kind "$TMP/cc.map" "$TMP/noid.xml" "$fine" "...and against the capability alone"
sed 's/, pci_id: "[^"]*", compute_capability: "[^"]*"//' "$TMP/h200.map" >"$TMP/nameonly.map"
findings gpu.model "$TMP/nameonly.map" --nccl-topo "$TMP/noid.xml"
is "$got $rc" \
    "gpu0 warn;gpu1 warn;gpu2 warn;gpu3 warn;gpu4 warn;gpu5 warn;gpu6 warn;gpu7 warn 0" \
    "a map with the name alone, an input without names: a warning on each GPU, not a pass"

# ---- a static topology that leaves the GPUs out says nothing of them
if [ -f "$S/nccl-topo/aws_p5.48xl-topo.xml" ]; then
    "$RAILYARD" map capture --nccl-topo "$S/nccl-topo/aws_p5.48xl-topo.xml" -o "$TMP/p5.map" 2>/dev/null
    ! grep -q 'gpus' "$TMP/p5.map"; ok $? "p5 static topology (GPUs omitted): the map says nothing of GPUs"
    findings gpu.count "$TMP/p5.map" --nccl-topo "$X/nccl/hgx-h200-nvswitch.xml"
is "$got" "" \
        "...and a node with 8 GPUs is not failed for having them"
else
    skip "no shared fixtures: the p5 static topology"
    skip "no shared fixtures: the p5 static topology"
fi

# ---- the map's new keys are read strictly, with file:line:col
bad() { # bad NAME VALUE-LINE PATTERN
    printf 'cluster: x\nnode_types:\n  a:\n    gpus: {count: 8, %s}\n' "$2" >"$TMP/$1.map"
    "$RAILYARD" map validate "$TMP/$1.map" >/dev/null 2>"$TMP/err"
    is "$?:$(grep -Ec "$TMP/$1.map:4:[0-9]+: $3" "$TMP/err")" "2:1" "map: $2 refused ($(cat "$TMP/err"))"
}
bad short-id 'pci_id: "10de:233"' "pci_id must be VENDOR:DEVICE"
bad zero-vendor 'pci_id: "0000:2330"' "pci_id must be VENDOR:DEVICE"
bad no-colon 'pci_id: "10de-2330"' "pci_id must be VENDOR:DEVICE"
bad not-hex 'pci_id: "10de:23g0"' "pci_id must be VENDOR:DEVICE"
bad long-id 'pci_id: "10de:23300"' "pci_id must be VENDOR:DEVICE"
bad cc-int 'compute_capability: 9' "compute_capability must be MAJOR.MINOR"
bad cc-lead0 'compute_capability: "09.0"' "compute_capability must be MAJOR.MINOR"
bad cc-minor 'compute_capability: "9.10"' "compute_capability must be MAJOR.MINOR"
for good in 'pci_id: "10DE:2330"' 'compute_capability: "12.1"' 'compute_capability: 8.6'; do
    printf 'cluster: x\nnode_types:\n  a:\n    gpus: {count: 8, %s}\n' "$good" >"$TMP/good.map"
    "$RAILYARD" map validate "$TMP/good.map" >/dev/null 2>"$TMP/err"
    ok $? "map: $good accepted ($(cat "$TMP/err"))"
done
done_testing
