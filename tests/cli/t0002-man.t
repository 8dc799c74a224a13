#!/bin/sh
# Man pages: no warnings from man, and every long option of --help appears in a page.
. "$RAILYARD_SRCDIR/tests/lib.sh"
command -v man >/dev/null || skip_all "man is not installed"
MANDIR=$(dirname "$RAILYARD")/man/man1
for p in railyard railyard-inventory railyard-gather railyard-hostlist railyard-check railyard-map railyard-fabric railyard-ibfabric railyard-report railyard-top railyard-probe railyard-watch; do
    f=$MANDIR/$p.1
    [ -f "$f" ] || { ok 1 "$p.1 exists"; continue; }
    w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=100 man --warnings --encoding=UTF-8 --local-file \
        --troff-device=utf8 --ditroff "$f" 2>&1 >/dev/null)
    is "$w" "" "$p.1 renders without warnings"
done
# the options --help lists (lines that start with an option), each in the command's page or in
# railyard(1) for the shared ones
for cmd in inventory gather hostlist check probe map fabric report history top watch; do
    page=railyard-$cmd
    [ $cmd = fabric ] && page=railyard-ibfabric # railyard-fabric(1) is the MPI job
    [ $cmd = history ] && page=railyard-report
    for opt in $("$RAILYARD" $cmd --help | grep -E '^ +-' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        cat "$MANDIR/railyard.1" "$MANDIR/$page.1" | sed 's/\\-/-/g' | grep -q -- "$opt"
        ok $? "railyard $cmd $opt is documented"
    done
done
for f in "$(dirname "$RAILYARD")"/man/man5/railyard-map.5 "$(dirname "$RAILYARD")"/man/man5/railyard-report.5 "$(dirname "$RAILYARD")"/man/man7/railyard-checks.7 "$(dirname "$RAILYARD")"/man/man8/railyard-healthcheck.8 "$(dirname "$RAILYARD")"/man/man8/railyard-preflight.8 "$(dirname "$RAILYARD")"/man/man8/railyard-bringup.8; do
    w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=100 man --warnings --encoding=UTF-8 --local-file \
        --troff-device=utf8 --ditroff "$f" 2>&1 >/dev/null)
    [ -f "$f" ] && [ -z "$w" ]; ok $? "$(basename "$f") renders without warnings"
done
# the scripts' options, each in its page
for sc in railyard-preflight railyard-bringup; do
    for opt in $("$RAILYARD_SRCDIR/scripts/$sc" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        sed 's/\\-/-/g' "$(dirname "$RAILYARD")/man/man8/$sc.8" | grep -q -- "$opt"
        ok $? "$sc $opt is documented"
    done
done
# every check id the code knows is documented in railyard-check(1)
FABRIC=$(dirname "$RAILYARD")/railyard-fabric
if [ -x "$FABRIC" ]; then
    for opt in $(ASAN_OPTIONS=detect_leaks=0 "$FABRIC" --help 2>/dev/null | grep -E '^ +-' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        sed 's/\\-/-/g' "$MANDIR/railyard-fabric.1" | grep -q -- "$opt"
        ok $? "railyard-fabric $opt is documented"
    done
else
    skip "railyard-fabric not built"
fi
ids=$("$RAILYARD" check --list-checks)
[ "$(echo "$ids" | wc -l)" -ge 13 ]; ok $? "check --list-checks lists the check ids"
for id in $ids; do
    cat "$MANDIR/railyard-check.1" "$MANDIR/railyard-fabric.1" "$MANDIR/railyard-ibfabric.1" | grep -q "^\.B $id\$"
    ok $? "check id $id is documented"
done
done_testing
