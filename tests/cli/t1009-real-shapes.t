#!/bin/sh
# Real machines read right: NVLink on every GPU generation (NVSwitch rows, the Blackwell switch
# fabric, hwloc's NVLinkBandwidth matrix), a GPU that lost its NVLinks, every PCIe link on the
# path, NICs as the machine names them, dumps of several hosts, labels and "cannot judge"
# (ibnetdiscover dumps with discovery errors: t4001). Each file here has the shape of a real machine's
# (tests/fixtures/nccl/*.xml and tests/fixtures/hwloc/*.xml say which), or is a real capture.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature libxml2 || skip_all "built without libxml2: --nccl-topo is not available"
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"
X=$RAILYARD_FIXTURES/nccl

inv() { "$RAILYARD" inventory --json "$@" >"$TMP/i.json" 2>"$TMP/err"; rc=$?; }
check() { "$RAILYARD" check --no-archive --json "$@" >"$TMP/c.json" 2>"$TMP/err"; rc=$?; }
# the distinct NVLink classes of every GPU pair (off the diagonal), as "NV18" or "NV11,NV12"
pairs() { jq -r '[.affinity.gpu_gpu as $m | range($m|length) as $a | range($m|length) as $b
                  | select($a != $b) | $m[$a][$b]] | unique | join(",")' "$TMP/i.json"; }
finding() { # finding CHECK SUBJECT-SUFFIX: "severity|expected|observed" of that finding
    jq -r --arg c "$1" --arg s "$2" '[.findings[] | select(.check==$c and (.subject|endswith($s)))
        | "\(.severity)|\(.expected)|\(.observed)"] | join(";")' "$TMP/c.json"; }

# 1. NVLink through NVSwitches: one row per switch per GPU
inv --nccl-topo "$X/hgx-h200-nvswitch.xml"
is "$(pairs)" NV18 "H200, 4 switches x 4-5 links per GPU: NV18 for every pair (was NV68/NV72)"
is "$(jq -r '[.gpus[].nvlink.links] | unique | join(",")' $TMP/i.json)" 18 "H200: 18 links per GPU"
inv --nccl-topo "$X/hgx-a100-nvswitch.xml"
is "$(jq -r '.affinity.gpu_gpu[0][1]' $TMP/i.json)" NV12 "A100, 6 switches x 2: GPU0-GPU1 NV12"
is "$(jq -r '[.affinity.gpu_gpu[3][] | select(startswith("NV"))] | unique | join(",")' $TMP/i.json)" \
   NV11 "A100: GPU3, one link lost on one switch, is NV11 with every peer"
is "$(jq -r '.gpus[3].nvlink.links' $TMP/i.json)" 11 "A100: GPU3 has 11 links"
check --nccl-topo "$X/hgx-a100-nvswitch.xml"
is "$rc|$(finding nvlink.state /gpu3)" "1|fail|12 active|11 active" \
   "A100: check fails nvlink.state gpu3, 11 of 12 (built-in A100 SXM reference)"
is "$(jq '[.findings[] | select(.check=="nvlink.state" and .severity!="ok")] | length' $TMP/c.json)" 1 \
   "A100: only GPU3's NVLink is faulted"

# 2. Blackwell's switch fabric as one target, NCCL 2.31's spelling of it, and hwloc's matrix
inv --nccl-topo "$X/hgx-b200-fabric.xml"
is "$(pairs)" NV18 "B200: target fffffff:ff:ff.0 count 18 is NV18 for every pair (was PIX/NODE/SYS)"
sed 's/fffffff:ff:ff.0/fffffff:ffff:ff/' "$X/hgx-b200-fabric.xml" >"$TMP/b200-231.xml"
inv --nccl-topo "$TMP/b200-231.xml"
is "$(pairs)" NV18 "B200, NCCL >= 2.31 sentinel fffffff:ffff:ff: NV18 for every pair"
sed 's/target="fffffff:ff:ff.0"/target="fffffff:ff:zz.0"/' "$X/hgx-b200-fabric.xml" >"$TMP/b200-bad.xml"
inv --nccl-topo "$TMP/b200-bad.xml"
is "$rc|$(pairs)" "0|NODE,PIX,SYS" "a target that is no address links nothing (and is no error)"
inv --hwloc-xml "$RAILYARD_FIXTURES/hwloc/hgx-h100-4gpu.xml"
is "$(pairs)" NV6 "hwloc HGX H100 4-GPU: NVLinkBandwidth 150000 MB/s per pair is NV6 (was no NVLink)"
is "$(jq -r '[.gpus[].nvlink.links] | unique | join(",")' $TMP/i.json)" 18 "hwloc 4-GPU: 18 links per GPU"
if [ -e "$SHARED_FIXTURES/hwloc-xml/hwloc-tests_nvidiaDGX2.xml" ]; then
    inv --hwloc-xml "$SHARED_FIXTURES/hwloc-xml/hwloc-tests_nvidiaDGX2.xml"
    is "$(jq '.gpus|length' $TMP/i.json)|$(pairs)" "16|NV6" \
       "hwloc DGX-2 (real): 16 V100 through 12 NVSwitches, NV6 for every pair as nvidia-smi prints"
    inv --hwloc-xml "$SHARED_FIXTURES/hwloc-xml/hwloc-tests_power8gpudistances.xml"
    is "$(jq -r '[.affinity.gpu_gpu[0][1], .affinity.gpu_gpu[2][3], .affinity.gpu_gpu[0][2]] | join(",")' $TMP/i.json)" \
       "NV2,NV2,SYS" "hwloc POWER8 Minsky (real, NVLink 1 at 20000 MB/s a link): NV2 pairs, SYS across"
    is "$(jq -r '[.gpus[].nvlink.links] | unique | join(",")' $TMP/i.json)" 4 \
       "Minsky: 4 links per P100 (2 to its peer, 2 to the CPU)"
