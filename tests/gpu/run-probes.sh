#!/bin/sh
# On a machine with an NVIDIA GPU: run every railyard probe (full and quick tiers), print the
# figures, fail when one is outside the plausible range for the GPU found, and run nvbandwidth
# on the same GPUs in the same run: railyard/nvbandwidth ratios for H2D, D2H and the
# device-local copy (tests/gpu/probe-report.py). A failed run of either tool is reported and
# left out of the ratios, never averaged in. Needs a shell, coreutils and python3 (no jq).
#
#   tests/gpu/run-probes.sh [BUILD_DIR]   (default: the current directory, built with CUDA)
#
# RAILYARD_BIN names the railyard binary instead (the GPU bundle's run script does); the
# nvbandwidth binary is NVBANDWIDTH, else ../shared/anchors/nvbandwidth/nvbandwidth beside the
# source tree; everything is written under OUT (default a new temporary folder).
# Exit: 0 every figure plausible, 1 one is not, 2 nothing could run (no driver, no GPU).
set -u
here=$(cd "$(dirname "$0")" && pwd)
RY=${RAILYARD_BIN:-${1:-.}/railyard}
NVB=${NVBANDWIDTH:-$here/../../../shared/anchors/nvbandwidth/nvbandwidth}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
[ -x "$RY" ] || { echo "run-probes: no railyard at $RY (build with CUDA first)"; exit 2; }
command -v python3 >/dev/null || { echo "run-probes: python3 is needed"; exit 2; }
# each run under a deadline: a hung driver call ends the run, not the machine's lease
limit() { # SECONDS COMMAND...
    s=$1
    shift
    if command -v timeout >/dev/null; then timeout -k 5 "$s" "$@"; else "$@"; fi
}
now() { date +%s%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.1f", (b - a) / 1e9}'; }

# deadlines that keep the whole run within 4 minutes (on one H200 it takes well under one)
start=$(now)
limit 120 "$RY" probe --json >"$out/probe.json" 2>"$out/probe.err"
rc=$?
echo "railyard probe --json: exit $rc in $(since "$start") s (full size)"
start=$(now)
limit 50 "$RY" probe --quick --json >"$out/probe-quick.json" 2>"$out/probe-quick.err"
echo "railyard probe --quick --json: exit $? in $(since "$start") s (the quick tier's size)"
if [ $rc -eq 2 ] || [ $rc -ge 124 ]; then
    cat "$out/probe.err"
    case $rc in
    2) ;;
    124 | 137) echo "run-probes: the probe passed its deadline and was stopped (exit $rc)" ;;
    126 | 127) echo "run-probes: railyard could not be started (exit $rc)" ;;
    *) echo "run-probes: the probe ended abnormally (exit $rc)" ;;
    esac
    exit 2
fi
sed 's/^/  /' "$out/probe.err"
model=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
set -- "$out/probe.json" --quick "$out/probe-quick.json" --model "${model:-}"
# the reference, side by side
if [ -x "$NVB" ]; then
    start=$(now)
    limit 60 "$NVB" -t host_to_device_memcpy_ce device_to_host_memcpy_ce device_local_copy \
        >"$out/nvbandwidth.txt" 2>&1
    nrc=$?
    echo "nvbandwidth: exit $nrc in $(since "$start") s"
    if [ $nrc -ne 0 ] || ! grep -q '^SUM device_local_copy' "$out/nvbandwidth.txt"; then
        echo "nvbandwidth failed (exit $nrc): left out of the ratios"
        tail -5 "$out/nvbandwidth.txt" | sed 's/^/  /'
    else
        set -- "$@" --nvbandwidth "$out/nvbandwidth.txt"
    fi
else
    echo "nvbandwidth not found at $NVB: no ratios"
fi
python3 "$here/probe-report.py" "$@"
