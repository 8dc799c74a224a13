#!/bin/bash
# The seeded fault campaign (scripts/fault-campaign) on a simulated 64 x 8 cluster: four
# scenarios whose faults cover every class (a port down, at 50% and at 85%, on another rail's
# leaf and on another leaf of its own rail, a slow spine, two slow ports paired in the schedule)
# and one without a fault, with the default options and with the full validation: every fault
# named exactly (rail.cabling, link.bandwidth, fabric.spine: the campaign's classes), nothing
# extra, in both; a scenario listed (--list: nothing run) or run again alone is the same; the
# campaign says a miss when the tool misses (the default screen without its latency sweep
# cannot tell a port on another leaf); stopped, it ends its simulations; bad usage refused.
. "$RAILYARD_SRCDIR/tests/lib.sh"
CAMP=$RAILYARD_SRCDIR/scripts/fault-campaign
sim_rig t3005 jq python3
# the SMPI build of this build tree, kept between runs (this user's own folder)
export RAILYARD_SIM_BUILD
RAILYARD_SIM_BUILD=$(cd "$(dirname "$RAILYARD")" && pwd)/tests/.sim-build
mkdir -p "$RAILYARD_SIM_BUILD" && chmod 755 "$RAILYARD_SIM_BUILD"

# seed 28: scenario 1 other-rail, other-leaf (two), a slow spine (2, which the neighbours'
# pairs never cross); 2 degrade-50 (two), other-leaf, degrade-85; 3 none; 4 down (two),
# neighbours
# (the full validation with two spread rings, shifts 32 and 16, not all four: the campaign's
# machinery and every class in a third less time; the README's figures take every ring)
"$CAMP" --nodes 64 --rails 8 --scenarios 4 --seed 28 --jobs 1 --json "$TMP/c.json" \
    --full-options "--latency-sweep 4 --retest --spread 2" >"$TMP/out" 2>&1
rc=$?
sed 's/^/# /' "$TMP/out"
is "$rc" 0 "four scenarios, every class, both modes: exit 0"
is "$(tail -1 "$TMP/out")" "campaign: 4 scenarios, exact 4, missed 0, extra 0" "the last line: every scenario exact"
is "$(jq -r '[.scenarios[].faults[].class] | unique | join(",")' "$TMP/c.json")" \
   "degrade-50,degrade-85,down,neighbours,other-leaf,other-rail,slow-spine" "...the seven classes drawn"
is "$(jq -r '[.scenarios[] | .faults | length] | join(",")' "$TMP/c.json")" "4,4,0,4" \
   "...0 to 4 faults a scenario"
is "$(jq '[.scenarios[].runs[] | select(.state == "judged" and .exact and (.extra | length) == 0)] | length' "$TMP/c.json")" 8 \
   "...eight runs judged, each exact with nothing extra"
is "$(jq '[.scenarios[] | (.runs | map({(.mode): .rounds}) | add) | .full > .default + 4] | all' "$TMP/c.json")" true \
   "...the full validation ran more rounds than the default (retests, a sweep of 4, 2 spread rings)"
for m in default full; do
    grep -Eq "^$m: 4 scenarios, exact 4, missed 0, extra 0$" "$TMP/out"
    ok $? "$m: its own line"
done
grep -Eq '^  slow-spine +1 +1 +0 +0$' "$TMP/out"
ok $? "the confusion matrix: the slow spine injected once, named exactly"
grep -Eq '^#1 faults: other-rail n4/rail7, other-leaf n31/rail5, other-leaf n22/rail4, slow-spine spine 2$' "$TMP/out"
ok $? "scenario 1's faults listed"
grep -q '^campaign: seed 28, 64 x 8 ' "$TMP/out"
ok $? "the seed printed"

# the saved figures put together again (--from-json): a campaign run in two parts, scenarios
# 1-2 and 2-4 (scenario 2 in both counts once), gives the whole campaign's matrices and line
jq '.scenarios |= map(select(.scenario <= 2))' "$TMP/c.json" >"$TMP/part1.json"
jq '.scenarios |= map(select(.scenario >= 2))' "$TMP/c.json" >"$TMP/part2.json"
"$CAMP" --from-json "$TMP/part2.json" "$TMP/part1.json" >"$TMP/merged" 2>&1
rc=$?
is "$rc:$(tail -1 "$TMP/merged")" "0:campaign: 4 scenarios, exact 4, missed 0, extra 0" \
   "--from-json of two parts: the whole campaign's last line"
