#!/bin/sh
# The GPU bundle (scripts/gpu-bundle): made from this tree, it carries railyard, the libraries a
# bare CUDA image may lack (never the C library's nor the NVIDIA driver's), nvbandwidth and a run
# script needing only a shell, coreutils and python3. Run here in an environment whose library
# path is the bundle's alone, it resolves every library from the bundle, reaches the probe and
# ends with the probe's no-driver exit 2 and its reason. A bundle missing a library says so.
# The discovery half (tests/gpu/run-discovery.sh) checks this node live and from its gather
# bundle and finds they agree. The plausibility and ratio report (tests/gpu/probe-report.py) is
# tried on made-up figures at the edges of its rules, on a real nvbandwidth capture, and on a
# whole run of one H200 (railyard's probe and nvbandwidth side by side).
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature cuda || skip_all "built without CUDA: no GPU probes to bundle"
case ${RAILYARD_CI_STAGE:-} in sanitizers)
    skip_all "CI stage sanitizers: the bundle is built by a configure of its own, the same in every stage (t1113 runs in CI's full stage)" ;;
esac
command -v python3 >/dev/null || skip_all "python3 is not installed"
# a build (or gigabytes of copies) on every core: at the lowest priority, so that the rigs
# running beside it keep the CPU their shaped links need
renice -n 19 -p $$ >/dev/null 2>&1 || true
B=$TMP/bundle
NVB=$RAILYARD_SRCDIR/../shared/anchors/nvbandwidth/nvbandwidth
if [ -x "$NVB" ]; then set -- --nvbandwidth "$NVB"; else set -- --no-nvbandwidth; fi
"$RAILYARD_SRCDIR/scripts/gpu-bundle" --build "$TMP/build" "$@" "$B" >"$TMP/made" 2>&1
rc=$?
sed 's/^/# /' "$TMP/made"
is "$rc" 0 "gpu-bundle makes the bundle"
[ $rc -eq 0 ] || { tail -20 "$TMP/build/obj/make.log" "$TMP/build/obj/configure.log" 2>/dev/null | sed 's/^/# /'; done_testing; exit 1; }
kb=$(du -sk "$B" | cut -f1)
[ "$kb" -le 65536 ]; ok $? "...of at most 64 MB ($kb KiB)"
for f in bin/railyard run run-probes.sh probe-report.py run-discovery.sh replay-compare.py VERSION MANIFEST; do
    [ -s "$B/$f" ]; ok $? "...with $f"
done
(cd "$B" && sha256sum -c --quiet MANIFEST) >"$TMP/sums" 2>&1; ok $? "...whose MANIFEST checks"
grep -q 'needs glibc 2\.[0-9]* or newer' "$B/VERSION"; ok $? "...and names the C library it needs: $(cat "$B/VERSION")"
nlib=$(ls "$B/lib" | wc -l)
[ "$nlib" -ge 1 ] && ls "$B/lib" | grep -q '^libhwloc\.so'; ok $? "the libraries railyard needs are carried ($(ls "$B/lib" | tr '\n' ' '))"
ls "$B/lib" | grep -E '^(libc|libm|libdl|libpthread|librt|ld-linux.*|libcuda|libnvidia-.*)\.so' >"$TMP/sys"
[ ! -s "$TMP/sys" ]; ok $? "...never the C library's or the driver's ($(cat "$TMP/sys"))"
if [ -x "$NVB" ]; then
    [ -x "$B/nvbandwidth/nvbandwidth" ] && [ -s "$B/nvbandwidth/LICENSE" ]; ok $? "nvbandwidth travels, with its license"
else
    skip "no nvbandwidth at $NVB: the bundle was made without it"
fi

