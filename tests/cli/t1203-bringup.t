#!/bin/bash
# railyard-bringup over a new "rack" of 6 nodes on the Slurm cluster of namespaces, launched
# with mpirun (the nodes are drained until the bring-up passes them): with a miscabled port and
# a slow port that still clears the floor, the table names exactly those two nodes (recable,
# outlier); --apply drains them and resumes the rest, but never a node an admin drained; a second
# run once the faults are gone resumes them; bad input exits 2.
. "$RAILYARD_SRCDIR/tests/lib.sh"
. "$RAILYARD_SRCDIR/tests/slurm/demo-slurm.sh"
BRING=$RAILYARD_SRCDIR/scripts/railyard-bringup

# the goodput floor is low (0.09 Gb/s on 200 Mbit/s rails): a port at 120 Mbit/s clears it and
# only the comparison with the other nodes names it
demo_map 0.09 >"$TMP/cluster.map"
cat >"$TMP/railyard" <<WRAP
#!/bin/sh
[ "\$1" = check ] && set -- "\$@" --ibstat "$IBSTAT_OK"
exec "$RAILYARD" "\$@"
WRAP
chmod +x "$TMP/railyard"
export RAILYARD_BIN=$TMP/railyard RAILYARD_FABRIC_BIN=$FABRIC RAILYARD_BRINGUP_CONF=/nonexistent
export RAILYARD_ARCHIVE=$TMP/archive
# mpirun from the head namespace reaches the nodes through the rig's own agent
export OMPI_MCA_plm_rsh_agent=$DEMO OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

demo_up 6
# the new rack is handed to railyard; node4 is also held by an admin for another reason
sl scontrol update nodename='node[1-6]' state=drain reason="railyard: bring-up pending"
sl scontrol update nodename=node4 state=drain reason="BIOS update (admin)"
is "$(drained)" "node1 node2 node3 node4 node5 node6 " "the new rack is drained before its bring-up"

bring() { # bring DIR [options]: a bring-up from the head namespace, its exit status
    local d=$1
    shift
    "$DEMO" exec -- "$BRING" --map "$TMP/cluster.map" --duration 1 --run-dir "$d" "$@" 'node[1-6]' \
        >"$d.out" 2>"$d.err"
}
verdicts() { jq -r '.nodes[] | "\(.node) \(.verdict)"' "$1/bringup.json" | tr '\n' ';'; }

check "demo-cluster fault --miscable 2:1:0 --degrade 5:0:120mbit" "$DEMO" fault --miscable 2:1:0 --degrade 5:0:120mbit
bring "$TMP/b1"
is $? 1 "two faults: exit 1"
is "$(verdicts "$TMP/b1")" "node1 ready;node2 recable;node3 ready;node4 ready;node5 outlier;node6 ready;" \
    "the table names exactly node2 (recable) and node5 (outlier)"
grep -E '^node2 +recable +railyard: fabric rail.cabling rail1 ' "$TMP/b1.out" >/dev/null
ok $? "node2: recable its rail-1 port: $(grep '^node2 ' "$TMP/b1.out")"
grep -E '^node5 +outlier +railyard: fabric link.outlier rail0 ' "$TMP/b1.out" >/dev/null
ok $? "node5: an outlier on rail 0, though above the floor: $(grep '^node5 ' "$TMP/b1.out")"
jq -e '.schema_version == 1 and .rails == 2 and (.nodes | length) == 6 and .applied == false' "$TMP/b1/bringup.json" >/dev/null
ok $? "the JSON table: 6 nodes, 2 rails, not applied"
[ -f "$TMP/b1/bringup.txt" ] && [ -f "$TMP/b1/neighbor/results.json" ] && [ -f "$TMP/b1/ring/results.json" ]
ok $? "kept: the table, the neighbor and the ring runs"
ls "$TMP"/archive/*/*/report.html >/dev/null 2>&1; ok $? "the fabric runs are archived with their HTML page"
is "$(drained)" "node1 node2 node3 node4 node5 node6 " "without --apply nothing changes"

bring "$TMP/b2" --apply
is $? 1 "--apply with the faults: exit 1"
is "$(drained)" "node2 node4 node5 " "--apply: node2 and node5 drained, node4 (admin) kept, the rest resumed"
case $(reason node2) in "railyard: fabric rail.cabling rail1 "*) ok 0 "node2's reason: $(reason node2)" ;;
*) ok 1 "node2's reason (got '$(reason node2)')" ;; esac
case $(reason node5) in "railyard: fabric link.outlier rail0 "*) ok 0 "node5's reason: $(reason node5)" ;;
*) ok 1 "node5's reason (got '$(reason node5)')" ;; esac
is "$(reason node4)" "BIOS update (admin)" "node4 keeps the admin's reason"
grep -q '^node4 .*left drained: not railyard' "$TMP/b2.out"; ok $? "...and the table says why it was left"

check "demo-cluster fault --heal 2:1 --heal 5:0" "$DEMO" fault --heal 2:1 --heal 5:0
bring "$TMP/b3" --apply --json >/dev/null
is $? 0 "the faults removed: every node ready, exit 0"
is "$(drained)" "node4 " "the second run resumes node2 and node5; node4 stays the admin's"
jq -e '[.nodes[] | select(.node == "node2" or .node == "node5") | .action] == ["resumed", "resumed"]' \
    "$TMP/b3/bringup.json" >/dev/null
ok $? "the JSON says node2 and node5 were resumed"

# bad input: exit 2, said, nothing touched
"$BRING" --map "$TMP/nonexistent.map" node1 2>"$TMP/err"; is $? 2 "an unreadable map: exit 2"
grep -q "cannot read the map" "$TMP/err"; ok $? "...said"
"$BRING" --map "$TMP/cluster.map" 'node1;rm' 2>"$TMP/err"; is $? 2 "a bad node name: exit 2"
"$BRING" --bogus 2>"$TMP/err"; is $? 2 "an unknown option: exit 2"
is "$(drained)" "node4 " "...and nothing changed"
done_testing
