#!/bin/sh
# railyard report bringup: a bring-up's verdicts judged from its run directory (what
# railyard-bringup leaves there), with made-up node checks and culprits, no rig: which verdict
# outweighs which, a node check's exit, each kind of culprits line, a fabric run that judged
# nothing, the table in text and JSON, the actions of --apply, the exit status, bad directories.
. "$RAILYARD_SRCDIR/tests/lib.sh"

D=$TMP/run
mkdir -p "$D"
cat >"$D/run.txt" <<'RUN'
map /etc/railyard/my cluster.map
nodes n[1-6]
rails 2
time 20261204T160000Z
started 1000
applied 1
run neighbor 1
run ring 0
RUN
cat >"$D/checks.txt" <<'CHK'
n1 0
n2 1 railyard: nic.port.state mlx5_0:1 Down exp Active
n3 3 cannot read /sys: timed out
n4 0
n5 0
other 1 railyard: a node not in the list
CHK
cat >"$D/neighbor.culprits" <<'CUL'
# railyard-fabric culprits: 3 failed, 1 warnings, 6 nodes x 2 rails
drain n4 rail.cabling railyard: fabric rail.cabling rail1 link up, reaches none of its rail's peers
drain n2 link.bandwidth railyard: fabric link.bandwidth rail0 1.2 Gb/s
outlier n5 link.outlier railyard: fabric link.outlier rail0 0.116 Gb/s at best (40% below)
unpinned n1 n4 link.path/rail0
lost n3
CUL
cat >"$D/ring.culprits" <<'CUL'
# railyard-fabric culprits: 1 failed, 1 warnings, 6 nodes x 2 rails
outlier n4 link.outlier railyard: fabric link.outlier rail1 0.1 Gb/s at best (45% below)
drain n5 link.bandwidth railyard: fabric link.bandwidth rail1 0.05 Gb/s with every partner
lost n1
CUL
printf 'n2\tdrained\nn5\tleft alone: already drained (admin)\nother\tdrained\n' >"$D/actions.tsv"

"$RAILYARD" report bringup --verdicts "$D" >"$TMP/v" 2>"$TMP/e"
is $? 1 "faulty nodes: exit 1"
is "$(cut -f1,2 "$TMP/v" | tr '\t\n' ':;')" \
    "n1:not judged;n2:drain;n3:not judged;n4:recable;n5:drain;n6:not judged;" \
    "--verdicts: one line per node, in the list's order"
v() { awk -F '\t' -v n="$1" '$1 == n {print $3}' "$TMP/v"; }
is "$(v n1)" "a rank stopped answering in the ring run" "n1: ready, then lost in a run: not judged"
is "$(v n2)" "railyard: nic.port.state mlx5_0:1 Down exp Active" \
    "n2: its node check's drain stays before the fabric's (the first of equal weight)"
is "$(v n3)" "node check: cannot read /sys: timed out" \
    "n3: a node check that could not judge (exit 3) stays before a lost rank (equal weight)"
is "$(v n4)" "railyard: fabric rail.cabling rail1 link up, reaches none of its rail's peers" \
    "n4: rail.cabling is recable, and an outlier after it does not replace it"
is "$(v n5)" "railyard: fabric link.bandwidth rail1 0.05 Gb/s with every partner" \
    "n5: an outlier, then a drain in the next run: drain outweighs it"
is "$(v n6)" "node check: no answer (see $D/checks.err)" "n6: no node check line: not judged"
grep -q '^other' "$TMP/v"; is $? 1 "a node not in the list is left out"
is "$(cat "$TMP/e")" "railyard-bringup: neighbor run: a fault between n1 and n4 pinned to neither (link.path/rail0)" \
    "an unpinned fault is said on stderr and blames neither node"

