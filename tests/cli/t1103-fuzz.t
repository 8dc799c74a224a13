#!/bin/bash
# Every parser of outside input under libFuzzer for a short while each (scripts/fuzz-all, which
# runs them longer on demand): the map, ibnetdiscover dumps (with the fabric checks),
# ibstat/ibstatus, nvidia-smi nvlink --status, nvbandwidth, p2pBandwidthLatencyTest,
# bandwidthTest, NCCL and hwloc topology XML, the sysfs readers, gather bundles, report.json
# and the history's rows, seeded from the fixtures.
. "$RAILYARD_SRCDIR/tests/lib.sh"
B=$(dirname "$RAILYARD")
[ -x "$B/tests/fuzz/fuzz_ibstat" ] ||
    skip_all "fuzzers not built (configure CC=clang --enable-fuzzers; make fuzzers)"
secs=${RAILYARD_FUZZ_SECONDS:-15}

"$RAILYARD_SRCDIR/scripts/fuzz-all" --build "$B" --seconds "$secs" --corpus "$TMP/corpus" >"$TMP/out" 2>&1
rc=$?
grep -v '^RESULT ' "$TMP/out" | sed 's/^/# /'
[ $rc -le 1 ]; ok $? "scripts/fuzz-all ran (exit $rc)$(grep -m1 '^fuzz-all:' "$TMP/out" | sed 's/^/: /')"
is "$(grep -c '^RESULT ' "$TMP/out")" 13 "...every target (13)"
while read -r _ name code runs s; do
    if [ "$code" = skip ]; then
        skip "$name: not built in this build (its library is missing)"
        continue
    fi
    is "$code" 0 "$name ran ${s}s without a crash, leak, timeout or file left behind ($runs inputs, $((runs / s))/s)"
    [ "$runs" -gt 100 ]; ok $? "$name: more than 100 inputs ($runs)"
done < <(grep '^RESULT ' "$TMP/out")

# --runs: a target stops at that many inputs (the way to the goal of 10 million per target)
"$RAILYARD_SRCDIR/scripts/fuzz-all" --build "$B" --runs 300 --only map,ibstat --corpus "$TMP/corpus" >"$TMP/runs" 2>&1
is "$?:$(grep '^RESULT ' "$TMP/runs" | awk '{print $2, $3, $4}' | tr '\n' ';')" \
    "0:fuzz_map 0 300;fuzz_ibstat 0 300;" "--runs 300 --only map,ibstat: each stops at 300 inputs"
"$RAILYARD_SRCDIR/scripts/fuzz-all" --build "$B" --runs 1e7 >"$TMP/bad" 2>&1
is "$?:$(cat "$TMP/bad")" "2:fuzz-all: --runs takes a whole number of inputs" "--runs 1e7: refused"

# the crashes fuzzing found are kept as regression tests beside the other bad inputs
# (tests/cli/t1005-bad-input.t), which run in every build
done_testing
