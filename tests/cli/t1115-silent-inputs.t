#!/bin/sh
# Inputs that say little, and pastes from tickets, read as other tools read them: nothing
# skipped in silence, nothing refused that is not ambiguous.
#  - a GPU whose input says nothing of NVLink, against a map or reference that expects links:
#    listed under not judged with the reason, on each GPU, never a silent pass;
#  - an empty nvidia-smi nvlink --status (what it prints where no GPU shows an NVLink) read as
#    that: eight H100 SXM of an NCCL dump fail nvlink.state, two A10 (no NVLink) do not;
#  - bandwidthTest's CSV line for the device-to-device copy (no -Pinned/-Paged suffix);
#  - outputs pasted into Markdown tickets: a banner that lost its '[', '> ' quote markers (one
#    and two deep), CRLF, trailing blanks and tabs give the figures and verdict of the clean
#    output; a line that is not the tool's output is still refused with FILE:LINE.
#  - a fabric without a single cable is not a pass; every command's --json prints the error;
#  - a node with no GPU and no RDMA device has nothing to judge (exit 0), unless its bus shows a
#    device a missing driver hides.
. "$RAILYARD_SRCDIR/tests/lib.sh"
command -v jq >/dev/null || skip_all "jq is not installed"
have_feature jansson || skip_all "built without jansson: the checks read the JSON"
pci() { # ROOT BUSID DEVICE-ID: an NVIDIA GPU's PCI function at Gen5 x16 in a sysfs tree
    p=$1/bus/pci/devices/$2
    mkdir -p "$p" "$1/class"
    echo 0x030200 >"$p/class"
    echo 0x10de >"$p/vendor"
    echo "$3" >"$p/device"
    for f in current_link_speed max_link_speed; do echo "32.0 GT/s PCIe" >"$p/$f"; done
    for f in current_link_width max_link_width; do echo 16 >"$p/$f"; done
}
# one H100 SXM5 (10de:2330) and nothing of NVLink
pci "$TMP/h100" 0000:18:00.0 0x2330
cat >"$TMP/m.yaml" <<'EOF'
cluster: t
node_types:
  h100:
    gpus: {count: 1, nvlink: {links: 18}}
nodes:
  node: h100
EOF
"$RAILYARD" check --sysfs-root "$TMP/h100" --map "$TMP/m.yaml" --node node --json >"$TMP/c.json" 2>"$TMP/err"
rc=$?
is "$rc:$(jq -r '[.findings[] | select(.check == "nvlink.state")] | length' "$TMP/c.json")" "0:0" \
    "one H100 in sysfs, no NVLink in the input, a map asking 18: no nvlink.state finding..."
jq -e '.not_judged | map(select(test("^node/gpu0: nvlink.state: the input says nothing of NVLink \\(18 active expected by the map\\)"))) | length == 1' \
    "$TMP/c.json" >/dev/null
ok $? "...but nvlink.state listed under not judged, naming the GPU and the map's 18"
"$RAILYARD" check --sysfs-root "$TMP/h100" --json >"$TMP/c.json" 2>/dev/null
jq -e '.not_judged | map(select(test("gpu0: nvlink.state: .*18 active expected by the model.s reference"))) | length == 1' \
    "$TMP/c.json" >/dev/null
ok $? "...without a map, the H100 SXM reference's 18 links, likewise"
# a GPU of a kind with no NVLink expects none: nothing to list
pci "$TMP/a10" 0000:18:00.0 0x2236
pci "$TMP/a10" 0000:2a:00.0 0x2236
"$RAILYARD" check --sysfs-root "$TMP/a10" --json >"$TMP/c.json" 2>/dev/null
jq -e '[.not_judged[] | select(test("nvlink"))] | length == 0' "$TMP/c.json" >/dev/null
ok $? "two A10 (no NVLink in their reference): no NVLink left unjudged"

