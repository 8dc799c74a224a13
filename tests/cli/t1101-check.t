#!/bin/sh
# railyard check on real captures: each fault found with the right check id and subject, each
# quirk left alone.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"
I=$SHARED_FIXTURES/ibstat
M=$RAILYARD_SRCDIR/tests/fixtures/maps

# check ARGS...: run railyard check --json, keep status in $rc and the document in $TMP/c.json
check() { "$RAILYARD" check --json "$@" >"$TMP/c.json" 2>"$TMP/err"; rc=$?; }
fails() { jq -r '[.findings[] | select(.severity=="fail") | "\(.check) \(.subject)"] | join(";")' "$TMP/c.json"; }

# --- RoCE node: a map captured from the healthy capture, then the capture with two ports down
"$RAILYARD" map capture --ibstat "$I/gpud_ibstat_h100_roce_12hca_all_active.txt" \
    --node-type roce --nodes 'roce[01-16]' -o "$TMP/roce.map" 2>"$TMP/err"
is $? 0 "map captured from a healthy ibstat capture"
check --map "$TMP/roce.map" --node roce03 --ibstat "$I/gpud_ibstat_h100_roce_12hca_all_active.txt"
is $rc 0 "the healthy capture passes its own map"
is "$(jq -r .verdict $TMP/c.json)" pass "verdict pass"
check --map "$TMP/roce.map" --node roce03 --ibstat "$I/gpud_ibstat_h100_roce_12hca_some_down_1.txt"
is $rc 1 "two ports down: exit 1"
is "$(jq -r .verdict $TMP/c.json)" fail "verdict fail"
is "$(jq -r '[.findings[]|select(.severity=="fail")|.subject]|unique|join(",")' $TMP/c.json)" \
   "roce03/mlx5_11:1,roce03/mlx5_5:1" "only mlx5_5 and mlx5_11 fail"
is "$(jq -r '[.findings[]|select(.severity=="fail")|.check]|unique|join(",")' $TMP/c.json)" \
   "nic.port.phys_state,nic.port.state" "...by port state and physical state"
jq -e '[.findings[]|select(.severity=="fail" and .check=="nic.port.rate")]|length==0' $TMP/c.json >/dev/null
ok $? "the rate 40 of a port that is down is not judged"
# the map's severity overrides: state ignored, physical state a warning
{ cat "$TMP/roce.map"; printf 'severity: {nic.port.state: ignore, nic.port.phys_state: warn}\n'; } |
    grep -v '^\.\.\.$' >"$TMP/roce-sev.map"
check --map "$TMP/roce-sev.map" --node roce03 --ibstat "$I/gpud_ibstat_h100_roce_12hca_some_down_1.txt"
is "$rc $(jq -c '[.summary.fail, .summary.warn]' $TMP/c.json)" "0 [0,2]" \
   "severity overrides: the down ports are two warnings, exit 0"
jq -e '[.findings[] | select(.check == "nic.port.state" and .severity != "ok")] | length == 0' $TMP/c.json >/dev/null
ok $? "severity ignore removes the findings"
# without a map the same faults are found
check --node roce03 --ibstat "$I/gpud_ibstat_h100_roce_12hca_some_down_1.txt"
is $rc 1 "no map: the down ports still fail"
is "$(jq -r '[.findings[]|select(.severity=="fail")|.subject]|unique|join(",")' $TMP/c.json)" \
   "roce03/mlx5_11:1,roce03/mlx5_5:1" "no map: the same two ports"

# --- H100 IB node with unused ConnectX-6 Dx ports that the map ignores
check --map "$M/h100-ib-12hca.map" --node gpu007 --ibstat "$I/gpud_ibstat_h100_12hca_some_down_0.txt"
is $rc 0 "unused ports in the map's ignore list are not failures"
jq -e '[.findings[]|select(.subject|test("mlx5_(2|7|8)"))]|length==0' $TMP/c.json >/dev/null
ok $? "ignored ports produce no finding"
check --node gpu007 --ibstat "$I/gpud_ibstat_h100_12hca_some_down_0.txt"
is $rc 1 "without the map the same down ports fail"

# --- Azure A100: ibstat died on a missing HCA
check --map "$M/azure-a100-9hca.map" --node ndv4-0042 --ibstat "$I/gpud_ibstat_azure_a100_ibpanic_missing_mlx5_8.txt"
is $rc 1 "missing HCA: exit 1"
jq -e '.findings[]|select(.severity=="fail" and .check=="nic.count" and .subject=="ndv4-0042/mlx5_8")' $TMP/c.json >/dev/null
ok $? "the missing HCA is nic.count ndv4-0042/mlx5_8"
jq -e '[.findings[]|select(.check|startswith("gpu."))]|length==0' $TMP/c.json >/dev/null
ok $? "no GPU check on an input that lists no GPUs"
check --node ndv4-0042 --ibstat "$I/gpud_ibstat_azure_a100_ibpanic_missing_mlx5_8.txt"
is "$(fails)" "nic.count ndv4-0042/mlx5_8" "no map: the ibpanic line alone names the missing HCA"