env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$B/lib" OUT="$TMP/out" "$B/run" >"$TMP/ran" 2>&1
rc=$?
sed 's/^/# /' "$TMP/ran" | head -60
n=$(grep -c "=> $B/lib/" "$TMP/ran")
is "$n" "$nlib" "with only the bundle on the library path, each of its $nlib libraries resolves into it (ldd printed and checked)"
! grep -qE '^(MISSING|NOT FROM THE BUNDLE)' "$TMP/ran"; ok $? "...none missing, none from elsewhere"
grep -q '^/sys/bus/pci/devices: [0-9]* entries' "$TMP/ran" && grep -q '^== nvidia-smi -L' "$TMP/ran"
ok $? "the run says what /sys holds and what nvidia-smi lists"
if [ -e /dev/nvidiactl ] || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    skip "an NVIDIA driver is present: the run measures (the no-driver checks do not apply)"
else
    is "$rc" 2 "no driver here: the run ends with the probe's exit 2 (cannot judge)"
    grep -q 'railyard: probe: cannot judge: GPU probes: no NVIDIA driver on this node' "$TMP/ran"
    ok $? "...and the probe's reason"
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["verdict"] != "cannot-judge")' \
        "$TMP/out/probe.json"
    ok $? "...its JSON kept in OUT: verdict cannot-judge"
    [ -s "$TMP/out/bundle.log" ] && grep -q '^run-probes exit 2$' "$TMP/out/rc"; ok $? "...and the run's log"
fi
# the discovery half runs whatever the probes said: this node checked live and from its bundle
grep -q '^== discovery' "$TMP/ran" && grep -q '^  replay-compare: the bundle judges as the node: ' "$TMP/ran"
ok $? "the run checks the node live and from its gather bundle: they agree"
grep -q '^run-discovery exit 0$' "$TMP/out/rc" && [ -s "$TMP/out/discovery/gather.tar.gz" ] &&
    [ -s "$TMP/out/discovery/map.yaml" ] && grep -q '^check-map-live: exit 0$' "$TMP/ran"
ok $? "...keeps the bundle and a map captured here, which this node passes"
grep -q '^watch: exit 0$' "$TMP/ran" && grep -q '^  NVLinks: nvidia-smi lists [0-9]*, the watch sampled [0-9]*$' "$TMP/ran" &&
    [ -s "$TMP/out/discovery/watch-state.json" ]
ok $? "...and runs railyard watch on its NVLinks, beside nvidia-smi's count ($(grep -m1 '^  NVLinks:' "$TMP/ran"))"
# a library the image lacks: said, and the probe cannot start (never a pass)
if command -v patchelf >/dev/null; then
    cp -r "$B" "$TMP/broken"
    patchelf --add-needed libry-bundle-absent.so.1 "$TMP/broken/bin/railyard"
    env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$TMP/broken/lib" OUT="$TMP/out2" "$TMP/broken/run" >"$TMP/ran2" 2>&1
    rc=$?
    grep -q '^MISSING libry-bundle-absent.so.1$' "$TMP/ran2" && [ "$rc" -eq 2 ] &&
        grep -q 'railyard could not be started (exit 127)' "$TMP/ran2"
    ok $? "a library nowhere to be found: MISSING, railyard cannot start, the run exits 2 ($rc)"
else
    skip "patchelf is not installed: no library taken away"
fi

