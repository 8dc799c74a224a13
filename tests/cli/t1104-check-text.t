#!/bin/sh
# railyard check in text mode, in every build (also without libyaml and jansson).
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared ibstat/gpud_ibstat_h100_roce_12hca_some_down_1.txt
I=$SHARED_FIXTURES/ibstat

"$RAILYARD" check --node n7 --ibstat "$I/gpud_ibstat_h100_roce_12hca_some_down_1.txt" >"$TMP/out" 2>&1
is $? 1 "two ports down: exit 1"
is "$(grep -c '^FAIL' "$TMP/out")" 4 "four failures (state and physical state of two ports)"
head -3 "$TMP/out" | grep -q '^FAIL  nic.port.phys_state  n7/mlx5_5:1'; ok $? "failures come first"
grep -q '      hint: Disabled: the port is administratively down' "$TMP/out"; ok $? "with their hint"
grep -q -- '-> fail$' "$TMP/out"; ok $? "verdict fail"
"$RAILYARD" check --node n7 --ibstat "$I/gpud_ibstat_h100_roce_12hca_all_active.txt" >"$TMP/out" 2>&1
is $? 0 "healthy capture: exit 0"
grep -q -- '0 failed, 0 warnings, [0-9]* passed -> pass' "$TMP/out"; ok $? "verdict pass"
"$RAILYARD" check --reason --node n7 --ibstat "$I/gpud_ibstat_h100_roce_12hca_some_down_1.txt" >"$TMP/out"
is $? 1 "--reason keeps the exit status"
is "$(cat "$TMP/out")" "railyard: nic.port.phys_state mlx5_5:1 Disabled exp LinkUp +3" "--reason line"
"$RAILYARD" check -v --node n7 --ibstat "$I/gpud_ibstat_h100_roce_12hca_all_active.txt" >"$TMP/out"
grep -q '^ok    nic.port.state' "$TMP/out"; ok $? "-v lists the passed checks"
if have_feature yaml; then
    skip "built with libyaml"
else
    "$RAILYARD" check --map "$RAILYARD_SRCDIR/tests/fixtures/maps/h100-ib-12hca.map" 2>"$TMP/err"
    is $? 2 "without libyaml a map cannot be judged: exit 2"
    grep -q "built without libyaml" "$TMP/err"; ok $? "...and the message says why"
fi
done_testing
