#!/bin/sh
# railyard hostlist: host lists expanded and counted by common/hostlist.c, the parser of the maps
# (what scripts such as railyard-bringup read lists with); a malformed list prints nothing.
. "$RAILYARD_SRCDIR/tests/lib.sh"

hl() { "$RAILYARD" hostlist "$@" 2>"$TMP/err" | tr '\n' ' '; }
is "$(hl 'gpu[001-003]')" "gpu001 gpu002 gpu003 " "a range: the lower bound's zero padding kept"
is "$(hl 'n[8-11]')" "n8 n9 n10 n11 " "unpadded: the width grows past the lower bound's"
is "$(hl 'gpu[01-02,07],login1')" "gpu01 gpu02 gpu07 login1 " "ranges and single hosts, in order"
is "$(hl 'rack[1-2]-n[1-2]')" "rack1-n1 rack1-n2 rack2-n1 rack2-n2 " "two ranges in one name"
is "$(hl a b,c 'd[9-10]')" "a b c d9 d10 " "several lists: each in turn"
is "$(hl n1,n1)" "n1 n1 " "a host named twice is printed twice"
is "$(hl --count 'gpu[001-128]' 'a,b' 'n[1-100000000]')" "128 2 100000000 " \
    "--count: each list's hosts, counted without expanding"
is "$(hl -c x)" "1 " "-c is --count"
is "$(hl 'a[1-2]' --count)" "2 " "an option after the list"

for bad in 'gpu[1-3' 'gpu[9-3]' 'a,,b' 'n[1-x]'; do
    "$RAILYARD" hostlist ok1 "$bad" ok2 >"$TMP/out" 2>"$TMP/err"
    is "$? $(wc -c <"$TMP/out")" "2 0" "'$bad' among good lists: exit 2 and nothing printed"
    grep -qF "hostlist: bad host list '$bad'" "$TMP/err"
    ok $? "... naming it: $(head -1 "$TMP/err")"
done
"$RAILYARD" hostlist >"$TMP/out" 2>"$TMP/err"
is "$? $(wc -c <"$TMP/out")" "2 0" "no list: exit 2, nothing printed"
grep -q "give a host list" "$TMP/err"; ok $? "... saying what it wants"
"$RAILYARD" hostlist --sysfs-root / a >/dev/null 2>&1; is $? 2 "an input option: refused (it reads no node)"
"$RAILYARD" hostlist --help | grep -q -- "--count"; ok $? "--help lists --count"
if [ -w /dev/full ]; then
    "$RAILYARD" hostlist 'n[1-5000]' >/dev/full 2>"$TMP/err"
    is $? 2 "a full disk: exit 2, not a list cut short in silence"
    grep -q "cannot write" "$TMP/err"; ok $? "... said"
else
    skip "no /dev/full"
    skip "no /dev/full"
fi
done_testing
