#!/bin/sh
# Every program under scripts/ answers -h and --help with its usage and does nothing else: exit
# 0, the text on stdout, nothing on stderr, in an environment whose PATH holds only the shells,
# python3 and tools that read text (a script that went on to do its work would find none of
# its tools and say so on stderr).
. "$RAILYARD_SRCDIR/tests/lib.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"
mkdir -p "$TMP/bin"
for t in sh bash env sed dirname basename cat head tail tr cut; do
    p=$(command -v "$t") && ln -s "$p" "$TMP/bin/$t"
done
# the interpreter itself, not a wrapper that finds it (pyenv's shims need more than this PATH)
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$TMP/bin/python3"
n=0
for s in "$RAILYARD_SRCDIR"/scripts/*; do
    [ -f "$s" ] && [ -x "$s" ] || continue
    n=$((n + 1))
    for h in -h --help; do
        env -i PATH="$TMP/bin" HOME="$TMP" "$s" "$h" >"$TMP/out" 2>"$TMP/err" </dev/null
        rc=$?
        is "$rc:$(wc -c <"$TMP/err" | tr -d ' ')" "0:0" "$(basename "$s") $h: exit 0, nothing on stderr $(head -c 200 "$TMP/err")"
        [ "$(wc -l <"$TMP/out")" -ge 2 ]; ok $? "$(basename "$s") $h: its usage ($(head -1 "$TMP/out" | cut -c1-60))"
    done
done
[ "$n" -ge 20 ]; ok $? "every program under scripts/ tried ($n)"
done_testing