else
    skip "shared hwloc fixtures not found"; skip "shared hwloc fixtures not found"
    skip "shared hwloc fixtures not found"
fi

# 3. A GPU with no NVLink on an NVLink machine
check --nccl-topo "$X/gb300-tray-gpu1-no-nvlink.xml"
is "$rc|$(finding nvlink.state /gpu1)" "1|fail|18 active|0 active" \
   "GB300 tray: GPU1 lost all 18 links: nvlink.state fails (was n/a, not judged)"
grep -q "siblings have theirs" $TMP/c.json; ok $? "... the hint says its siblings have theirs"
sed '/<nvlink /d' "$X/gb300-tray-gpu1-no-nvlink.xml" >"$TMP/gb300-none.xml"
check --nccl-topo "$TMP/gb300-none.xml"
is "$rc|$(jq '[.findings[] | select(.check=="nvlink.state" and .severity=="fail")] | length' $TMP/c.json)" \
   "1|4" "GB300 tray with no NVLink on any GPU: each fails against sm 103's 18 links"
# bridged PCIe pairs (Azure NC A100 v4, real): a card without its bridge differs, it is no fault
if [ -e "$SHARED_FIXTURES/nccl-topo/azure_ncv4-topo.xml" ]; then
    awk 'BEGIN{n=0} /<nvlink /{n++; if(n==4) next} {print}' \
        "$SHARED_FIXTURES/nccl-topo/azure_ncv4-topo.xml" >"$TMP/ncv4-nobridge.xml"
    check --nccl-topo "$TMP/ncv4-nobridge.xml"
    is "$rc|$(finding nvlink.state /gpu3)" "0|warn|12 active (like the other GPUs of this kind)|0 active" \
       "A100 PCIe without its NVLink bridge: a warning against its siblings, not a failure"
else
    skip "shared fixture nccl-topo/azure_ncv4-topo.xml not found"
fi

# 4. Every PCIe link on the path
check --nccl-topo "$X/hgx-h100-slow-uplink.xml"
is "$rc|$(finding pcie.path /0000:97:00.0)" "0|warn|>= 63.0 GB/s (what gpu4, mlx5_4 can use)|8.0 GB/s (Gen2 x16)" \
   "H100, switch uplink at 5 GT/s under 32 GT/s devices: pcie.path names the bridge and what it caps"
is "$(jq '[.findings[] | select(.check=="pcie.path")] | length' $TMP/c.json)" 1 "... one finding, for that bridge"
grep -q "confirm under load" $TMP/c.json; ok $? "... against the device's own link: a warning saying how to confirm"
sed 's/link_speed="5.0 GT\/s PCIe"/link_speed="32.0 GT\/s PCIe"/' "$X/hgx-h100-slow-uplink.xml" >"$TMP/h100-ok.xml"
check --nccl-topo "$TMP/h100-ok.xml"
is "$rc|$(jq '[.findings[] | select(.check=="pcie.path")] | length' $TMP/c.json)" "0|0" \
   "the same node with its uplink at 32 GT/s: no pcie.path finding"
"$RAILYARD" map capture --nccl-topo "$TMP/h100-ok.xml" --node-type h100 --nodes 'gpu[01-02]' \
    -o "$TMP/h100.map" 2>"$TMP/err"
is "$?|$(grep -c 'pcie: {gen: 5, width: 16}' $TMP/h100.map)" "0|9" \
   "a map captured from the healthy node gives the GPUs and each of 8 NICs a Gen5 x16 host link"