# --- NVLinks
check --nvlink-status "$SHARED_FIXTURES/nvlink/azurenhc_bad_nvlink_status.txt"
is $rc 1 "inactive NVLinks: exit 1"
is "$(fails)" "nvlink.state node/gpu6" "inactive NVLinks are nvlink.state on gpu6"
check --nvlink-status "$SHARED_FIXTURES/nvlink/azurenhc_good_nvlink_status.txt"
is $rc 0 "12 active NVLinks pass"
check --nvlink-status "$SHARED_FIXTURES/nvlink/gpud_nvidia-smi_nvlink_status_a100x8.txt"
is "$rc $(jq '.summary.ok' $TMP/c.json)" "0 8" "8 A100 with 12 links each pass"
# an H200 given alone to a VM: nvidia-smi nvlink --status prints nothing (captured there)
"$RAILYARD" check --nvlink-status "$RAILYARD_FIXTURES/h200-vm/nvidia-smi-nvlink-status.txt" >"$TMP/out" 2>"$TMP/err"
is $? 2 "an empty nvlink status (H200 VM) alone: exit 2, nothing to judge"
grep -q 'nvlink-status .* (empty: no GPU shows an NVLink)' "$TMP/out" && grep -q -- '-> cannot-judge' "$TMP/out" &&
    [ ! -s "$TMP/err" ]
ok $? "...read as no GPU showing an NVLink (not refused as input): cannot judge, no GPU listed"
# a GPU the input lists with no link line (as NVML shows that H200: every link query fails):
# the SXM reference alone does not fail it; a map that requires NVLinks does
printf 'GPU 0: NVIDIA H200 (UUID: GPU-c3424466-e3cb-2af8-17b7-4b960b7efb6c)\n' >"$TMP/nolinks.txt"
check --nvlink-status "$TMP/nolinks.txt"
is "$rc $(jq -r '.findings[] | select(.check == "nvlink.state") | "\(.severity) \(.observed)"' $TMP/c.json)" \
    "0 warn no NVLink exposed" "an H200 without NVLinks: a warning against the built-in reference"
if have_feature yaml; then
    printf 'cluster: t\nnode_types:\n  hgx: {gpus: {count: 1, nvlink: {links: 18}}}\n' >"$TMP/nvl.map"
    check --nvlink-status "$TMP/nolinks.txt" --map "$TMP/nvl.map"
    is "$rc $(fails)" "1 nvlink.state node/gpu0" "...and a failure where the map requires 18 links"
else
    skip "built without libyaml"
fi

# --- NCCL topologies: a map captured from ND H100 v5 against itself and against ND A100 v4
N=$SHARED_FIXTURES/nccl-topo
"$RAILYARD" map capture --nccl-topo "$N/azure_ndv5-topo.xml" --node-type ndv5 --nodes 'nd[001-100]' \
    -o "$TMP/ndv5.map"; is $? 0 "map captured from ndv5"
check --map "$TMP/ndv5.map" --node nd001 --nccl-topo "$N/azure_ndv5-topo.xml"
is $rc 0 "ndv5 passes the map captured from it"
check --map "$TMP/ndv5.map" --node nd001 --nccl-topo "$N/azure_ndv4-topo.xml"
is $rc 1 "ndv4 against the ndv5 map: exit 1"
is "$(jq -r '[.findings[]|select(.severity=="fail" and .check=="gpu.pcie.gen")]|length' $TMP/c.json)" 8 \
   "ndv4: gpu.pcie.gen fails on all 8 GPUs (Gen4, expected Gen5)"
jq -e '.findings[]|select(.check=="gpu.pcie.gen" and .subject=="nd001/gpu0" and .expected=="Gen5" and .observed=="Gen4")' $TMP/c.json >/dev/null
ok $? "ndv4: gpu0 expected Gen5 observed Gen4"
jq -e '[.findings[]|select(.severity=="fail" and .check=="affinity.numa")]|length > 0' $TMP/c.json >/dev/null
ok $? "ndv4: NICs on other NUMA nodes (4 NUMA nodes, not 2) are affinity.numa"
# a map that names the GPU model: ndv4's file carries no model, which is a warning, not a pass
sed 's/gpus: {count: 8,/gpus: {count: 8, model: "NVIDIA H100 80GB HBM3",/' "$TMP/ndv5.map" >"$TMP/ndv5m.map"
check --map "$TMP/ndv5m.map" --node nd001 --nccl-topo "$N/azure_ndv4-topo.xml"
is "$(jq -r '[.findings[]|select(.check=="gpu.model")|.severity]|unique|join(",")' $TMP/c.json)" warn \
   "gpu.model: an input without models is a warning"