"$RAILYARD" report bringup "$D" >"$TMP/t" 2>/dev/null
is $? 1 "the table: exit 1"
head -1 "$TMP/t" | grep -Eq "^railyard-bringup: 6 nodes x 2 rails, [0-9]+ s, run directory $D$"
ok $? "the table's first line: nodes, rails, time, run directory"
grep -q '^NODE             VERDICT     REASON$' "$TMP/t"; ok $? "... then its header"
grep -q '^n2               drain       railyard: nic.port.state mlx5_0:1 Down exp Active \[drained\]$' "$TMP/t"
ok $? "a row: node, verdict, reason, and what --apply did"
grep -q '^n4               recable     railyard: fabric rail.cabling rail1 ' "$TMP/t"; ok $? "n4's row: recable"
cmp -s "$TMP/t" "$D/bringup.txt"; ok $? "the table is kept in the run directory (bringup.txt)"
if have_feature jansson; then
    "$RAILYARD" report bringup --json "$D" >"$TMP/j" 2>/dev/null
    is $? 1 "--json: exit 1"
    is "$(jq -c '[.schema_version, .tool, .time, .map, .nodes_asked, .rails, .run_dir == "'"$D"'", .applied, (.elapsed_s > 0)]' "$TMP/j")" \
        '[1,"railyard-bringup","20261204T160000Z","/etc/railyard/my cluster.map","n[1-6]",2,true,true,true]' \
        "--json: the run's fields"
    is "$(jq -c '[.nodes[] | [.node, .verdict, .action]]' "$TMP/j")" \
        '[["n1","not judged",""],["n2","drain","drained"],["n3","not judged",""],["n4","recable",""],["n5","drain","left alone: already drained (admin)"],["n6","not judged",""]]' \
        "--json: each node's verdict and action"
    cmp -s "$TMP/j" "$D/bringup.json"; ok $? "the JSON is kept too (bringup.json)"
    "$RAILYARD" report bringup --json --verdicts "$D" >/dev/null 2>&1; is $? 2 "--json with --verdicts: refused"
else
    for i in 1 2 3 4 5; do skip "built without jansson: no JSON"; done
fi

# every node ready after a run that judged: exit 0; the same with the runs judging nothing
mk() { # DIR NODES RUNS...: a run directory whose node checks all pass
    rm -rf "$1"; mkdir -p "$1"
    d=$1 nodes=$2; shift 2
    printf 'map m\nnodes %s\nrails 1\ntime t\nstarted 1\napplied 0\n' "$nodes" >"$d/run.txt"
    for r in "$@"; do echo "run $r" >>"$d/run.txt"; done
    for n in $("$RAILYARD" hostlist "$nodes"); do echo "$n 0"; done >"$d/checks.txt"
}
mk "$TMP/ok" 'a,b' 'neighbor 0'
echo '# railyard-fabric culprits: 0 failed, 0 warnings, 2 nodes x 1 rails' >"$TMP/ok/neighbor.culprits"
"$RAILYARD" report bringup --verdicts "$TMP/ok" >"$TMP/v"; is "$? $(cut -f2 "$TMP/v" | tr '\n' ,)" "0 ready,ready," \
    "every node ready, a run that judged: exit 0"
printf ' a 0\n\tb\t0\n' >"$TMP/ok/checks.txt"
echo "nodes a,b" >>"$TMP/ok/run.txt"
sed -i '0,/^nodes /s/^nodes .*/nodes z/' "$TMP/ok/run.txt"
"$RAILYARD" report bringup --verdicts "$TMP/ok" >"$TMP/v"; is "$? $(cut -f1,2 "$TMP/v" | tr '\t\n' ':,')" "0 a:ready,b:ready," \
    "node check lines with leading blanks and tabs read; of two nodes lines the last counts"
mk "$TMP/ok1" 'a,b' 'neighbor 1'
echo '# railyard-fabric culprits: 0 failed, 0 warnings, 2 nodes x 1 rails' >"$TMP/ok1/neighbor.culprits"
"$RAILYARD" report bringup --verdicts "$TMP/ok1" >"$TMP/v"; is "$? $(cut -f2 "$TMP/v" | tr '\n' ,)" "0 ready,ready," \
    "a run that exits 1 with its culprits judged too"
mk "$TMP/nf" 'a,b' 'neighbor 2' 'ring 137'
printf '\n  \nrailyard-fabric: MPI_Init did not complete\nmore\n' >"$TMP/nf/neighbor.err"
echo '# railyard-fabric culprits: 0 failed' >"$TMP/nf/ring.culprits"
"$RAILYARD" report bringup --verdicts "$TMP/nf" >"$TMP/v" 2>"$TMP/e"
is "$? $(cut -f2,3 "$TMP/v" | tr '\t\n' ':;')" \
    "2 not judged:the rails could not be tested (see $TMP/nf);not judged:the rails could not be tested (see $TMP/nf);" \
    "no run judged (exit 2, exit 137 with its culprits): every ready node not judged, exit 2"