# an empty nvlink status beside the GPUs another input lists
: >"$TMP/empty.txt"
printf '\n  \n' >"$TMP/blank.txt"
for e in empty blank; do
    "$RAILYARD" check --nccl-topo "$RAILYARD_FIXTURES/nccl/demo-hgx-h100.xml" --nvlink-status "$TMP/$e.txt" \
        --json >"$TMP/c.json" 2>"$TMP/err"
    is "$?:$(jq -r '[.findings[] | select(.check == "nvlink.state" and .severity == "fail")] | length' "$TMP/c.json")" "1:8" \
        "an $e nvlink status and 8 H100 SXM (NCCL dump): every GPU fails nvlink.state"
done
jq -e '.findings[] | select(.check == "nvlink.state" and .subject == "node/gpu3") | .expected == "18 active" and .observed == "0 active"' \
    "$TMP/c.json" >/dev/null
ok $? "...18 expected, 0 observed"
grep -q . "$TMP/err"; ok $((1 - $?)) "...and no input error"
"$RAILYARD" check --sysfs-root "$TMP/a10" --nvlink-status "$TMP/empty.txt" --json >"$TMP/c.json" 2>"$TMP/err"
is "$?:$(jq -r '[.findings[] | select(.check == "nvlink.state" and .severity != "ok")] | length' "$TMP/c.json")" "0:0" \
    "an empty nvlink status and two A10: nothing fails"

# bandwidthTest, clean and pasted
cat >"$TMP/bt.txt" <<'EOF'
[CUDA Bandwidth Test] - Starting...
Running on...

 Device 0: NVIDIA H100 80GB HBM3
 Quick Mode

bandwidthTest-H2D-Pinned, Bandwidth = 55.2 GB/s, Time = 0.00058 s, Size = 32000000 bytes, NumDevsUsed = 1
bandwidthTest-D2H-Pinned, Bandwidth = 55.9 GB/s, Time = 0.00057 s, Size = 32000000 bytes, NumDevsUsed = 1
bandwidthTest-D2D, Bandwidth = 1401.3 GB/s, Time = 0.00002 s, Size = 32000000 bytes, NumDevsUsed = 1
Result = PASS

NOTE: The CUDA Samples are not meant for performance measurements. Results may vary when GPU Boost is enabled.
EOF
figs() { jq -r '[.gpu_bandwidth[].measurements[] | .name as $n | .values[] | "\($n)=\(.value)"] | sort | join(" ")' "$1"; }
"$RAILYARD" check --bandwidth-test "$TMP/bt.txt" --json >"$TMP/clean.json" 2>"$TMP/err"
is "$?" 0 "bandwidthTest's CSV lines, the D2D one without a memory suffix: read"
want=$(figs "$TMP/clean.json")
is "$want" "device to device=1401.3 device to host, pinned=55.9 host to device, pinned=55.2" "...all three figures"
# the same pasted into a Markdown ticket: the banner's '[' taken for a link, quoted, CRLF
sed -e '1s/^\[//' -e 's/^/> /' -e '4,6s/^> />> /' -e 's/$/  \t/' -e 's/$/\r/' "$TMP/bt.txt" >"$TMP/pasted.txt"
"$RAILYARD" check --bandwidth-test "$TMP/pasted.txt" --json >"$TMP/p.json" 2>"$TMP/err"
is "$?:$(figs "$TMP/p.json")" "0:$want" "pasted (no '[', '> ' and '>> ' quotes, trailing blanks and tabs, CRLF): the same figures"
sed 's/^/# /' "$TMP/err"
sed '5a\
see the attached log' "$TMP/pasted.txt" >"$TMP/bad.txt"
"$RAILYARD" check --bandwidth-test "$TMP/bad.txt" >/dev/null 2>"$TMP/err"
is "$?" 2 "a line that is not bandwidthTest output, in a paste: refused"
grep -q "bad.txt:6: a line that is not bandwidthTest output: 'see the attached log'" "$TMP/err"; ok $? "...naming its file and line"

