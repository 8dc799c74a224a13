#!/bin/sh
# railyard probe: the embedded PTX kernels assemble with ptxas for every target from sm_75 that
# ptxas knows (CUDA is installed here, no GPU is); without a driver or GPU the probe cannot
# judge (exit 2, the reason, JSON verdict cannot-judge) and check --tier quick is never failed
# by it. The probes themselves run on a GPU machine only (tests/gpu/run-probes.sh).
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature cuda || skip_all "built without CUDA: no probe kernels"
"$RAILYARD" probe --print-ptx >"$TMP/k.ptx"
is "$?:$(grep -c '^\.visible \.entry ry_' "$TMP/k.ptx")" "0:3" "--print-ptx: the three kernels embedded"
cmp -s "$TMP/k.ptx" "$RAILYARD_SRCDIR/probes/kernels.ptx"; ok $? "...exactly probes/kernels.ptx"
grep -q '^\.version 6\.4$' "$TMP/k.ptx" && grep -q '^\.target sm_70$' "$TMP/k.ptx"
ok $? "...in PTX ISA 6.4 for sm_70 (drivers from CUDA 10.1 on, V100 and newer GPUs)"
# the chase takes where to start (the timed loads begin past the warm-up's), the copy keeps
# four loads in flight per thread before its stores
grep -A6 '^\.visible \.entry ry_chase(' "$TMP/k.ptx" | grep -c '\.param \.u64' | grep -qx 4 &&
    grep -q 'ld\.param\.u64 %rd4, \[ry_chase_start\];' "$TMP/k.ptx"
ok $? "ry_chase(base, start, steps, out): the chase starts where it is told"
awk '/^COPY_FOUR:/ {f = 1} /^COPY_ONE:/ {f = 0} f && /ld\.global\.v4/ {l++} f && /st\.global\.v4/ && !s {s = l} END {exit !(l == 4 && s == 4)}' "$TMP/k.ptx"
ok $? "ry_copy: four 16-byte loads issued before the first store"

PTXAS=${PTXAS:-}
for p in "$PTXAS" "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" "$(command -v ptxas)"; do
    [ -n "$p" ] && [ -x "$p" ] && { PTXAS=$p; break; }
done
if [ -x "$PTXAS" ]; then
    known=0
    for sm in 75 80 86 87 88 89 90 100 101 103 110 120 121; do
        if "$PTXAS" -arch=sm_$sm "$TMP/k.ptx" -o "$TMP/k.cubin" 2>"$TMP/ptxas.err"; then
            known=$((known + 1))
            ok 0 "ptxas -arch=sm_$sm assembles the kernels"
        elif grep -q "is not defined for option 'gpu-name'" "$TMP/ptxas.err"; then
            skip "ptxas $("$PTXAS" --version | tail -1 | awk '{print $NF}') does not know sm_$sm"
        else
            ok 1 "ptxas -arch=sm_$sm assembles the kernels"
            sed 's/^/# /' "$TMP/ptxas.err"
        fi
    done
    [ "$known" -ge 4 ]; ok $? "ptxas knew $known targets from sm_75 up"
    # a kernel broken on purpose is refused: the test can fail
    sed 's/ld\.global\.cg\.u64 %rd4/ld.global.cg.u64 %rd99/' "$TMP/k.ptx" >"$TMP/bad.ptx"
    ! "$PTXAS" -arch=sm_90 "$TMP/bad.ptx" -o "$TMP/bad.cubin" 2>/dev/null
    ok $? "ptxas refuses a kernel with an undeclared register (the check bites)"
else
    skip "ptxas not found (set PTXAS or CUDA_HOME)"
fi

if [ -e /dev/nvidiactl ] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    skip "an NVIDIA driver is present: the no-driver checks do not apply (tests/gpu/run-probes.sh)"
else
    "$RAILYARD" probe >"$TMP/out" 2>"$TMP/err"
    is $? 2 "no NVIDIA driver: probe exits 2 (cannot judge, never a fault)"
    grep -q "probe: cannot judge: GPU probes: no NVIDIA driver on this node" "$TMP/err"; ok $? "...and says why"
    if have_feature jansson; then
        "$RAILYARD" probe --json >"$TMP/j" 2>/dev/null
        jq -e '.verdict == "cannot-judge" and (.cannot_judge | test("no NVIDIA driver"))' "$TMP/j" >/dev/null
        ok $? "--json: verdict cannot-judge with the reason"
    else
        skip "built without jansson"
    fi
fi
"$RAILYARD" probe --only pcie,disk >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "2:railyard: probe: --only: unknown probe 'disk' (pcie, p2p, mem, gdr)" "--only names an unknown probe"
for bad in x 0000:18:00.0 0000:18:00.0,0000:2a:00.0,0000:3a:00.0 ,0000:2a:00.0; do
    "$RAILYARD" probe --pair "$bad" >/dev/null 2>"$TMP/err"
    is "$?:$(grep -c -- "--pair takes two GPUs' PCI addresses" "$TMP/err")" "2:1" "--pair $bad: refused, exit 2"
done
# the GPUDirect loop needs a GPU in the node's topology and an RDMA NIC near it
if [ -e /dev/nvidia0 ] || ls /sys/class/infiniband/* >/dev/null 2>&1; then
    skip "a GPU or RDMA device is present: the loop is tried for real (tests/gpu/run-probes.sh)"
else
    "$RAILYARD" probe --only gdr >/dev/null 2>"$TMP/err"
    is "$?:$(cat "$TMP/err")" "2:railyard: probe: cannot judge: gdr: no GPU in the node's topology: no GPU memory to loop" \
       "--only gdr without a GPU: cannot judge, exit 2, saying why"
fi
"$RAILYARD" probe --nccl-topo x.xml >/dev/null 2>&1
is $? 2 "probe measures this machine: input options are refused"
done_testing
