#!/bin/sh
# Every header compiles on its own (includes what it uses).
. "$RAILYARD_SRCDIR/tests/lib.sh"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip_all "no C compiler"
BUILD=$(dirname "$RAILYARD")
for h in $(cd "$RAILYARD_SRCDIR" && ls common/*.h src/cmd/*.h topo/*.h readers/*.h reports/*.h probes/*.h fabric/*.h ib/*.h top/*.h); do
    printf '#include "config.h"\n#include "%s"\n#include "%s"\n' "$h" "$h" >"$TMP/h.c"
    "$CC" -std=gnu11 -Wall -Werror -fsyntax-only -I"$RAILYARD_SRCDIR" -I"$BUILD" "$TMP/h.c" 2>"$TMP/e"
    ok $? "$h compiles alone and twice"
    [ -s "$TMP/e" ] && sed 's/^/# /' "$TMP/e" | head -5
done
done_testing