# nvlink status and ibstat pasted: the clean file's verdict
if [ -f "$SHARED_FIXTURES/nvlink/azurenhc_bad_nvlink_status.txt" ] && [ -f "$SHARED_FIXTURES/ibstat/gpud_ibstat_h100_12hca_some_down_0.txt" ]; then
    for pair in "nvlink-status:$SHARED_FIXTURES/nvlink/azurenhc_bad_nvlink_status.txt" \
                "ibstat:$SHARED_FIXTURES/ibstat/gpud_ibstat_h100_12hca_some_down_0.txt"; do
        opt=${pair%%:*} f=${pair#*:}
        "$RAILYARD" check --"$opt" "$f" --json >"$TMP/a.json" 2>/dev/null
        a=$?
        sed -e 's/^/> /' -e 's/$/\r/' "$f" >"$TMP/q.txt"
        "$RAILYARD" check --"$opt" "$TMP/q.txt" --json >"$TMP/b.json" 2>/dev/null
        b=$?
        is "$b:$(jq -c '[.findings[] | [.severity, .check, .subject]]' "$TMP/b.json")" \
            "$a:$(jq -c '[.findings[] | [.severity, .check, .subject]]' "$TMP/a.json")" \
            "--$opt $(basename "$f") quoted with CRLF: the clean file's findings and exit ($a)"
    done
else
    skip "shared fixtures nvlink/ and ibstat/ not found"
fi
# a fabric whose HCA reached nothing: not a pass
cat >"$TMP/lone.topo" <<'EOF'
#
# Topology file: generated on Wed May  6 15:14:42 2009
# Initiated from node 0002c9030002847c port 0002c9030002847e

vendid=0x2c9
devid=0x6340
sysimgguid=0x2c9030002847f
caguid=0x2c9030002847c
Ca      2 "H-0002c9030002847c"          # "compute-00-00 HCA-1"
EOF
"$RAILYARD" fabric --ibnetdiscover "$TMP/lone.topo" --json >"$TMP/f.json" 2>"$TMP/err"
is "$?:$(jq -r '.verdict' "$TMP/f.json"):$(jq -r '.cables' "$TMP/f.json")" "2:cannot-judge:0" \
    "railyard fabric, one HCA and no cable: cannot judge (exit 2), never a pass"
jq -e '.cannot_judge | test("reached nothing")' "$TMP/f.json" >/dev/null; ok $? "...saying the HCA reached nothing"
# every command's --json on a refused input: a document with the error, in the report's schema
schema_ok() {
    python3 -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
        "$1" "$RAILYARD_SRCDIR/reports/report.schema.json" 2>&1 | tail -1
}
for c in "inventory --nccl-topo $TMP/none.xml" "fabric --ibnetdiscover $TMP/none.topo" "check --map $TMP/none.map"; do
    # shellcheck disable=SC2086
    "$RAILYARD" $c --json >"$TMP/e.json" 2>"$TMP/err"
    rc=$?
    is "$rc:$(jq -r '"\(.verdict):\(.command // "check"):\(.error | test("none"))"' "$TMP/e.json" 2>&1)" "2:error:${c%% *}:true" \
        "railyard ${c%% *} --json on input that is not there: exit 2, a JSON document with the error"
    if python3 -c 'import jsonschema' 2>/dev/null; then
        is "$(schema_ok "$TMP/e.json")" "" "...valid against report.schema.json"
    else
        skip "python3-jsonschema is not installed"
    fi
done
# ...and the commands whose input is a map, a run or the archive, and probe's refused request:
# "command" names the command and its action
while IFS='|' read -r name args; do
    # shellcheck disable=SC2086
    "$RAILYARD" $args >"$TMP/e.json" 2>"$TMP/err"
    rc=$?
    is "$rc:$(jq -r '"\(.verdict):\(.command)"' "$TMP/e.json" 2>&1):$(jq -r .error "$TMP/e.json" 2>&1 | grep -c .)" \
        "2:error:$name:1" "railyard $name --json, refused: exit 2, a JSON document with the error ($(head -c 120 "$TMP/err"))"
    if python3 -c 'import jsonschema' 2>/dev/null; then
        is "$(schema_ok "$TMP/e.json")" "" "...valid against report.schema.json"
    else
        skip "python3-jsonschema is not installed"
    fi
done <<EOF
map show|map show --json $TMP/none.map
map validate|map validate --json $TMP/none.map
report show|report show --json --archive $TMP $TMP/none
report diff|report diff --json --archive $TMP latest
history|history --json --archive $TMP/none
probe|probe --json --only nothing
EOF
"$RAILYARD" report show --archive "$TMP" "$TMP/none" >"$TMP/e.txt" 2>/dev/null
is "$?:$(wc -c <"$TMP/e.txt")" "2:0" "...without --json: the message on stderr alone"
"$RAILYARD" map show --json "$TMP/none.map" "$TMP/none2.map" >"$TMP/e.json" 2>/dev/null
is "$?:$(jq -r .error "$TMP/e.json" | sed 's/:.*//' | tr '\n' ' ')" "2:cannot open $TMP/none.map cannot open $TMP/none2.map " \
    "map show --json of two maps that are not there: a document for each"
# a node with no GPU and no RDMA device: nothing to judge, healthy (railyard-check(1))
if [ ! -e /dev/nvidiactl ] && ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
    "$RAILYARD" check --json >"$TMP/n.json" 2>"$TMP/err"
    is "$?:$(jq -r '"\(.verdict):\(.nothing_to_judge)"' "$TMP/n.json")" \
        "0:pass:nothing to judge: no GPU and no RDMA device on this node" \
        "this machine, live (no GPU, no RDMA device): nothing to judge, exit 0"
    "$RAILYARD" check --reason >"$TMP/r" 2>/dev/null
    is "$?:$(cat "$TMP/r")" "0:railyard: ok (nothing to judge: no GPU and no RDMA device)" "...the health check's line says so"
else
    skip "this machine has a GPU or an RDMA device"
    skip "this machine has a GPU or an RDMA device"
fi
# a real capture (two sockets, three Tesla M2070, a ConnectX on 0000:05:00.0), cut down: without
# its GPUs and OS devices the ConnectX is on the bus with no RDMA driver, which is never
# "nothing to judge"; without the ConnectX too, it is
X=$SHARED_FIXTURES/hwloc-xml/hwloc-tests_24em64t-2n6c2t-pci.xml
if [ -f "$X" ]; then
    python3 - "$X" "$TMP" <<'EOF'
import sys
import xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1])
def prune(pred):
    for parent in t.iter():
        for ch in list(parent):
            if pred(ch):
                parent.remove(ch)
