#!/bin/sh
# railyard map capture records a golden node's GPU figures as its node type's floors and
# ceilings; check judges other nodes against them; a golden node that is not uniform is said;
# bad thresholds are refused with file:line; --probe without a GPU cannot judge.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared gpu-bandwidth/nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt
have_feature yaml || skip_all "built without libyaml: no maps"
G=$SHARED_FIXTURES/gpu-bandwidth
H2D=$G/nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt
P2P=$G/dell-xe9780_b300-sxm6-x7_p2pbandwidthlatencytest.txt
BT=$G/autodl_rtx2080ti-x2-pcie-gen3_bandwidthtest.txt

# the floor computed here from the file: 0.85 x the slower of the H2D and D2H medians, rounded down
want=$(python3 - "$H2D" <<'PY'
import sys, statistics, math
rows, cur = {}, None
for line in open(sys.argv[1]):
    if line.startswith("Running "):
        cur = line.split()[1].rstrip(".")
    elif cur and line.strip().startswith("0 "):
        rows[cur] = [float(x) for x in line.split()[1:]]
m = min(statistics.median(rows["host_to_device_memcpy_ce"]), statistics.median(rows["device_to_host_memcpy_ce"]))
print("%g" % (math.floor(round(m * 0.85 * 10, 6)) / 10))
PY
)
"$RAILYARD" map capture --nvbandwidth "$H2D" -o "$TMP/m.yaml" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "0:" "capture from a uniform node: exit 0, no warning"
is "$(awk '$1 == "h2d_gbps:" {print $2}' "$TMP/m.yaml")" "$want" "h2d_gbps is 0.85 x the slower direction's median ($want)"
"$RAILYARD" map validate "$TMP/m.yaml" >/dev/null
ok $? "the captured map validates"
"$RAILYARD" check --no-archive --map "$TMP/m.yaml" --nvbandwidth "$H2D" >"$TMP/out"
is $? 0 "the golden node passes against its own map"

# a GPU just under the map's floor, yet above the link's floor and the siblings' rule
low=$(python3 -c "print('%.1f' % ($want - 0.1))")
awk -v low="$low" '/^Running host_to_device/ {h = 1} h && $1 == "0" && $2 ~ /\./ {$4 = low; h = 0} {print}' "$H2D" >"$TMP/slow.txt"
"$RAILYARD" check --no-archive --nvbandwidth "$TMP/slow.txt" >"$TMP/out"
is $? 0 "without the map, gpu2 at $low GB/s passes (the link's and siblings' rules)"
"$RAILYARD" check --no-archive --map "$TMP/m.yaml" --nvbandwidth "$TMP/slow.txt" >"$TMP/out"
is "$?:$(grep '^FAIL' "$TMP/out" | awk '{print $2, $3}')" "1:gpu.pcie.bw node/gpu2" "with the map, gpu2 fails gpu.pcie.bw"
grep -q "expected >= $want GB/s (the map's h2d_gbps), observed $low GB/s (gpu2," "$TMP/out"
ok $? "... naming the map's h2d_gbps and the figure"

# a golden node that is not uniform is told so, naming the figure and its line
"$RAILYARD" map capture --nvbandwidth "$TMP/slow.txt" -o "$TMP/m2.yaml" 2>"$TMP/err"
ok $? "capture from that node still writes the map"
grep -q "slow.txt line 23: gpu2 host_to_device_memcpy_ce ${low}0 is beyond the map's h2d_gbps $(printf %.2f "$want")" "$TMP/err"
ok $? "... and warns that gpu2 is beyond the floor it sets"

