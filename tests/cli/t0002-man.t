#!/bin/sh
# Man pages: no warnings from man, and every long option of --help appears in a page.
. "$RAILYARD_SRCDIR/tests/lib.sh"
command -v man >/dev/null || skip_all "man is not installed"
MANDIR=$(dirname "$RAILYARD")/man/man1
for p in railyard railyard-inventory railyard-gather; do
    f=$MANDIR/$p.1
    [ -f "$f" ] || { ok 1 "$p.1 exists"; continue; }
    w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=100 man --warnings --encoding=UTF-8 --local-file \
        --troff-device=utf8 --ditroff "$f" 2>&1 >/dev/null)
    is "$w" "" "$p.1 renders without warnings"
done
for cmd in inventory gather; do
    for opt in $("$RAILYARD" $cmd --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        cat "$MANDIR/railyard.1" "$MANDIR/railyard-$cmd.1" | sed 's/\\-/-/g' | grep -q -- "$opt"
        ok $? "railyard $cmd $opt is documented"
    done
done
done_testing