check --map "$TMP/ndv5m.map" --node nd001 --nccl-topo "$N/aws_p4d-24xl-topo.xml"
jq -e '.findings[]|select(.severity=="fail" and .check=="gpu.model" and .observed=="GA100 [A100 SXM4 40GB]")' $TMP/c.json >/dev/null 2>&1 ||
    { have_feature libpci || skip_model=1; }
if [ -n "${skip_model:-}" ]; then skip "built without libpci: no model names from PCI ids"
else jq -e '.findings[]|select(.severity=="fail" and .check=="gpu.model")' $TMP/c.json >/dev/null; ok $? "p4d (A100) against an H100 map: gpu.model fails"; fi

# --- VM quirks: link_width="0", empty link_speed, virtual bridges: no PCIe finding
check --nccl-topo "$N/azure_ncv4-topo.xml"
is $rc 0 "ncv4 (VM quirks) passes"
jq -e '[.findings[]|select(.check|startswith("gpu.pcie"))]|length==0' $TMP/c.json >/dev/null
ok $? "ncv4: no PCIe finding from link_width=0"
check --nccl-topo "$N/azure_ndv4-topo.xml"
is $rc 2 "ndv4 (GPUs and NICs the static file does not identify): cannot judge, exit 2"
is "$(jq -r '.verdict' $TMP/c.json)" cannot-judge "ndv4: the JSON verdict is cannot-judge, not pass"
is "$(jq '[.findings[]|select(.severity=="fail")]|length' $TMP/c.json)" 0 \
   "ndv4 virtual bridges: no false failure without a map"
is "$(jq '.not_judged|length' $TMP/c.json)" 16 "ndv4: each of 8 GPUs and 8 NICs is named as not judged"

# --- built-in references catch a degraded link without any map
mkdir -p "$TMP/sys/class/infiniband/mlx5_0/ports/1" "$TMP/sys/class/infiniband/mlx5_1/ports/1"
for d in mlx5_0 mlx5_1; do
    echo "4: ACTIVE" >"$TMP/sys/class/infiniband/$d/ports/1/state"
    echo "5: LinkUp" >"$TMP/sys/class/infiniband/$d/ports/1/phys_state"
    echo "InfiniBand" >"$TMP/sys/class/infiniband/$d/ports/1/link_layer"
done
echo "400 Gb/sec (4X NDR)" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/rate"
echo "200 Gb/sec (2X NDR)" >"$TMP/sys/class/infiniband/mlx5_1/ports/1/rate"
check --node n1 --sysfs-root "$TMP/sys"
is $rc 1 "a 400G port trained at 200G (2X NDR) fails without a map"
is "$(fails)" "nic.port.rate n1/mlx5_1:1" "...as nic.port.rate on mlx5_1:1"
is "$(jq -r '.findings[]|select(.severity=="fail")|.expected' $TMP/c.json)" "400 Gb/s (4X NDR)" "...expected 400 Gb/s (4X NDR)"
# a Gen5 GPU at Gen4 x8, from the GPU's sysfs link attributes
mkdir -p "$TMP/sys/bus/pci/devices/0000:1b:00.0"
P=$TMP/sys/bus/pci/devices/0000:1b:00.0
echo 0x030200 >$P/class; echo 0x10de >$P/vendor; echo 0x2330 >$P/device
echo "16.0 GT/s PCIe" >$P/max_link_speed; echo 8 >$P/max_link_width
echo "16.0 GT/s PCIe" >$P/current_link_speed; echo 8 >$P/current_link_width
check --node n1 --sysfs-root "$TMP/sys"
if have_feature libpci; then
    jq -e '.findings[]|select(.severity=="fail" and .check=="gpu.pcie.gen" and .expected=="Gen5" and .observed=="Gen4")' $TMP/c.json >/dev/null
    ok $? "an H100 (10de:2330) at Gen4 fails gpu.pcie.gen"
    jq -e '.findings[]|select(.severity=="fail" and .check=="gpu.pcie.width" and .observed=="x8")' $TMP/c.json >/dev/null
    ok $? "...and x8 fails gpu.pcie.width"
else
    skip "built without libpci: the GPU model (and its reference) comes from PCI ids"
