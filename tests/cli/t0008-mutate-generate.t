#!/bin/bash
# scripts/mutate --generate: the mutants it derives from a C file (each operator where the code
# has it; nothing in comments, strings, preprocessor lines or loop headers), an equivalent mutant
# listed with its reason counted apart, and tables it cannot read refused with file:line.
. "$RAILYARD_SRCDIR/tests/lib.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"
M=$RAILYARD_SRCDIR/scripts/mutate
cat >"$TMP/x.c" <<'C'
/* a comment with a < b && c */
#include <stdio.h>
static int f(int a, double b)
{
    const char *s = "x < y || z";
    for (int i = 0; i < a; i++)
        b += 0.5;
    if (a >= 10 && b != 2.5)
        return a < 0x1f ? 1 : 0;
    return fmin(a, b) > 0.75 ? TOPO_SEV_FAIL : TOPO_SEV_OK;
}
C
printf '%s: tests/unit/test_inert.t\n' "$TMP/x.c" >"$TMP/tests.txt"
printf '# none\n' >"$TMP/equiv.txt"
gen() { "$M" --generate --dry-run --tests-of "$TMP/tests.txt" --equivalent "$TMP/equiv.txt" "$TMP/x.c" 2>&1; }
gen >"$TMP/out"
is "$?:$(head -1 "$TMP/out")" "0:mutate: 17 mutants generated from 1 files" "17 mutants from the file"
has() { grep -qxF "$TMP/x.c:$1" "$TMP/out"; ok $? "mutant $1"; }
has "7:14 constant doubled: b += 1.0;"
has "7:14 constant halved: b += 0.25;"
has "8:11 relational operator: if (a > 10 && b != 2.5)"
has "8:14 boundary moved by one: if (a >= 11 && b != 2.5)"
has "8:22 relational operator: if (a >= 10 && b == 2.5)"
has "8:17 && and || swapped: if (a >= 10 || b != 2.5)"
has "8:9 condition dropped: if (0)"
has "9:18 relational operator: return a <= 0x1f ? 1 : 0;"
has "9:20 boundary moved by one: return a < 0x20 ? 1 : 0;"
has "10:12 fmin and fmax swapped: return fmax(a, b) > 0.75 ? TOPO_SEV_FAIL : TOPO_SEV_OK;"
has "10:32 severity changed: return fmin(a, b) > 0.75 ? TOPO_SEV_WARN : TOPO_SEV_OK;"
has "10:48 severity changed: return fmin(a, b) > 0.75 ? TOPO_SEV_FAIL : TOPO_SEV_WARN;"
is "$(grep -cE "^$TMP/x.c:(1|2|5|6):" "$TMP/out")" 0 "nothing from the comment, the include, the string or the loop header"
# an equivalent mutant is marked, with its reason
printf '%s | if (a >= 10 && b != 2.5) | if (a >= 10 && b != 5.0) | b is never 5\n' "$TMP/x.c" >"$TMP/equiv.txt"
gen >"$TMP/out"
is "$(grep -c '^EQUIV ' "$TMP/out"):$(grep -c "^EQUIV $TMP/x.c:8:25 constant doubled" "$TMP/out")" "1:1" "the listed mutant is marked equivalent"
printf '%s | if (a >= 10 && b != 2.5) | if (a >= 10 && b != 5.0)\n' "$TMP/x.c" >"$TMP/equiv.txt"
gen >"$TMP/out"
is "$?:$(grep -c "equiv.txt:1: 'FILE | LINE AS IT IS | LINE MUTATED | WHY' expected" "$TMP/out")" "2:1" "an equivalent without its reason: refused with file:line"
printf '# none\n' >"$TMP/equiv.txt"
# --survivors-of: only the mutants an earlier run left alive, found where their line moved to
cat >"$TMP/before.out" <<OUT
KILLED   $TMP/x.c:9:18 relational operator: '<' -> '<=' (3 s)
SURVIVED $TMP/x.c:99:11 relational operator: '>=' -> '>': if (a > 10 && b != 2.5)
SURVIVED $TMP/x.c:8:9 condition dropped: 'a >= 10 && b != 2.5' -> '0': if (0)
SURVIVED $TMP/x.c:9:9 condition dropped: 'a < 99' -> '0': if (0)
OUT
"$M" --generate --dry-run --tests-of "$TMP/tests.txt" --equivalent "$TMP/equiv.txt" \
    --survivors-of "$TMP/before.out" "$TMP/x.c" >"$TMP/out" 2>&1
is "$?:$(sed -n 2p "$TMP/out")" "0:mutate: 2 of them survived in $TMP/before.out (3 listed there)" \
    "--survivors-of: 2 of the 3 survivors listed are still mutants of the file"
is "$(grep -c "^$TMP/x.c:" "$TMP/out"):$(grep -c "^$TMP/x.c:8:11 relational operator: if (a > 10 && b != 2.5)$" "$TMP/out"):$(grep -c "^$TMP/x.c:8:9 condition dropped: if (0)$" "$TMP/out")" \
    "2:1:1" "--survivors-of: the moved one found at its line now, the killed one and the stale one left out"
