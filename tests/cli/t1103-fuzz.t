#!/bin/sh
# The map parser and the ibnetdiscover parser (with the fabric checks) under libFuzzer for a
# short while each (a longer run belongs in a weekly job).
. "$RAILYARD_SRCDIR/tests/lib.sh"
DIR=$(dirname "$RAILYARD")/tests/fuzz
[ -x "$DIR/fuzz_map" ] || [ -x "$DIR/fuzz_ibnetdiscover" ] ||
    skip_all "fuzzers not built (configure CC=clang --enable-fuzzers; make tests/fuzz/fuzz_map tests/fuzz/fuzz_ibnetdiscover)"
secs=${RAILYARD_FUZZ_SECONDS:-20}
fuzz() { # NAME SEED-FILES...
    name=$1
    shift
    if [ ! -x "$DIR/$name" ]; then
        skip "$name not built"
        skip "$name not built"
        return
    fi
    rm -rf "$TMP/corpus"
    mkdir -p "$TMP/corpus"
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$TMP/corpus/"; done
    "$DIR/$name" -max_total_time="$secs" -max_len=4096 -timeout=5 -rss_limit_mb=1024 \
        -artifact_prefix="$TMP/" "$TMP/corpus" >"$TMP/fuzz.log" 2>&1
    rc=$?
    is $rc 0 "$name ran ${secs}s without a crash, leak or timeout"
    [ $rc -eq 0 ] || { tail -30 "$TMP/fuzz.log" | sed 's/^/# /'; ls "$TMP"/crash-* "$TMP"/leak-* 2>/dev/null | sed 's/^/# /'; }
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$TMP/fuzz.log")
    [ "${runs:-0}" -gt 1000 ]; ok $? "$name executed ${runs:-0} inputs"
}
fuzz fuzz_map "$RAILYARD_SRCDIR"/tests/fixtures/maps/*.map
fuzz fuzz_ibnetdiscover "$SHARED_FIXTURES"/ibnetdiscover/*.topo "$SHARED_FIXTURES"/ibnetdiscover/psmn_x5_X5.topofile.txt
done_testing