check --map "$TMP/h100.map" --node gpu01 --nccl-topo "$X/hgx-h100-slow-uplink.xml"
is "$rc|$(finding pcie.path /0000:97:00.0)" "1|fail|>= 63.0 GB/s (what gpu4, mlx5_4 can use)|8.0 GB/s (Gen2 x16)" \
   "against the map captured healthy, the slow uplink fails"
check --map "$TMP/h100.map" --node gpu01 --nccl-topo "$TMP/h100-ok.xml"
is "$rc" 0 "the healthy node passes its own map"
# the same from a sysfs tree (each port's trained and capable link): one GPU/NIC pair of an HGX
# H100 board (tests/gdr-tree.sh, the NIC a real mlx5 capture)
MLX=$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband/mlx5_0
if [ -d "$MLX" ]; then
    "$RAILYARD_SRCDIR/tests/gdr-tree.sh" "$TMP/idle" "$MLX" --gpu-idle
    check --sysfs-root "$TMP/idle/sys"
    is "$rc|$(jq '[.findings[]|select(.check=="pcie.path")]|length' $TMP/c.json)" "0|0" \
       "sysfs: an idle GPU (its link at 2.5 GT/s, as its downstream port's) is no pcie.path finding"
    "$RAILYARD_SRCDIR/tests/gdr-tree.sh" "$TMP/slow" "$MLX" --gpu-idle --uplink 5.0
    check --sysfs-root "$TMP/slow/sys"
    is "$rc|$(finding pcie.path /0000:16:00.0)" "0|warn|>= 63.0 GB/s (what gpu0, mlx5_0 can use)|8.0 GB/s (Gen2 x16)" \
       "sysfs: the switch's upstream link trained at 5 GT/s caps the idle GPU and the NIC below it"
    is "$(jq '[.findings[]|select(.check=="pcie.path")]|length' $TMP/c.json)" 1 \
       "... one finding: the switch's upstream port, not also the root port on the same link"
else
    skip "shared sysfs fixture not found"; skip "shared sysfs fixture not found"
    skip "shared sysfs fixture not found"
fi
# identical NICs at x8 and x16: NIC links are judged like GPU links
awk '/mlx5_2"/{f=1} {print}' "$X/nic-shapes.xml" |
    sed '0,/device="0x101d"\(.*\)link_width="16"/s//device="0x101d"\1link_width="8"/' >"$TMP/nic-x8.xml"
check --nccl-topo "$TMP/nic-x8.xml"
is "$rc|$(finding nic.pcie.width /mlx5_0)" "1|fail|x16 (like the other NICs of this kind)|x8" \
   "a ConnectX-6 Dx at x8 beside its x16 siblings fails nic.pcie.width"
is "$(finding nic.pcie.width /mlx5_0 | cut -c1-4)$(jq '[.findings[]|select(.check=="nic.pcie.width" and .severity=="fail")]|length' $TMP/c.json)" \
   "fail2" "... both RDMA devices of that card, and no other NIC"

# 5. NICs as the machine names them
inv --nccl-topo "$X/nic-shapes.xml"
is "$(jq -r '[.nics[] | select(.rdma) | .name] | join(",")' $TMP/i.json)" \
   "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9" \
   "one RDMA device per <net>: three dual-port cards and a function carrying four (was 4 NICs)"
is "$(jq -r '[.nics[] | select(.rdma|not) | .name] | join(",")' $TMP/i.json)" \
   "cxi0,cxi1,cxi2,cxi3,eth0,tailscale0" \
   "Slingshot (guid 0x0..0x3), eth0 (guid 0x0) and tailscale0 (guid 0x1): none is RDMA, all alike"
is "$(jq -r '[.nics[] | select(.name=="mlx5_1" or .name=="mlx5_7") | .ports[0].port] | join(",")' $TMP/i.json)" \
   "1,1" "each RDMA device has its own port"
"$RAILYARD" map capture --nccl-topo "$X/nic-shapes.xml" --node-type n --nodes n1 -o "$TMP/nics.map" 2>"$TMP/err"
is "$(grep -o 'name: "mlx5_[0-9]"' $TMP/nics.map | wc -l)" 10 "a map captured from it names all 10 RDMA devices"
inv --nccl-topo "$X/hgx-b200-fabric.xml"
is "$(jq -r '[.nics[] | "\(.name):\(.rdma)"] | join(",")' $TMP/i.json)" "eth0:false" \
   "B200: the socket NIC NCCL lists under each CPU is one NIC, not RDMA (was eth0 and nic0)"

