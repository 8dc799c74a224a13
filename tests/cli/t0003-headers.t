#!/bin/sh
# Every header of every layer (tests/layers) compiles on its own: it includes what it uses.
. "$RAILYARD_SRCDIR/tests/lib.sh"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip_all "no C compiler"
BUILD=$(dirname "$RAILYARD")
layers=$(sed 's/#.*//' "$RAILYARD_SRCDIR/tests/layers" | awk 'NF && $1 != "limit" {print $1}')
[ -n "$layers" ]; ok $? "tests/layers lists the layers"
n=0
for h in $(cd "$RAILYARD_SRCDIR" && for d in $layers; do find "$d" -name '*.h'; done | sort); do
    printf '#include "config.h"\n#include "%s"\n#include "%s"\n' "$h" "$h" >"$TMP/h.c"
    "$CC" -std=gnu11 -Wall -Werror -fsyntax-only -I"$RAILYARD_SRCDIR" -I"$BUILD" "$TMP/h.c" 2>"$TMP/e"
    ok $? "$h compiles alone and twice"
    [ -s "$TMP/e" ] && sed 's/^/# /' "$TMP/e" | head -5
    n=$((n + 1))
done
# every layer has headers, and all of them were compiled
for d in $layers; do
    c=$(cd "$RAILYARD_SRCDIR" && find "$d" -name '*.h' | wc -l)
    [ "$c" -gt 0 ]; ok $? "$d/ has headers ($c)"
done
[ "$n" -ge 45 ]; ok $? "every header was compiled ($n)"
done_testing