# latency: a ceiling at 1.5 x the median; a pair three times slower fails against the map
"$RAILYARD" map capture --p2p-bandwidth "$P2P" -o "$TMP/m3.yaml" 2>/dev/null
lat=$(awk '$1 == "p2p_latency_us:" {print $2}' "$TMP/m3.yaml")
[ -n "$lat" ]; ok $? "p2pBandwidthLatencyTest's latency becomes p2p_latency_us ($lat)"
[ -n "$(awk '$1 == "nvlink_pair_gbps:" {print $2}' "$TMP/m3.yaml")" ] && [ -n "$(awk '$1 == "local_gbps:" {print $2}' "$TMP/m3.yaml")" ]
ok $? "... and the peer and local copies their floors"
# the P2P=Enabled latency matrix, pair 4->5 made 1.2 x the ceiling (gpu0-3's pairs fail already)
ln=$(grep -n 'P2P=Enabled Latency (P2P Writes)' "$P2P" | head -1 | cut -d: -f1)
slow=$(python3 -c "print('%.2f' % ($lat * 1.2))")
awk -v start="$ln" -v slow="$slow" 'NR > start && $1 == "4" && !done {$7 = slow; done = 1} {print}' "$P2P" >"$TMP/lat.txt"
"$RAILYARD" check --no-archive --map "$TMP/m3.yaml" --p2p-bandwidth "$TMP/lat.txt" >"$TMP/out"
grep -q "^FAIL  gpu.p2p.latency *node/gpu4-gpu5 .*expected <= $(printf %.2f "$lat") us (the map's p2p_latency_us), observed $slow us (gpu4->gpu5" "$TMP/out"
ok $? "a pair at $slow us against the map's $lat us fails gpu.p2p.latency"

# a local copy counted as bytes read and written (bandwidthTest) is halved for the map
d2d=$(awk '/Device to Device/ {f = 1} f && $1 ~ /^[0-9]+$/ && NF == 2 {v = $2} END {print v}' "$BT")
"$RAILYARD" map capture --bandwidth-test "$BT" -o "$TMP/m4.yaml" 2>/dev/null
is "$(awk '$1 == "local_gbps:" {print $2}' "$TMP/m4.yaml")" "$(python3 -c "import math; print('%g' % (math.floor(round($d2d / 2 * 0.85 * 10, 6)) / 10))")" \
   "bandwidthTest's device-to-device $d2d GB/s (read + written) sets local_gbps from half of it"
"$RAILYARD" check --no-archive --map "$TMP/m4.yaml" --bandwidth-test "$BT" >"$TMP/out"
is $? 0 "... and the same node passes against it"

# bad thresholds: file:line:col, exit 2
printf 'node_types:\n  t:\n    thresholds:\n      l2_latency_us: fast\nnodes:\n  n: t\n' >"$TMP/bad.yaml"
"$RAILYARD" map validate "$TMP/bad.yaml" 2>"$TMP/err"
is "$?:$(grep -c "bad.yaml:4:.*l2_latency_us must be a non-negative number" "$TMP/err")" "2:1" "a threshold that is not a number: exit 2, file:line"
printf 'node_types:\n  t:\n    thresholds:\n      launch_latency: 5\nnodes:\n  n: t\n' >"$TMP/bad.yaml"
"$RAILYARD" map validate "$TMP/bad.yaml" 2>"$TMP/err"
is "$?:$(grep -c "bad.yaml:4:.*launch_latency_us" "$TMP/err")" "2:1" "an unknown threshold: exit 2, the nearest key suggested"

# --probe measures this machine; without a GPU it cannot, and with a capture it does not
if [ -e /dev/nvidia0 ]; then
    skip "a GPU is present: --probe measures it (tests/gpu/run-probes.sh)"
else
    "$RAILYARD" map capture --probe -o "$TMP/m5.yaml" 2>"$TMP/err"
    is "$?:$([ -e "$TMP/m5.yaml" ] && echo written)" "2:" "--probe without a GPU: exit 2, no map written"
fi
"$RAILYARD" map capture --probe --nvbandwidth "$H2D" 2>"$TMP/err" >/dev/null
is "$?:$(grep -c 'does not go with a captured input' "$TMP/err")" "2:1" "--probe with a captured input: refused, exit 2"
done_testing
