#!/bin/sh
# The map parser under libFuzzer for a short while (a longer run belongs in a weekly job).
. "$RAILYARD_SRCDIR/tests/lib.sh"
FUZZ=$(dirname "$RAILYARD")/tests/fuzz/fuzz_map
[ -x "$FUZZ" ] || skip_all "fuzzers not built (configure CC=clang --enable-fuzzers; make tests/fuzz/fuzz_map)"
secs=${RAILYARD_FUZZ_SECONDS:-20}
mkdir -p "$TMP/corpus"
cp "$RAILYARD_SRCDIR"/tests/fixtures/maps/*.map "$TMP/corpus/"
"$FUZZ" -max_total_time="$secs" -max_len=4096 -timeout=5 -rss_limit_mb=1024 \
    -artifact_prefix="$TMP/" "$TMP/corpus" >"$TMP/fuzz.log" 2>&1
rc=$?
is $rc 0 "fuzz_map ran ${secs}s without a crash, leak or timeout"
[ $rc -eq 0 ] || { tail -30 "$TMP/fuzz.log" | sed 's/^/# /'; ls "$TMP"/crash-* "$TMP"/leak-* 2>/dev/null | sed 's/^/# /'; }
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$TMP/fuzz.log")
[ "${runs:-0}" -gt 1000 ]; ok $? "fuzz_map executed ${runs:-0} inputs"
done_testing
