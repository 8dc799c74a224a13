#!/bin/sh
# NCCL topology XML input: real files shipped by clouds and dumped by NCCL.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared nccl-topo/azure_ndv5-topo.xml
have_feature libxml2 || skip_all "built without libxml2: --nccl-topo is not available"
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"
N=$SHARED_FIXTURES/nccl-topo

inv() { "$RAILYARD" inventory --json --nccl-topo "$N/$1" >"$TMP/$1.json" 2>"$TMP/err"; }

# Azure ND H100 v5: one GPU and one NDR NIC per (virtual) PCIe switch, 2 NUMA nodes.
inv azure_ndv5-topo.xml; is $? 0 "ndv5 loads"
J=$TMP/azure_ndv5-topo.xml.json
is "$(jq '.gpus|length' $J)" 8 "ndv5: 8 GPUs"
is "$(jq '.nics|length' $J)" 8 "ndv5: 8 NICs"
is "$(jq -r '[.affinity.gpu_nic[] | map(select(.=="PIX")) | length | tostring] | join(",")' $J)" \
   "1,1,1,1,1,1,1,1" "ndv5: each GPU has exactly one PIX NIC"
is "$(jq -r '.affinity.gpu_nic as $m | [range(8) | $m[.][.]] | unique | join(",")' $J)" PIX \
   "ndv5: GPU i and NIC i share a switch"
is "$(jq -r '.affinity.gpu_nic[0] | join(" ")' $J)" "PIX NODE NODE NODE SYS SYS SYS SYS" \
   "ndv5: GPU0 row is PIX, NODE on its socket, SYS across"
is "$(jq -r '[.gpus[].pcie.max_gen | tostring] | unique | join(",")' $J)" 5 "ndv5: GPUs are PCIe Gen5"
is "$(jq -r '[.gpus[].nearest_nic] | join(",")' $J)" "nic0,nic1,nic2,nic3,nic4,nic5,nic6,nic7" \
   "ndv5: nearest NIC of GPU i is NIC i"
"$RAILYARD" inventory --nccl-topo "$N/azure_ndv5-topo.xml" >"$TMP/t"
grep -q "^GPU x NIC affinity" "$TMP/t" && [ "$(grep -c '^  GPU[0-7] .*PIX' "$TMP/t")" -ge 8 ]
ok $? "ndv5: text output shows the 8x8 affinity matrix"

# AWS p4d.24xlarge: 2 A100 and 1 EFA NIC (Ethernet class) per PCIe switch.
inv aws_p4d-24xl-topo.xml; is $? 0 "p4d loads"
J=$TMP/aws_p4d-24xl-topo.xml.json
is "$(jq '.gpus|length' $J)" 8 "p4d: 8 GPUs"
is "$(jq '.nics|length' $J)" 4 "p4d: 4 EFA NICs"
is "$(jq -r '[.gpus[].nearest_nic] | join(",")' $J)" "nic0,nic0,nic1,nic1,nic2,nic2,nic3,nic3" \
   "p4d: two GPUs per NIC"
is "$(jq -r '[.gpus[].nearest_nic_path] | unique | join(",")' $J)" PIX "p4d: GPU to its NIC is PIX"
is "$(jq -r '.affinity.gpu_gpu[0][1]' $J)" PIX "p4d: GPU0-GPU1 share a switch (PIX)"
is "$(jq -r '.affinity.gpu_gpu[0][2]' $J)" NODE "p4d: GPU0-GPU2 same socket, other switch (NODE)"
is "$(jq -r '.affinity.gpu_gpu[0][4]' $J)" SYS "p4d: GPU0-GPU4 other socket (SYS)"

# NCCL's own dump form (<gpu>, <nic>, <net>, <nvlink>): Azure NC A100 v4.
inv azure_ncv4-topo.xml; is $? 0 "ncv4 (NCCL dump form) loads"
J=$TMP/azure_ncv4-topo.xml.json
is "$(jq '.gpus|length' $J)" 4 "ncv4: 4 GPUs from <gpu> elements"
is "$(jq -r '.nics[0].name' $J)" eth0 "ncv4: the NIC is named from <net name>"
is "$(jq -r '.nics[0].ports[0].rate_gbps' $J)" 100 "ncv4: net speed 100000 Mb/s is 100 Gb/s"
is "$(jq -r '.gpus[0].nvlink.links' $J)" 12 "ncv4: NVLink count from <nvlink count>"
is "$(jq -r '.gpus[0].pcie.max_gen' $J)" null "ncv4: empty link_speed stays unknown (null)"