prune(lambda e: e.get("type") == "PCIDev" and e.get("pci_type", "").startswith(("0302", "0300")))
prune(lambda e: e.get("type") == "OSDev")
t.write(sys.argv[2] + "/nodrv.xml")
prune(lambda e: e.get("type") == "PCIDev" and "[15b3:" in e.get("pci_type", ""))
t.write(sys.argv[2] + "/bare.xml")
EOF
    "$RAILYARD" check --hwloc-xml "$TMP/nodrv.xml" --json >"$TMP/n.json" 2>/dev/null
    is "$?:$(jq -r '"\(.verdict):\(.nothing_to_judge)"' "$TMP/n.json")" "2:cannot-judge:null" \
        "a ConnectX on the bus without its RDMA driver, no GPU: cannot judge (exit 2), not 'nothing to judge'"
    "$RAILYARD" check --hwloc-xml "$TMP/bare.xml" --json >"$TMP/n.json" 2>/dev/null
    is "$?:$(jq -r '.verdict' "$TMP/n.json")" "0:pass" "...the same node without the ConnectX: nothing to judge, exit 0"
else
    skip "shared fixture hwloc-xml/ not found"
    skip "shared fixture hwloc-xml/ not found"
fi
# a PCIe link given only as its rate (hwloc: GB/s, no generation or width), gpu.pcie.gen and
# gpu.pcie.width, nic.pcie.gen and nic.pcie.width: a rate that carries
# the expected Gen5 x16 (63.015 GB/s; six decimals, a thousandth of slack) passes both checks, a
# lower one is not judged (an idle GPU slows its link; the rate does not say which term is short)
H=$RAILYARD_FIXTURES/hwloc/hgx-h100-4gpu.xml
rate() { # RATE: the first GPU of the 4-GPU HGX capture at that many GB/s
    sed "0,/\(0302 \[10de:2330\][^>]*pci_link_speed=\)\"63.015385\"/s//\1\"$1\"/" "$H" >"$TMP/r.xml"
    "$RAILYARD" check --hwloc-xml "$TMP/r.xml" --json >"$TMP/c.json" 2>"$TMP/err"
}
pcie_of() { # SUBJECT: the severities of its gpu.pcie findings, joined with ','
    jq -r --arg s "$1" '[.findings[] | select(.subject == $s and (.check | startswith("gpu.pcie.")))] | map(.severity) | join(",")' "$TMP/c.json"
}
rate 63.015385
is "$?:$(jq -r '[.findings[] | select((.check | startswith("gpu.pcie.")) and .severity == "ok" and .observed == "63.0 GB/s (the rate only)")] | length' "$TMP/c.json")" \
    "0:8" "hwloc, 4 H100 SXM at 63.0 GB/s: gpu.pcie.gen and gpu.pcie.width pass on each, on the rate"
