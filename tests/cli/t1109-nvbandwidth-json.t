#!/bin/sh
# railyard check --nvbandwidth on nvbandwidth's JSON output (--json): one run judged the same as
# its text output, figures and errors naming the JSON file's own lines; a waived test, a run's
# error, a failed pattern check read from the JSON; malformed JSON refused with file:line.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared gpu-bandwidth/nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt
have_feature jansson || skip_all "built without jansson: nvbandwidth's JSON is not read"
G=$SHARED_FIXTURES/gpu-bandwidth
F=$RAILYARD_FIXTURES
TOJSON="python3 $RAILYARD_SRCDIR/tests/tools/nvbandwidth-json.py"
chk() { "$RAILYARD" check --no-archive "$@" >"$TMP/out" 2>"$TMP/err"; }
verdicts() { grep -E '^(FAIL|WARN)' "$TMP/out" | awk '{print $1, $2, $3}' | sort | tr '\n' ';'; }

# the same run as text and as JSON: the same exit status and findings
for f in nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt \
         tinygrad-okm-issue29_rtx5090-x8-xeon8458p_nvbandwidth-h2d-d2h-ce-extract.txt \
         nvbandwidth-issue50_rtx-a6000-x6-pcie-gen4_nvbandwidth-d2d-read-ce.txt \
         nvbandwidth-issue48_h20-3e-x8_nvbandwidth-device-local-copy.txt \
         nvbandwidth-issue13_rtx2080ti-x2-no-p2p_nvbandwidth-d2d-write-ce-waived.txt; do
    $TOJSON "$G/$f" >"$TMP/run.json"
    chk --nvbandwidth "$G/$f"; want="$?:$(verdicts)"
    chk --nvbandwidth "$TMP/run.json"; got="$?:$(verdicts)"
    is "$got" "$want" "${f%%_*}: JSON judged as its text ($want)"
done
wl=$(grep -n '"name" : "device_to_device_memcpy_write_ce"' "$TMP/run.json" | cut -d: -f1)
grep -q "^WARN  gpu.p2p.access .*nvbandwidth v0.2 waived device_to_device_memcpy_write_ce (line $wl)" "$TMP/out"
ok $? "a waived test case is said, with its line in the JSON ($wl)"

if have_feature libxml2; then
    $TOJSON "$F/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt" >"$TMP/hgx.json"
    chk --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" --nvbandwidth "$TMP/hgx.json"
    is "$?:$(verdicts)" "1:FAIL gpu.pcie.bw node/gpu4;WARN pcie.path node/0000:97:00.0;" \
       "HGX H100 with gpu4's uplink at Gen2, as JSON: gpu4 fails"
    row=$(grep -n '"7.05"' "$TMP/hgx.json" | cut -d: -f1)
    grep -q "observed 7.0 GB/s (gpu4, nvbandwidth v0.8 device_to_host_memcpy_ce, hgx.json line $row)" "$TMP/out"
    ok $? "... the figure names the JSON line of its row ($row)"
else
    skip "built without libxml2: no NCCL topology"; skip "built without libxml2: no NCCL topology"
fi

# what the JSON says went wrong
$TOJSON "$G/nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt" >"$TMP/ok.json"
python3 - "$TMP/ok.json" "$TMP/err.json" "$TMP/pat.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["nvbandwidth"]["error"] = "cuMemAlloc failed: out of memory"
json.dump(d, open(sys.argv[2], "w"), indent=3)
d = json.load(open(sys.argv[1]))
d["nvbandwidth"]["testcases"][1]["error"] = "Invalid value when checking the pattern at 0x7f..."
d["nvbandwidth"]["testcases"][1]["status"] = "Error"
json.dump(d, open(sys.argv[3], "w"), indent=3)
PY
chk --nvbandwidth "$TMP/err.json"
grep -q "not judged: .*err.json: the run ended before its report (the run's error: cuMemAlloc failed: out of memory)" "$TMP/out"
ok $? "the run's error is said: what it did not print is not judged"
chk --nvbandwidth "$TMP/pat.json"
is "$?:$(verdicts)" "1:FAIL gpu.copy.verify node;" "a test case's failed pattern check fails gpu.copy.verify"

# blank lines and spaces before the JSON's first brace: still JSON, judged as without them
chk --nvbandwidth "$TMP/ok.json"; want="$?:$(verdicts)"
{ echo; printf '   \t\n  '; cat "$TMP/ok.json"; } >"$TMP/lead.json"
chk --nvbandwidth "$TMP/lead.json"
is "$?:$(verdicts)" "$want" "JSON after blank lines and spaces: read as JSON ($want)"

# malformed JSON: file:line(:col), exit 2
head -c 300 "$TMP/ok.json" >"$TMP/cut.json"
chk --nvbandwidth "$TMP/cut.json"
is "$?:$(grep -c "cut.json:[0-9]*:[0-9]*: not JSON" "$TMP/err")" "2:1" "JSON cut short: exit 2 with file:line:column"
sed '0,/"26.47"/s//"fast"/' "$TMP/ok.json" >"$TMP/cell.json"
# the row is written one cell a line: it opens two lines above its second cell
row=$(($(grep -n '"fast"' "$TMP/cell.json" | cut -d: -f1) - 2))
chk --nvbandwidth "$TMP/cell.json"
is "$?:$(grep -c "cell.json:$row: 'fast' is neither a number nor N/A (column 1)" "$TMP/err")" "2:1" \
   "a cell that is not a number: exit 2 naming the row's line ($row)"
printf '{"nvbandwidth": {"testcases": [{"name": "host_to_device_memcpy_ce",\n "bandwidth_description": "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)",\n "bandwidth_matrix": [\n  [ "1.0", {"x": 1} ] ]}]}}\n' >"$TMP/obj.json"
chk --nvbandwidth "$TMP/obj.json"
is "$?:$(grep -c "obj.json:4: host_to_device_memcpy_ce: a cell that is neither a number nor N/A (row 0)" "$TMP/err")" "2:1" \
   "a cell that is an object: exit 2 naming the row's line"
python3 - "$TMP/ok.json" "$TMP/nodesc.json" "$TMP/short.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["nvbandwidth"]["testcases"][0]["bandwidth_description"]
json.dump(d, open(sys.argv[2], "w"), indent=3)
d = json.load(open(sys.argv[1]))
d["nvbandwidth"]["testcases"][0]["bandwidth_matrix"].append(["1.0"] * 8)
json.dump(d, open(sys.argv[3], "w"), indent=3)
PY
chk --nvbandwidth "$TMP/nodesc.json"
is "$?:$(grep -c "nodesc.json:[0-9]*: host_to_device_memcpy_ce: a bandwidth_matrix without its bandwidth_description" "$TMP/err")" "2:1" \
   "a matrix without its description: exit 2"
chk --nvbandwidth "$TMP/short.json"
is "$?:$(grep -c "short.json:[0-9]*: row 1: a host-to-GPU matrix has one row" "$TMP/err")" "2:1" \
   "a host matrix with a second row: exit 2 naming its line"
printf '{"perftest": {}}\n' >"$TMP/other.json"
chk --nvbandwidth "$TMP/other.json"
is "$?:$(grep -c "other.json:1: JSON without an \"nvbandwidth\" object" "$TMP/err")" "2:1" "other JSON: exit 2"
done_testing