# Every other topology file loads; the graph file is refused as such.
for f in "$N"/*.xml; do
    b=$(basename "$f")
    case $b in
    azure_ncv4-graph.xml)
        "$RAILYARD" inventory --nccl-topo "$f" >/dev/null 2>"$TMP/err"; is $? 2 "$b refused with exit 2"
        grep -q "NCCL graph file" "$TMP/err"; ok $? "$b: message says it is an NCCL graph file"
        [ "$(wc -l <"$TMP/err")" -eq 1 ]; ok $? "$b: one-line message" ;;
    *)
        "$RAILYARD" inventory --nccl-topo "$f" >/dev/null 2>"$TMP/err"; is $? 0 "$b loads" ;;
    esac
done

# a compute capability is 10 or more: "0", a word or a negative one is unknown (no "sm"), so
# that GPUs whose dump says nothing sensible are never taken for one kind
X=$RAILYARD_SRCDIR/tests/fixtures/nccl/hgx-h200-nvswitch.xml
awk '/sm="90"/ { n++; if (n == 1) sub(/sm="90"/, "sm=\"0\""); if (n == 2) sub(/sm="90"/, "sm=\"abc\"");
    if (n == 3) sub(/sm="90"/, "sm=\"-90\""); if (n == 4) sub(/sm="90"/, "sm=\"9\""); if (n == 5) sub(/sm="90"/, "sm=\"10\"") } 1' \
    "$X" >"$TMP/sm.xml"
"$RAILYARD" inventory --json --nccl-topo "$TMP/sm.xml" >"$TMP/sm.json" 2>"$TMP/err"
is "$?" 0 "GPUs with odd compute capabilities: read"
is "$(jq -r '[.gpus[] | .sm // "none" | tostring] | join(",")' "$TMP/sm.json")" "none,none,none,none,10,90,90,90" \
   "sm 0, abc, -90 and 9 unknown; 10 (1.0) and 90 kept"

# an RCCL dump (four AMD MI300X, their xGMI links): their PCIe links judged on the MI300's
# reference, their peer links listed as not judged (never a silent pass); RCCL's sm="942" is
# an architecture beside gcn="gfx942", not a compute capability
R=$RAILYARD_SRCDIR/tests/fixtures/nccl/rccl-mi300x-4.xml
"$RAILYARD" inventory --json --nccl-topo "$R" >"$TMP/rccl.json" 2>"$TMP/err"
is "$?:$(jq -r '[.gpus[] | .sm // "none" | tostring] | unique | join(",")' "$TMP/rccl.json")" "0:none" \
   "RCCL dump: read; no compute capability from sm=\"942\" beside gcn"
"$RAILYARD" check --no-archive --json --nccl-topo "$R" >"$TMP/rccl-check.json" 2>"$TMP/err"
is "$?:$(jq -r '[.findings[] | select(.severity != "ok")] | length' "$TMP/rccl-check.json")" "0:0" \
   "RCCL dump: nothing fails (exit 0)"
is "$(jq -r '[.findings[] | select(.check == "gpu.pcie.gen" and .severity == "ok")] | length' "$TMP/rccl-check.json")" 4 \
   "RCCL dump: each MI300X's PCIe generation judged on its reference"
is "$(jq -r '[.not_judged[] | select(test("^node/gpu[0-3]: nvlink.state: a GPU of AMD \\(PCI vendor 1002\\): its peer links \\(3 xGMI in the input\\) are not judged"))] | length' "$TMP/rccl-check.json")" 4 \
   "RCCL dump: each GPU's 3 xGMI links listed under not judged"
"$RAILYARD" check --no-archive --nccl-topo "$R" >"$TMP/rccl.txt" 2>&1
grep -q "gpu0: nvlink.state: a GPU of AMD (PCI vendor 1002): its peer links (3 xGMI" "$TMP/rccl.txt"
ok $? "RCCL dump: the text report says so too"
# an NVIDIA node's dump is unchanged by it: no such line
"$RAILYARD" check --no-archive --json --nccl-topo "$X" >"$TMP/h200.json" 2>"$TMP/err"
is "$(jq -r '[.not_judged[]? | select(test("a GPU of"))] | length' "$TMP/h200.json")" 0 \
   "an NVIDIA node: no GPU of another vendor said"
done_testing