grep -q '^campaign: seed 28, 64 x 8 .*4 scenarios from 2 files: 1-4$' "$TMP/merged"
ok $? "...naming the seed and the scenarios: $(head -1 "$TMP/merged")"
is "$(sed -n '/^default/,/^default:/p' "$TMP/merged")" "$(sed -n '/^default/,/^default:/p' "$TMP/out")" \
   "...and the default mode's confusion matrix, as the campaign printed it"
src=$(jq -r '[.scenarios[].source] | unique | join(",")' "$TMP/c.json")
case $src in "" | *,* | null) false ;; *) true ;; esac
ok $? "...each scenario saved with the tree that ran it, one for the whole campaign: '$src'"
grep -qxF "campaign: source $src: 1-4" "$TMP/merged"
ok $? "...the source printed with its scenarios: $(grep '^campaign: source' "$TMP/merged")"
grep -q 'warning' "$TMP/merged"
is "$?" 1 "...and no warning: one tree ran every part"
jq '.scenarios |= map(if .scenario >= 3 then .source = "0123abc-dirty" else . end)' "$TMP/part2.json" >"$TMP/part2b.json"
"$CAMP" --from-json "$TMP/part1.json" "$TMP/part2b.json" >"$TMP/mixed" 2>&1
is "$?:$(grep -c -e "^campaign: source $src: 1-2\$" -e '^campaign: source 0123abc-dirty: 3-4$' "$TMP/mixed"):$(grep -c '^fault-campaign: warning: the parts were run by 2 trees' "$TMP/mixed")" \
   "0:2:1" "...parts run by two trees: each tree's scenarios, and a warning"
# scenario 2 in both parts, saved apart with other results (run again after a change): the first
# file named counts, and a warning names the scenario and both files
jq '.scenarios |= map(if .scenario == 2 then .runs[0].rounds += 1 | .runs[0].exact = false else . end)' \
    "$TMP/part2.json" >"$TMP/part2c.json"
"$CAMP" --from-json "$TMP/part1.json" "$TMP/part2c.json" >"$TMP/twice" 2>&1
is "$?:$(tail -1 "$TMP/twice")" "0:campaign: 4 scenarios, exact 4, missed 0, extra 0" \
   "...a scenario in two parts with other results: the first file's counted"
grep -qF "warning: scenario 2 differs between $TMP/part1.json and $TMP/part2c.json: $TMP/part1.json's is counted" "$TMP/twice"
ok $? "...and a warning naming it and both files: $(grep 'differs' "$TMP/twice")"
"$CAMP" --from-json "$TMP/part2c.json" "$TMP/part1.json" >"$TMP/twice2" 2>&1
is "$?:$(tail -1 "$TMP/twice2"):$(grep -c "warning: scenario 2 differs between $TMP/part2c.json and" "$TMP/twice2")" \
   "1:campaign: 4 scenarios, exact 3, missed 0, extra 0:1" "...named first, the other part's record counts: not exact, exit 1"
jq '.scenarios |= map(select(.scenario == 1 | not)) | .scenarios[0].runs[1].exact = false' "$TMP/c.json" >"$TMP/bad1.json"
"$CAMP" --from-json "$TMP/bad1.json" >"$TMP/merged1" 2>&1
is "$?:$(tail -1 "$TMP/merged1")" "1:campaign: 3 scenarios, exact 2, missed 0, extra 0" \
   "...a scenario not exact in one mode: not exact, exit 1"
jq '.seed = 29' "$TMP/part1.json" >"$TMP/other.json"
"$CAMP" --from-json "$TMP/part2.json" "$TMP/other.json" >/dev/null 2>"$TMP/err"
is "$?:$(grep -c 'another campaign (seed 29), not seed 28' "$TMP/err")" "2:1" \
   "...parts of two campaigns (another seed) are not put together: $(head -1 "$TMP/err")"
