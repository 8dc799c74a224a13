#!/bin/sh
# railyard probe run whole against the test driver (tests/tools/fakecuda.c, standing in for
# libcuda.so.1: host memory, simulated time, the driver's documented ordering and the errors it
# returns), so that no path of probes/gpu.c runs for the first time on a lent GPU: every figure
# of two GPUs with peer access; the chain uploads ordered before the chases that follow them
# (else an illegal address); the memory chase missing L2 on every timed load and the L2 chase
# hitting it; the SM copy's grid filling the GPU; a driver that refuses the kernels costing
# their figures alone; no peer access; an allocation refused; --pair; the full size.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature cuda || skip_all "built without CUDA: no GPU probes"
have_feature jansson || skip_all "built without jansson: the checks read the JSON"
command -v python3 >/dev/null || skip_all "python3 is not installed"
FAKE=$(dirname "$RAILYARD")/tests/tools/fakecuda
[ -f "$FAKE/libcuda.so.1" ] || skip_all "the test driver is not built ($FAKE/libcuda.so.1: make check builds it)"
# a build (or gigabytes of copies) on every core: at the lowest priority, so that the rigs
# running beside it keep the CPU their shaped links need
renice -n 19 -p $$ >/dev/null 2>&1 || true
probe() { # OUT ENV... -- ARGS...: railyard probe on the test driver
    o=$1
    shift
    env LD_LIBRARY_PATH="$FAKE" "$@" >"$o" 2>"$o.err"
}
# figure GROUP GPU [PEER]: the value, or "none"
figure() {
    python3 - "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
want = (sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else None)
for m in doc.get("measurements", []):
    for v in m.get("values", []):
        if (m["name"], v["gpu"], v.get("peer")) == want:
            print("%g" % round(v["value"], 3))
            sys.exit(0)
print("none")
EOF
}
names() { python3 -c 'import json, sys; print(" ".join(sorted(m["name"] for m in json.load(open(sys.argv[1]))["measurements"])))' "$1"; }

probe "$TMP/two" FAKECUDA_DEVICES=2 "$RAILYARD" probe --quick --json
is "$?" 0 "two GPUs with peer access: the probe runs through (exit 0)"
sed 's/^/# /' "$TMP/two.err"
all="device_local_copy_ce device_local_copy_sm device_to_device_bidirectional_ce device_to_device_latency_sm device_to_device_read_sm device_to_device_write_ce device_to_host_bidirectional_ce device_to_host_ce graph_launch_latency host_to_all_ce host_to_device_bidirectional_ce host_to_device_ce kernel_launch_latency l2_latency_sm memory_latency_sm"
is "$(names "$TMP/two")" "$all" "...every figure of the probes"
for g in 0 1; do
    is "$(figure "$TMP/two" memory_latency_sm $g)" 0.65 "gpu$g memory latency: every timed load missed L2 (650 ns each)"
    is "$(figure "$TMP/two" l2_latency_sm $g)" 0.25 "gpu$g L2 latency: every timed load hit L2 (250 ns each)"
    is "$(figure "$TMP/two" device_local_copy_sm $g):$(figure "$TMP/two" device_local_copy_ce $g)" 1600:1600 \
        "gpu$g SM copy at the copy engine's figure: the grid fills every multiprocessor"
done
is "$(figure "$TMP/two" device_to_device_latency_sm 0 1):$(figure "$TMP/two" device_to_device_latency_sm 1 0)" 1.15:1.15 \
    "peer latency both ways: over the link (900 ns) to the peer's L2"
is "$(figure "$TMP/two" device_to_device_write_ce 0 1):$(figure "$TMP/two" host_to_device_ce 1)" 350:55 \
    "peer writes and host copies at the driver's rates"
python3 -c 'import json, sys; n = json.load(open(sys.argv[1]))["notes"]; sys.exit("gpu1: 132 multiprocessors x 2048 threads, L2 51200 KiB: SM copy grid 528 x 512, buffers of 256 MiB" not in n)' "$TMP/two"
ok $? "the notes give each GPU's sizes: 528 blocks of 512 on 132 x 2048, buffers of 256 MiB"

probe "$TMP/mod" FAKECUDA_DEVICES=2 FAKECUDA_FAIL=module "$RAILYARD" probe --quick --json
is "$?" 0 "a driver that refuses the kernels: the probe still runs (exit 0)"
is "$(names "$TMP/mod")" "device_local_copy_ce device_to_device_bidirectional_ce device_to_device_write_ce device_to_host_bidirectional_ce device_to_host_ce host_to_all_ce host_to_device_bidirectional_ce host_to_device_ce" \
    "...with every copy-engine figure and none of the kernels'"
python3 -c 'import json, sys; n = json.load(open(sys.argv[1]))["notes"]; sys.exit(n.count("the probe kernels could not be loaded (cuModuleLoadData(probes/kernels.ptx): CUDA_ERROR_NO_BINARY_FOR_GPU (209))") != 2)' "$TMP/mod"
ok $? "...and a note per GPU with the driver's reason"

probe "$TMP/nopeer" FAKECUDA_DEVICES=2 FAKECUDA_PEER=0 "$RAILYARD" probe --quick --only p2p,mem --json
is "$?:$(figure "$TMP/nopeer" device_to_device_latency_sm 0 1):$(figure "$TMP/nopeer" device_to_device_read_sm 0 1)" 0:none:none \
    "no peer access: no SM read of the peer and no peer chase"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not any(m["name"] == "device_to_device_through_host_ce" for m in d["measurements"]))' "$TMP/nopeer"
ok $? "...the copies go through host memory, labelled so"

probe "$TMP/pair" FAKECUDA_DEVICES=3 "$RAILYARD" probe --quick --only p2p --pair 0000:3b:00.0,0000:1b:00.0 --json
is "$?:$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["gpus"])' "$TMP/pair")" 0:2 "--pair: the two GPUs asked for, of three"

probe "$TMP/oom" FAKECUDA_DEVICES=2 FAKECUDA_FAIL=alloc "$RAILYARD" probe --quick
is "$?" 2 "an allocation the driver refuses: cannot judge (exit 2)"
grep -q 'probe: cannot judge: GPU probes: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)' "$TMP/oom.err"; ok $? "...saying which call and why"

probe "$TMP/full" FAKECUDA_DEVICES=1 "$RAILYARD" probe --only mem --json
is "$?:$(figure "$TMP/full" memory_latency_sm 0):$(figure "$TMP/full" l2_latency_sm 0)" 0:0.65:0.25 \
    "the full size (256 MiB copies, 10 samples) on one GPU: the same latencies"
done_testing