is "$(cat "$TMP/e")" "railyard-bringup: neighbor run: not judged (exit 2): railyard-fabric: MPI_Init did not complete" \
    "... the run without culprits said, with the first line of its errors"
mk "$TMP/empty" 'a,b' 'neighbor 0'
: >"$TMP/empty/neighbor.culprits"
"$RAILYARD" report bringup --verdicts "$TMP/empty" >"$TMP/v" 2>/dev/null
is "$? $(cut -f2 "$TMP/v" | tr '\n' ,)" "2 not judged,not judged," "an empty culprits file judged nothing"
mk "$TMP/one" 'solo'
"$RAILYARD" report bringup --verdicts "$TMP/one" >"$TMP/v"; is "$? $(cut -f2 "$TMP/v")" "0 ready" \
    "one node: no rails between nodes to test, its node check is its verdict"
mk "$TMP/mix" 'a,b' 'neighbor 0'
printf '# c\noutlier a link.outlier slow\nlost a\nlost b\n' >"$TMP/mix/neighbor.culprits"
echo "a 1 railyard: gpu.count 7 exp 8" >"$TMP/mix/checks.txt"
echo "b 2" >>"$TMP/mix/checks.txt"
"$RAILYARD" report bringup --verdicts "$TMP/mix" >"$TMP/v"
is "$? $(cut -f2,3 "$TMP/v" | tr '\t\n' ':;')" "1 drain:railyard: gpu.count 7 exp 8;not judged:node check: exit 2;" \
    "a node check's drain outweighs a later outlier; exit 2 without a reason says its exit"
printf '# c\noutlier a link.outlier slow\nlost a\n' >"$TMP/mix/neighbor.culprits"
printf 'a 0\nb 0\n' >"$TMP/mix/checks.txt"
"$RAILYARD" report bringup --verdicts "$TMP/mix" >"$TMP/v"
is "$? $(cut -f2,3 "$TMP/v" | tr '\t\n' ':;')" "1 outlier:slow;ready:;" "an outlier stays an outlier after a lost rank"
printf '# c\ndrain a rail.cabling cable a\ndrain b link.bandwidth slow b\n' >"$TMP/mix/neighbor.culprits"
printf '# c\ndrain a link.bandwidth slow a\ndrain b rail.cabling cable b\n' >"$TMP/mix/ring.culprits"
echo "run ring 0" >>"$TMP/mix/run.txt"
"$RAILYARD" report bringup --verdicts "$TMP/mix" >"$TMP/v"
is "$? $(cut -f2,3 "$TMP/v" | tr '\t\n' ':;')" "1 recable:cable a;drain:slow b;" \
    "recable and drain weigh the same: whichever came first stays, both ways"

# directories that are not a bring-up's
"$RAILYARD" report bringup "$TMP/none" >"$TMP/out" 2>"$TMP/e"; is "$? $(wc -c <"$TMP/out")" "2 0" "no such directory: exit 2"
grep -q "run.txt: cannot read it" "$TMP/e"; ok $? "... said: $(cat "$TMP/e")"
mkdir -p "$TMP/bad"; echo "map x" >"$TMP/bad/run.txt"
"$RAILYARD" report bringup "$TMP/bad" 2>"$TMP/e"; is $? 2 "a run.txt without nodes: exit 2"
grep -q "no 'nodes' line" "$TMP/e"; ok $? "... said"
echo "nodes n[1-" >"$TMP/bad/run.txt"
"$RAILYARD" report bringup "$TMP/bad" 2>"$TMP/e"; is $? 2 "a malformed host list: exit 2"
grep -q "bad/run.txt: .*unbalanced" "$TMP/e"; ok $? "... naming the file: $(cat "$TMP/e")"
"$RAILYARD" report bringup 2>/dev/null; is $? 2 "no directory: exit 2"
done_testing