# 6. Dumps of several hosts
inv --nccl-topo "$X/gb300-two-trays-fused.xml"
is "$rc" 2 "two trays fused into one dump: refused (exit 2), never merged into 8 GPUs"
grep -q "gb300-two-trays-fused.xml:61: the dump describes 2 hosts" "$TMP/err"
ok $? "... the message names the file, the line and the host count"
sed 's/ host_hash="[^"]*"//' "$X/gb300-two-trays-fused.xml" >"$TMP/fused-nohash.xml"
inv --nccl-topo "$TMP/fused-nohash.xml"
is "$rc" 2 "the same without host hashes: refused"
grep -q "fused-nohash.xml:62: PCI address 0008:01:00.0 is described twice (first at line 6)" "$TMP/err"
ok $? "... naming the file, the line and the address described twice"

# 7. Labels and facts
inv --nccl-topo "$X/hgx-h200-nvswitch.xml"
is "$(jq -r '.node.cpu_model' $TMP/i.json)" "Intel Xeon (Emerald Rapids, family 6 model 207)" \
   "the CPU model from NCCL's vendor/family/model (was n/a)"
is "$(jq -r '[.node.numa[].pus, .node.pus] | join(",")' $TMP/i.json)" "48,48,96" \
   "NUMA PUs from the affinity masks (was n/a)"
sed 's/name="mlx5_\([0-9]\)"/name="mlx5_bond_\1"/' "$X/hgx-h200-nvswitch.xml" >"$TMP/bond.xml"
"$RAILYARD" inventory --nccl-topo "$TMP/bond.xml" >"$TMP/bond.txt"
hdr=$(grep -A1 '^GPU x NIC affinity' "$TMP/bond.txt" | tail -1)
is "$(echo $hdr | tr ' ' '\n' | sort | uniq -d | wc -l)|$(echo $hdr | wc -w)" "0|9" \
   "NICs mlx5_bond_0..7: 8 distinct labels in the affinity header (was mlx5_bon eight times)"
sed 's/name="mlx5_\([0-9]\)"/name="rdma_rail\1_backend"/' "$X/hgx-h200-nvswitch.xml" >"$TMP/long.xml"
"$RAILYARD" inventory --nccl-topo "$TMP/long.xml" >"$TMP/long.txt"
grep -A1 '^GPU x NIC affinity' "$TMP/long.txt" | tail -1 | grep -q 'NIC0 .*NIC7 .*NUMA' &&
    grep -q '^    NIC7: rdma_rail7_backend$' "$TMP/long.txt"
ok $? "names too long for a column: NIC0..NIC7 with a legend, as nvidia-smi does"
sed 's/value="NVIDIA H100 80GB HBM3"/value="NVIDIA H100 80GB HBM3 (board 692-2G520-0200-000)"/' \
    "$RAILYARD_FIXTURES/hwloc/hgx-h100-4gpu.xml" >"$TMP/longmodel.xml"
"$RAILYARD" inventory --hwloc-xml "$TMP/longmodel.xml" >"$TMP/lm.txt"
grep -q '^  0 .*NVIDIA H100 80GB HBM3 (board 692-2G520-0200-000) ' "$TMP/lm.txt"
ok $? "a model name longer than 30 characters is printed whole"
"$RAILYARD" inventory --nccl-topo "$X/gb300-tray-gpu1-no-nvlink.xml" >"$TMP/gb.txt"
grep -q '^  1 .* n/a (sm 103) ' "$TMP/gb.txt"; ok $? "a GPU the dump does not name shows its compute capability"

# 8. Nothing judged is not a pass
if [ -e "$SHARED_FIXTURES/nccl-topo/azure_ndv5-topo.xml" ]; then
    check --nccl-topo "$SHARED_FIXTURES/nccl-topo/azure_ndv5-topo.xml"
    is "$rc|$(jq -r .verdict $TMP/c.json)|$(jq '.findings|length' $TMP/c.json)" "2|cannot-judge|0" \
       "a node with no reference and no map: exit 2, verdict cannot-judge (was pass, exit 0)"
    is "$(jq -r '.not_judged[0]' $TMP/c.json)" \
       "node/gpu0: no built-in reference for a GPU the input does not name: its PCIe link is not judged (give gpus.pcie in the map)" \
       "... the JSON names what was not judged and why"
    "$RAILYARD" check --no-archive --reason --nccl-topo "$SHARED_FIXTURES/nccl-topo/azure_ndv5-topo.xml" >"$TMP/r" 2>&1
    is "$?|$(cat $TMP/r)" "2|railyard: cannot judge (16 parts without a map entry or reference)" \
       "--reason (the Slurm health check): cannot judge, exit 2, so the node is never drained for it"
else
    skip "shared fixture nccl-topo/azure_ndv5-topo.xml not found"; skip "shared fixture not found"
    skip "shared fixture not found"
fi
check --nccl-topo "$X/hgx-b200-fabric.xml"
is "$rc|$(jq '.not_judged|length' $TMP/c.json)|$(finding nvlink.state /gpu7)" "0|0|ok|18 active|18 active" \
   "B200 (reference added): judged, nothing left unjudged"

done_testing