"$M" --generate --dry-run --tests-of "$TMP/tests.txt" --survivors-of "$TMP/nothing.out" "$TMP/x.c" >"$TMP/out" 2>&1
is "$?:$(grep -c "nothing.out: No such file or directory" "$TMP/out")" "2:1" "--survivors-of a log that is not there: refused"
# --part K/N: consecutive shares that together are the whole list, each mutant in one
gen >"$TMP/all"
grep "^$TMP/x.c:" "$TMP/all" >"$TMP/all.m"
for k in 1 2 3; do
    "$M" --generate --dry-run --tests-of "$TMP/tests.txt" --equivalent "$TMP/equiv.txt" --part $k/3 "$TMP/x.c" >"$TMP/p$k" 2>&1
    is "$?" 0 "--part $k/3 runs"
done
is "$(sed -n 2p "$TMP/p1"):$(sed -n 2p "$TMP/p2"):$(sed -n 2p "$TMP/p3")" \
    "mutate: part 1 of 3: mutants 1 to 5 of 17:mutate: part 2 of 3: mutants 6 to 11 of 17:mutate: part 3 of 3: mutants 12 to 17 of 17" \
    "--part: 5, 6 and 6 of the 17"
cat "$TMP/p1" "$TMP/p2" "$TMP/p3" | grep "^$TMP/x.c:" | cmp -s - "$TMP/all.m"
ok $? "--part: the three shares in order are the whole list"
for bad in 4/3 0/3 2 1/0 x/2; do
    "$M" --generate --dry-run --tests-of "$TMP/tests.txt" --part $bad "$TMP/x.c" >"$TMP/out" 2>&1
    is "$?:$(grep -c "^mutate: --part K/N with 1 <= K <= N, not '$bad'" "$TMP/out")" "2:1" "--part $bad: refused"
done
"$M" --generate --dry-run --tests-of "$TMP/tests.txt" --part 1/2 --sample 3 "$TMP/x.c" >"$TMP/out" 2>&1
is "$?:$(grep -c '^mutate: --part and --sample: one or the other' "$TMP/out")" "2:1" "--part with --sample: refused"
printf 'topo/nothing.c: tests/unit/test_inert.t\n' >"$TMP/tests.txt"
gen >"$TMP/out"
is "$?:$(grep -c "x.c: no tests listed for it" "$TMP/out")" "2:1" "a file without its tests: refused"
# the project's own list: every file and test it names is there
while read -r f rest; do
    case $f in \#* | "") continue ;; esac
    f=${f%:}
    [ -f "$RAILYARD_SRCDIR/$f" ]; ok $? "tests/mutate-tests.txt: $f exists"
    for t in $rest; do
        [ -f "$RAILYARD_SRCDIR/${t%.t}.c" ] || [ -f "$RAILYARD_SRCDIR/$t" ]
        ok $? "tests/mutate-tests.txt: $t (for $f) exists"
    done
done <"$RAILYARD_SRCDIR/tests/mutate-tests.txt"
# the list of hand-written mutations (tests/mutations.txt): each still applies to the code, once;
# one whose text the code no longer has is named with its line, and the run fails
"$M" --dry-run >"$TMP/out" 2>&1
is "$?:$(tail -n 1 "$TMP/out")" "0:mutate: $(grep -c '^@ ' "$RAILYARD_SRCDIR/tests/mutations.txt") mutations, 0 stale" \
    "tests/mutations.txt: every mutation's text is in its file once ($(grep '^STALE' "$TMP/out" | cut -c1-200 | tr '\n' ' '))"
# CI's sample (--quick): drawn among the mutations whose tests start no rig, every one of them
rigs=" $(make -s -C "$(dirname "$RAILYARD")" print-tests 2>/dev/null | sed -n 's/^\(HOST_RIG\|GUEST\|SIM\|BUSY\)_TESTS = //p' | tr '\n' ' ') "
want=$(awk -v rigs="$rigs" '/^@ / {id = $2} /^tests / {r = 0; for (i = 2; i <= NF; i++) if (index(rigs, " " $i " ")) r = 1; if (!r) n++} END {print n}' "$RAILYARD_SRCDIR/tests/mutations.txt")
"$M" --sample 1000 --quick --dry-run >"$TMP/out" 2>&1
got=$(grep -c '^APPLIES' "$TMP/out")
bad=$(grep '^APPLIES' "$TMP/out" | cut -d: -f2- | tr ' ' '\n' | while read -r t; do [ -n "$t" ] && case $rigs in *" $t "*) echo "$t" ;; esac; done | sort -u | tr '\n' ' ')
is "$got:$bad" "$want:" "--sample --quick: the $want mutations whose tests start no rig, no other (rig tests among them: ${bad:-none}; $(wc -w <<<"$rigs") rig tests read from make print-tests)"
printf '@ gone\nfile common/error.c\ntests tests/unit/test_error.t\n- this text is nowhere\n+ x\n\n@ there\nfile common/error.c\ntests tests/unit/test_error.t\n- %s\n+ x\n' \
    "$(grep -m1 -v '^ *$' "$RAILYARD_SRCDIR/common/error.c")" >"$TMP/list.txt"
"$M" --list "$TMP/list.txt" --dry-run >"$TMP/out" 2>&1
is "$?:$(grep -c "^STALE    gone: its text is in common/error.c 0 times, not once ($TMP/list.txt:1)" "$TMP/out"):$(grep -c '^STALE' "$TMP/out"):$(tail -n 1 "$TMP/out")" \
    "1:1:1:mutate: 2 mutations, 1 stale" "a mutation whose text has gone: STALE with its line, exit 1; the other one applies"
done_testing