jq -e '.findings[] | select(.check == "gpu.pcie.gen" and .subject == "hgx4-017/gpu0") | .expected == "Gen5"' "$TMP/c.json" >/dev/null
ok $? "...expected Gen5 (the H100 SXM reference)"
for r in 62.96 62.953; do
    rate $r
    is "$(pcie_of hgx4-017/gpu0):$(jq '.not_judged | length' "$TMP/c.json")" \
        "ok,ok:0" "a rate of $r GB/s (within a thousandth of 63.015) passes, nothing unjudged"
done
for r in 62.95 31.507692; do
    rate $r
    is "$(pcie_of hgx4-017/gpu0)" "" "gpu0 at $r GB/s: no gpu.pcie finding on it..."
    jq -e --arg r "$(printf %.1f $r)" '.not_judged | map(select(test("^hgx4-017/gpu0: gpu.pcie.gen and .width: the input gives only the link.s rate \\(" + $r + " GB/s, below the 63.0 GB/s of Gen5 x16\\)"))) | length == 1' \
        "$TMP/c.json" >/dev/null
    ok $? "...but listed under not judged with its rate and the 63.0 GB/s of Gen5 x16"
    is "$(pcie_of hgx4-017/gpu1)" "ok,ok" "...while gpu1, at 63.0, still passes"
done
# one term given, the other not (a sysfs tree without the link speed files): the width is
# judged, the generation listed as not judged
pci "$TMP/half" 0000:18:00.0 0x2330
rm "$TMP/half/bus/pci/devices/0000:18:00.0/current_link_speed" "$TMP/half/bus/pci/devices/0000:18:00.0/max_link_speed"
"$RAILYARD" check --sysfs-root "$TMP/half" --json >"$TMP/c.json" 2>/dev/null
is "$(pcie_of node/gpu0)" "ok" "an H100 in sysfs without its link speed: gpu.pcie.width judged (ok), no gen finding..."
jq -e '.not_judged | map(select(test("^node/gpu0: gpu.pcie.gen: the input does not give the link.s generation$"))) | length == 1' \
    "$TMP/c.json" >/dev/null
