#!/bin/bash
# On a machine with an NVIDIA GPU: run every railyard probe, print the figures, fail when one is
# outside the plausible range for the GPU found, and run nvbandwidth (a reference build, given
# by NVBANDWIDTH= or found in ../shared/anchors/nvbandwidth/) on the same GPU in the same run:
# railyard/nvbandwidth ratios for H2D, D2H and the device-local copy. A failed run of either
# tool is reported and left out of the ratios, never averaged in.
#
#   tests/gpu/run-probes.sh [BUILD_DIR]     (default: the current directory, built with CUDA)
#
# Exit: 0 every figure plausible, 1 one is not, 2 nothing could run (no driver, no GPU).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-.}
RY=$build/railyard
NVB=${NVBANDWIDTH:-$here/../shared/anchors/nvbandwidth/nvbandwidth}
out=${OUT:-$(mktemp -d)}
[ -x "$RY" ] || { echo "run-probes: no railyard in $build (build with CUDA first)"; exit 2; }
command -v jq >/dev/null || { echo "run-probes: jq is needed"; exit 2; }

since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN {printf "%.1f", (b - a) / 1e9}'; }
start=$(date +%s%N)
"$RY" probe --json >"$out/probe.json" 2>"$out/probe.err"
rc=$?
echo "railyard probe: exit $rc in $(since "$start") s (full size)"
start=$(date +%s%N)
"$RY" probe --quick --json >"$out/probe-quick.json" 2>"$out/probe-quick.err"
echo "railyard probe --quick: exit $? in $(since "$start") s (the tier quick size)"
if [ $rc -eq 2 ]; then
    cat "$out/probe.err"
    exit 2
fi
"$RY" probe >"$out/probe.txt" 2>&1
cat "$out/probe.txt"

# figures: "group gpu peer value"
jq -r '.measurements[] | .name as $n | .values[] | "\($n) \(.gpu) \(.peer // "-") \(.value)"' \
    "$out/probe.json" >"$out/figures"
model=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "GPU: ${model:-unknown}"
# plausible ranges (GB/s or us): wide, for any data-center GPU from V100 on; tighter for H100/H200
h2d_lo=8 h2d_hi=130 local_lo=200 local_hi=10000 l2_lo=0.03 l2_hi=1 mem_lo=0.2 mem_hi=5 launch_lo=1 launch_hi=100
case $model in
*H100* | *H200* | *H20*) h2d_lo=35 h2d_hi=64 local_lo=1000 local_hi=5000 ;;
esac
bad=0
check_range() { # GROUP-REGEX LO HI
    while read -r g a p v; do
        if awk -v v="$v" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v < lo || v > hi) }'; then
            echo "IMPLAUSIBLE $g gpu$a${p:+ peer $p}: $v (expected $2 .. $3)"
            bad=1
        fi
    done < <(grep -E "^($1) " "$out/figures")
}
check_range 'host_to_device_ce|device_to_host_ce' $h2d_lo $h2d_hi
check_range 'device_local_copy_ce|device_local_copy_sm' $local_lo $local_hi
check_range 'l2_latency_sm' $l2_lo $l2_hi
check_range 'memory_latency_sm' $mem_lo $mem_hi
check_range 'kernel_launch_latency|graph_launch_latency' $launch_lo $launch_hi
grep -q '^graph_launch_latency ' "$out/figures" || { echo "MISSING graph_launch_latency"; bad=1; }

# the reference, side by side
if [ -x "$NVB" ]; then
    "$NVB" -t host_to_device_memcpy_ce device_to_host_memcpy_ce device_local_copy >"$out/nvb.txt" 2>&1
    nrc=$?
    if [ $nrc -ne 0 ] || ! grep -q '^SUM device_local_copy' "$out/nvb.txt"; then
        echo "nvbandwidth failed (exit $nrc): left out of the ratios"
        sed 's/^/  /' "$out/nvb.txt" | tail -5
    else
        for pair in host_to_device_memcpy_ce:host_to_device_ce device_to_host_memcpy_ce:device_to_host_ce \
                    device_local_copy:device_local_copy_ce; do
            t=${pair%%:*} g=${pair#*:}
            ref=$(awk -v t="$t" '$0 ~ "^Running " t "\\." {f = 1; next} f && /^ *0 / {print $2; exit}' "$out/nvb.txt")
            ours=$(awk -v g="$g" '$1 == g && $2 == 0 {print $4; exit}' "$out/figures")
            if [ -n "$ref" ] && [ -n "$ours" ]; then
                echo "gpu0 $t: railyard $ours GB/s, nvbandwidth $ref GB/s, ratio $(awk -v a="$ours" -v b="$ref" 'BEGIN {printf "%.3f", a / b}')"
            else
                echo "gpu0 $t: a figure is missing (railyard '${ours}', nvbandwidth '${ref}'): left out"
            fi
        done
    fi
else
    echo "nvbandwidth not found at $NVB: no ratios"
fi
[ $bad -eq 0 ] && echo "every figure plausible" || echo "some figures implausible"
exit $bad
