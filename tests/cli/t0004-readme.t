#!/bin/sh
# The README names only what exists: each railyard command and sub-command of its code blocks is
# one the binary has, each --option one its --help lists, each script is there and executable,
# each manual page it names is shipped.
. "$RAILYARD_SRCDIR/tests/lib.sh"
README=$RAILYARD_SRCDIR/README.md
[ -f "$README" ] || skip_all "README.md not found"
FABRIC=$(dirname "$RAILYARD")/railyard-fabric

# the lines of the ```sh blocks
awk '/^```sh$/{f=1;next} /^```$/{f=0} f' "$README" | sed 's/ *#.*//' >"$TMP/lines"
[ -s "$TMP/lines" ]; ok $? "the README has command lines"

"$RAILYARD" help >"$TMP/help" 2>&1
cmds=$(awk '/^commands:/{f=1;next} f && NF{print $1}' "$TMP/help")
n=0
while read -r line; do
    # shellcheck disable=SC2086
    set -- $line
    while [ $# -gt 0 ] && [ "$1" != railyard ] && [ "$1" != railyard-fabric ]; do shift; done
    [ $# -gt 0 ] || continue
    tool=$1; shift
    if [ "$tool" = railyard-fabric ]; then
        if [ ! -x "$FABRIC" ]; then skip "railyard-fabric not built (no MPI): $line"; continue; fi
        # a sanitizer build: Open MPI's own leaks at exit are not railyard's (as in t0002)
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$FABRIC" --help >"$TMP/h" 2>&1
        what="railyard-fabric"
    else
        cmd=$1; shift
        echo "$cmds" | grep -qx "$cmd"; ok $? "README: 'railyard $cmd' is a command"
        "$RAILYARD" "$cmd" --help >"$TMP/h" 2>&1
        what="railyard $cmd"
        # a sub-command (map capture, report show): its usage names it
        case $1 in [a-z]*) grep -q "$1" "$TMP/h"; ok $? "README: '$what $1' is in its usage"; what="$what $1";; esac
    fi
    # input options (--nccl-topo, --bundle...) are common to every command: railyard --help
    "$RAILYARD" --help >>"$TMP/h" 2>&1
    for w in "$@"; do
        case $w in
        --*) o=${w%%=*}
            grep -q -- "$o\\b" "$TMP/h"; ok $? "README: $what $o is an option"; n=$((n + 1)) ;;
        esac
    done
done <"$TMP/lines"
[ "$n" -ge 8 ]; ok $? "the README's options were all looked at ($n)"

# scripts, the CI script, manual pages
for s in $(grep -o 'scripts/[a-z-]*' "$README" | sort -u); do
    case $s in scripts/bench-) ls "$RAILYARD_SRCDIR"/scripts/bench-* >/dev/null 2>&1; ok $? "README: scripts/bench-* exist" ;;
    *) [ -x "$RAILYARD_SRCDIR/$s" ]; ok $? "README: $s exists and is executable" ;; esac
done
[ -f "$RAILYARD_SRCDIR/.ci/run" ]; ok $? "README: .ci/run exists"
for p in $(grep -o 'railyard[a-z-]*([1-8])' "$README" | sort -u); do
    name=${p%(*} sec=$(echo "$p" | tr -dc 0-9)
    [ -f "$RAILYARD_SRCDIR/man/man$sec/$name.$sec.in" ]; ok $? "README: manual page $p is shipped"
done
grep -q 'not there yet' "$README"; [ $? -ne 0 ]; ok $? "the README promises nothing that is not there"
done_testing
