#!/bin/sh
# hwloc XML input: real lstopo captures (hwloc 1.x/2.x and the 3.x format).
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared hwloc-xml/llnl-mpibind_coral-lassen.xml
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"
H=$SHARED_FIXTURES/hwloc-xml

inv() { "$RAILYARD" inventory --json --hwloc-xml "$H/$1" >"$TMP/j" 2>"$TMP/err"; }

# LLNL Lassen (IBM AC922): 4 V100, 2 dual-port ConnectX-5 (4 mlx5 devices), one per socket.
inv llnl-mpibind_coral-lassen.xml; is $? 0 "lassen loads"
is "$(jq '.gpus|length' $TMP/j)" 4 "lassen: 4 GPUs"
is "$(jq -r '[.gpus[].model]|unique|join(",")' $TMP/j)" "Tesla V100-SXM2-16GB" "lassen: GPU model from hwloc"
is "$(jq -r '[.nics[].name]|join(",")' $TMP/j)" "mlx5_0,mlx5_1,mlx5_2,mlx5_3" "lassen: 4 mlx5 devices"
is "$(jq -r '[.gpus[].nearest_nic]|join(",")' $TMP/j)" "mlx5_0,mlx5_0,mlx5_2,mlx5_2" \
   "lassen: nearest NIC is on the GPU's socket"
is "$(jq -r '[.gpus[].nearest_nic_path]|unique|join(",")' $TMP/j)" NODE \
   "lassen: GPU and NIC on one socket, different host bridges: NODE"
is "$(jq -r '.affinity.gpu_nic[0]|join(" ")' $TMP/j)" "NODE NODE SYS SYS" "lassen: GPU0 row"
is "$(jq -r '.affinity.gpu_gpu[0][1]' $TMP/j)" PIX "lassen: GPU0-GPU1 behind one PCIe switch: PIX"
is "$(jq -r '[.gpus[].numa|tostring]|join(",")' $TMP/j)" "0,0,8,8" "lassen: GPU NUMA nodes 0 and 8"
is "$(jq -r '.nics[0].ports[0].state' $TMP/j)" ACTIVE "lassen: port state from hwloc"
is "$(jq -r '.nics[0].node_guid' $TMP/j)" "506b:4b03:003c:eee8" "lassen: node GUID from hwloc"
is "$(jq -r '.node.hostname' $TMP/j)" lassen28 "lassen: host name from the capture"

# pascal: GPUs and NIC behind one switch
inv llnl-mpibind_cts1-pascal.xml; is $? 0 "pascal loads"
is "$(jq -r '[.gpus[].nearest_nic_path]|unique|join(",")' $TMP/j)" PIX "pascal: GPU-NIC PIX"

# AWS g4dn.metal: EFA is an RDMA device too
inv llnl-mpibind_g4dnmetal.xml; is $? 0 "g4dn.metal loads"
is "$(jq '.gpus|length' $TMP/j)" 8 "g4dn: 8 T4"
is "$(jq -r '.nics[0].name + " " + (.nics[0].rdma|tostring)' $TMP/j)" "rdmap197s0 true" "g4dn: EFA device"

# AMD GPUs through hwloc's RSMI backend
inv llnl-mpibind_epyc-corona-p2.xml; is $? 0 "corona loads"
is "$(jq '.gpus|length' $TMP/j)" 8 "corona: 8 AMD GPUs"
is "$(jq -r '[.gpus[].vendor]|unique|join(",")' $TMP/j)" AMD "corona: vendor AMD"

# hwloc 3.x format (bitmask OS device types)
inv hwloc-tests_nvidiaDGX2.xml; is $? 0 "DGX-2 (hwloc 3.0 XML) loads"
is "$(jq '.gpus|length' $TMP/j)" 16 "DGX-2: 16 V100"
inv hwloc-tests_32em64t-2n8c2t-pci-normalio.xml; is $? 0 "32em64t (hwloc 3.0 XML) loads"
is "$(jq -r '.nics[0].name' $TMP/j)" mlx5_0 "32em64t: mlx5_0 is an RDMA NIC, not a disk"
inv hwloc-tests_24em64t-2n6c2t-pci.xml; is $? 0 "24em64t loads"
is "$(jq '.gpus|length' $TMP/j)" 3 "24em64t: 3 Tesla GPUs, the ES1000 BMC display is not one"

for f in "$H"/*.xml; do
    "$RAILYARD" inventory --hwloc-xml "$f" >/dev/null 2>"$TMP/err"; is $? 0 "$(basename "$f") loads"
done
done_testing