ok $? "...and gpu.pcie.gen listed under not judged"
echo 8 >"$TMP/half/bus/pci/devices/0000:18:00.0/current_link_width"
"$RAILYARD" check --sysfs-root "$TMP/half" --json >"$TMP/c.json" 2>/dev/null
is "$(pcie_of node/gpu0)" "fail" "...at x8 the width it gives still fails"
# no PCIe link at all: ibstat's NICs and nvidia-smi nvlink --status's GPUs
if [ -d "$SHARED_FIXTURES/ibstat" ]; then
    "$RAILYARD" check --ibstat "$SHARED_FIXTURES/ibstat/gpud_ibstat_h100_ib_8x400_all_active.txt" --json \
        >"$TMP/c.json" 2>/dev/null
    is "$(jq '[.not_judged[] | select(test("^node/mlx5_[0-9]+: nic.pcie.gen and .width: the input says nothing of its PCIe link \\(Gen5 expected\\)"))] | length' "$TMP/c.json"):$(jq '[.findings[] | select(.check | startswith("nic.pcie"))] | length' "$TMP/c.json")" \
        "8:0" "ibstat of 8 ConnectX-7: each NIC's PCIe listed under not judged (Gen5 expected), none passed"
    "$RAILYARD" check --nvlink-status "$SHARED_FIXTURES/nvlink/gpud_nvidia-smi_nvlink_status_a100x8.txt" --json \
        >"$TMP/c.json" 2>/dev/null
    is "$(jq '[.not_judged[] | select(test("^node/gpu[0-7]: gpu.pcie.gen and .width: the input says nothing of its PCIe link \\(Gen4 x16 expected\\)"))] | length' "$TMP/c.json"):$(jq '[.findings[] | select(.check | startswith("gpu.pcie"))] | length' "$TMP/c.json")" \
        "8:0" "nvlink status of 8 A100 SXM: each GPU's PCIe listed under not judged (Gen4 x16), none passed"
else
    skip "shared fixture ibstat/ not found"
    skip "shared fixture ibstat/ not found"
fi
# a NIC given only as a rate (POWER9 node, ConnectX-5 Ex at 15.75 GB/s): the map's Gen4 x8
# (15.75) passes it, the map's Gen4 x16 (31.5) leaves it unjudged
L=$SHARED_FIXTURES/hwloc-xml/llnl-mpibind_coral-lassen.xml
if [ -f "$L" ] && have_feature yaml; then
    for w in 8 16; do
        printf '%s\n' "cluster: t" "node_types:" "  p9:" "    nics:" \
            "      - {name: \"mlx5_0\", pcie: {gen: 4, width: $w}}" "nodes:" "  lassen28: p9" >"$TMP/l.yaml"
        "$RAILYARD" check --hwloc-xml "$L" --map "$TMP/l.yaml" --json >"$TMP/c.json" 2>"$TMP/err"
        set -- "$(jq -r '[.findings[] | select(.subject == "lassen28/mlx5_0" and (.check | startswith("nic.pcie.")))] | map(.severity) | join(",")' "$TMP/c.json")" \
            "$(jq '[.not_judged[] | select(test("^lassen28/mlx5_0: nic.pcie.gen and .width: the input gives only the link.s rate \\(15.8 GB/s, below the 31.5 GB/s of Gen4 x16\\)"))] | length' "$TMP/c.json")"
        if [ "$w" = 8 ]; then
            is "$1:$2" "ok,ok:0" "lassen mlx5_0 at 15.75 GB/s, map Gen4 x8: both checks pass on the rate"
        else
            is "$1:$2" ":1" "...map Gen4 x16: not judged, the rate below the 31.5 GB/s of Gen4 x16"
        fi
    done
else
    skip "shared fixture hwloc-xml/ or libyaml not found"
    skip "shared fixture hwloc-xml/ or libyaml not found"
fi
done_testing