fi
# an H100 whose link trained at x8 in an x16 slot: the width judged is the trained one
P=$TMP/sys/bus/pci/devices/0000:1c:00.0
mkdir -p $P
echo 0x030200 >$P/class; echo 0x10de >$P/vendor; echo 0x2330 >$P/device
echo "32.0 GT/s PCIe" >$P/max_link_speed; echo 16 >$P/max_link_width
echo "32.0 GT/s PCIe" >$P/current_link_speed; echo 8 >$P/current_link_width
check --node n1 --sysfs-root "$TMP/sys"
if have_feature libpci; then
    is "$(jq -r '[.findings[]|select(.check=="gpu.pcie.width" and .subject=="n1/gpu1")|"\(.severity) \(.expected) \(.observed)"]|join(";")' $TMP/c.json)" \
       "fail x16 x8" "an H100 trained at x8 of its x16: gpu.pcie.width fails on the trained width"
else
    skip "built without libpci: the GPU model (and its reference) comes from PCI ids"
fi

# --- nic.port.rate without the IB width rule: Ethernet ports against their peers, and a 4X
# InfiniBand port at HDR against a map that says 400
S2=$TMP/sys2/class/infiniband
for d in mlx5_0 mlx5_1 mlx5_2; do
    mkdir -p "$S2/$d/ports/1"
    echo "4: ACTIVE" >"$S2/$d/ports/1/state"; echo "5: LinkUp" >"$S2/$d/ports/1/phys_state"
    echo "Ethernet" >"$S2/$d/ports/1/link_layer"; echo MT4129 >"$S2/$d/hca_type"
    echo "400 Gb/sec (4X NDR)" >"$S2/$d/ports/1/rate"
done
echo "200 Gb/sec (4X HDR)" >"$S2/mlx5_1/ports/1/rate"
check --node n1 --sysfs-root "$TMP/sys2"
is "$rc|$(jq -r '[.findings[]|select(.check=="nic.port.rate" and .severity=="fail")|"\(.subject) \(.expected) \(.observed)"]|join(";")' $TMP/c.json)" \
   "1|n1/mlx5_1:1 400 Gb/s (like 2 ports of this kind) 200 Gb/s" \
   "an Ethernet port at 200 beside two at 400 of its kind: nic.port.rate against its peers"
for d in mlx5_0 mlx5_1 mlx5_2; do echo InfiniBand >"$S2/$d/ports/1/link_layer"; echo "200 Gb/sec (4X HDR)" >"$S2/$d/ports/1/rate"; done
cat >"$TMP/rate.map" <<'MAP'
node_types:
  t:
    nics:
      - {name: mlx5_0, rate_gbps: 400}
      - {name: mlx5_1, rate_gbps: 400}
      - {name: mlx5_2, rate_gbps: 200}
nodes:
  n1: t
MAP
if have_feature yaml; then
    check --node n1 --map "$TMP/rate.map" --sysfs-root "$TMP/sys2"
    is "$rc|$(jq -r '[.findings[]|select(.check=="nic.port.rate" and .severity=="fail")|"\(.subject) \(.expected) \(.observed)"]|join(";")' $TMP/c.json)" \
       "1|n1/mlx5_0:1 400 Gb/s 200 Gb/s;n1/mlx5_1:1 400 Gb/s 200 Gb/s" \
       "4X HDR ports where the map says 400 Gb/s: nic.port.rate against the map (mlx5_2's 200 is fine)"
else
    skip "built without libyaml: no maps"
fi

# --- errors: exit 2, verdict error, one line
check --map "$TMP/nope.map"
is $rc 2 "missing map: exit 2"
is "$(jq -r .verdict $TMP/c.json)" error "missing map: verdict error in JSON"
check --map "$M/h100-ib-12hca.map" --node login1 --ibstat "$I/gpud_ibstat_h100_12hca_some_down_0.txt"
is $rc 2 "a node in no host list: exit 2 (could not judge)"
grep -q "node 'login1' is in no host list" "$TMP/err"; ok $? "...and says so"
"$RAILYARD" check --timeout 0 >/dev/null 2>&1; is $? 2 "a bad --timeout is a usage error"
"$RAILYARD" check --tier full >/dev/null 2>&1; is $? 2 "an unknown tier is a usage error"
"$RAILYARD" check --tier quick --ibstat "$I/gpud_ibstat_h100_roce_12hca_all_active.txt" >"$TMP/q" 2>&1
is $? 0 "tier quick runs"
! grep -q "not judged: tier quick" "$TMP/q"; ok $? "tier quick on a capture without GPUs: nothing to probe, nothing said"
"$RAILYARD" check --no-archive --tier quick --nccl-topo "$RAILYARD_FIXTURES/nccl/hgx-h100-slow-uplink.xml" >"$TMP/q" 2>&1
is $? 0 "tier quick on a capture with GPUs: the verdict of its other checks"
grep -q "not judged: tier quick: the GPU probes run on the live machine, not on a capture" "$TMP/q"
ok $? "...and the probes not run, said with the reason"
done_testing