# the report's rules, on made-up figures: names as the probe writes them
fig() { # GROUP VALUE...: a probe JSON with one GPU's figures
    printf '{"verdict": "pass", "gpus": 1, "measurements": ['
    sep=
    while [ $# -gt 1 ]; do
        printf '%s{"name": "%s", "values": [{"gpu": 0, "value": %s}]}' "$sep" "$1" "$2"
        sep=,
        shift 2
    done
    printf ']}\n'
}
good="host_to_device_ce 55.6 device_to_host_ce 57.3 device_local_copy_ce 1600 device_local_copy_sm 1500
      l2_latency_sm 0.5 memory_latency_sm 0.651 kernel_launch_latency 4 graph_launch_latency 3"
# shellcheck disable=SC2086
fig $good >"$TMP/good.json"
python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$TMP/good.json" --model "NVIDIA H200" >"$TMP/rep" 2>&1
is "$?:$(tail -1 "$TMP/rep")" "0:every figure plausible" "probe-report: an H200's figures, memory 1.302 x the L2 hit: plausible"
grep -q 'gpu0 device-local copy, SM / copy engine: 0.938' "$TMP/rep"; ok $? "...the SM copy set against the copy engine's"
# shellcheck disable=SC2086
fig $(echo $good | sed 's/memory_latency_sm 0.651/memory_latency_sm 0.649/') >"$TMP/l2.json"
python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$TMP/l2.json" --model "NVIDIA H200" >"$TMP/rep" 2>&1
is "$?" 1 "a memory latency 1.298 x the L2 hit: an L2 figure, implausible"
grep -q '^IMPLAUSIBLE memory_latency_sm gpu0: 0.649 us' "$TMP/rep"; ok $? "...named"
for v in 34.9:1 35.1:0 63.9:0 64.1:1; do
    # shellcheck disable=SC2086
    fig $(echo $good | sed "s/host_to_device_ce 55.6/host_to_device_ce ${v%:*}/") >"$TMP/h.json"
    python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$TMP/h.json" --model "NVIDIA H100 80GB HBM3" >/dev/null 2>&1
    is "$?" "${v#*:}" "H100 H2D at ${v%:*} GB/s: $([ "${v#*:}" = 0 ] && echo plausible || echo implausible) (35 .. 64)"
done
# shellcheck disable=SC2086
fig $(echo $good | sed 's/host_to_device_ce 55.6/host_to_device_ce 34.9/') >"$TMP/h.json"
python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$TMP/h.json" --model "NVIDIA A100-SXM4-80GB" >/dev/null 2>&1
is "$?" 0 "an A100's H2D at 34.9 GB/s: inside the wide range (8 .. 130)"
# shellcheck disable=SC2086
fig $(echo $good | sed 's/ graph_launch_latency 3//') >"$TMP/ng.json"
python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$TMP/ng.json" --model "NVIDIA H200" >"$TMP/rep" 2>&1
is "$?:$(grep -c '^MISSING graph_launch_latency gpu0' "$TMP/rep")" "1:1" "a missing graph launch figure fails"
# ratios against a real nvbandwidth capture (an HGX H100 whose GPU 4 has a slow uplink)
fig host_to_device_ce 27.805 device_to_host_ce 57.28 device_local_copy_ce 1000 >"$TMP/r.json"
python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$TMP/r.json" \
    --nvbandwidth "$RAILYARD_FIXTURES/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt" >"$TMP/rep" 2>&1
grep -q '^gpu0 host_to_device_memcpy_ce: railyard 27.805 GB/s, nvbandwidth 55.61 GB/s, ratio 0.500$' "$TMP/rep" &&
    grep -q '^gpu0 device_to_host_memcpy_ce: railyard 57.28 GB/s, nvbandwidth 57.28 GB/s, ratio 1.000$' "$TMP/rep"
ok $? "ratios to nvbandwidth, GPU by GPU, read from its text output"
grep -q '^gpu0 device_local_copy: a figure is missing (railyard 1000, nvbandwidth None): left out$' "$TMP/rep"
ok $? "...a test nvbandwidth did not run is named and left out"
# a real run: railyard probe and nvbandwidth on one H200 (tests/fixtures/h200-vm/SOURCE.md)
H=$RAILYARD_FIXTURES/h200-vm
python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$H/railyard-probe.json" --quick "$H/railyard-probe-quick.json" \
    --nvbandwidth "$H/nvbandwidth.txt" --model "NVIDIA H200" >"$TMP/rep" 2>&1
is "$?:$(tail -1 "$TMP/rep")" "0:every figure plausible" "the H200's own run: every figure plausible"
grep -q '^gpu0 host_to_device_memcpy_ce: railyard 55.32360697 GB/s, nvbandwidth 54.93 GB/s, ratio 1.007$' "$TMP/rep" &&
    grep -q '^gpu0 device_to_host_memcpy_ce: railyard 55.21945301 GB/s, nvbandwidth 55.33 GB/s, ratio 0.998$' "$TMP/rep" &&
    grep -q '^gpu0 device_local_copy: railyard 2047.503173 GB/s, nvbandwidth 2092.55 GB/s, ratio 0.978$' "$TMP/rep"
ok $? "...railyard/nvbandwidth on the same GPU in one run: 1.007, 0.998, 0.978"
grep -q '^quick tier: verdict pass, 10 figures$' "$TMP/rep"; ok $? "...and its quick tier passes with 10 figures"
python3 "$RAILYARD_SRCDIR/tests/gpu/probe-report.py" "$TMP/out/nothing.json" >"$TMP/rep" 2>&1
is "$?" 2 "probe-report: an unreadable probe output is 'could not run' (2)"
done_testing