printf '{"seed": 28' >"$TMP/cut.json"
"$CAMP" --from-json "$TMP/cut.json" >/dev/null 2>"$TMP/err"
is "$?:$(grep -c "cut.json: not a saved campaign" "$TMP/err")" "2:1" "...a damaged file named: $(head -1 "$TMP/err")"
"$CAMP" --nodes 64 --rails 8 --scenarios 4 --seed 28 --only 1-2,4 --list >"$TMP/three" 2>&1
is "$?:$(grep -o '^#[0-9]*' "$TMP/three" | tr '\n' ' ')" "0:#1 #2 #4 " "--only 1-2,4: scenarios 1, 2 and 4"

# scenario 1 listed alone: the same faults, and the command line that runs it by hand in each
# mode; nothing is run
"$CAMP" --nodes 64 --rails 8 --scenarios 4 --seed 28 --only 1 --list >"$TMP/one" 2>&1
rc=$?
is "$rc:$(grep '^#' "$TMP/one")" "0:#1 faults: other-rail n4/rail7, other-leaf n31/rail5, other-leaf n22/rail4, slow-spine spine 2" \
   "--only 1 --list: the same scenario again"
grep -q -- "^   default .*sim-cluster --nodes 64 --rails 8 .*--miscable 4:7:[0-9] --other-leaf 31:5:1 --other-leaf 22:4:1 --slow-spine 2:100$" "$TMP/one"
ok $? "...with the command line that runs it by hand"
grep -q -- "^   full .*--slow-spine 2:100 -- --latency-sweep 4 --retest --spread 16$" "$TMP/one"
ok $? "...and the full validation's, with its options"
is "$(grep -c -e 'exact' -e 'rounds' "$TMP/one")" 0 "...and nothing run"

# the campaign tells a miss: scenario 2 with the full validation's options replaced by no
# latency sweep and no spread ring (whose pair is a third peer to compare) cannot tell n13/rail1
# on the other leaf of its rail
"$CAMP" --nodes 64 --rails 8 --scenarios 4 --seed 28 --only 2 --modes full \
    --full-options "--latency-sweep 0 --spread 0" >"$TMP/miss" 2>&1
rc=$?
is "$rc" 1 "without a latency sweep or a spread ring: a miss, exit 1"
grep -Eq '^   full +WRONG 3/4 exact +n13/rail1 missed' "$TMP/miss"
ok $? "...the port on the other leaf said missed: $(grep -m1 WRONG "$TMP/miss")"
grep -Eq '^  other-leaf +1 +0 +0 +1$' "$TMP/miss"
ok $? "...and in the confusion matrix"
is "$(tail -1 "$TMP/miss")" "campaign: 1 scenarios, exact 0, missed 1, extra 0" "...and in the last line"
is "$(grep '^#2 faults' "$TMP/miss")" "$(grep '^#2 faults' "$TMP/out")" "...scenario 2 alone is the campaign's scenario 2"

# stopped by TERM while its simulations run: they end with it, and its scratch folder goes
mkdir -p "$TMP/scratch"
TMPDIR=$TMP/scratch "$CAMP" --nodes 64 --rails 8 --scenarios 4 --seed 28 --jobs 2 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -n "$(find "$TMP/scratch" -name platform.xml 2>/dev/null)" ] && break; sleep 0.1; done
sleep 1
kill -TERM $pid
wait $pid
rc=$?
left=$(pgrep -fc "$TMP/scratch")
is "$rc:$left:$(ls -A "$TMP/scratch" | wc -l)" "143:0:0" "stopped by TERM: exit 143, no simulation of it left, its folder removed"
for bad in "--scenarios 0" "--only 0 --list" "--only 3-1 --list" "--only 2-5 --list" "--modes fast" "--only 5" "--max-faults 9" "--nodes 2" "--bogus"; do
    # shellcheck disable=SC2086
    "$CAMP" --scenarios 4 $bad >/dev/null 2>"$TMP/err"
    is "$?:$(grep -c '^fault-campaign: ' "$TMP/err")" "2:1" "bad usage refused: $bad ($(head -1 "$TMP/err"))"
done
done_testing
