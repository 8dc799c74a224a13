#!/bin/bash
# scripts/soak on a build of three made-up tests (a Makefile with print-tests and check, as
# railyard's): runs counted, a failed run kept with its log, the slowest and median run, a run
# whose make failed around a passing test not counted, a run that skipped counted apart (not a
# pass: exit 3 with its reason), the row of a test it was stopped in, the
# loops it started ended, and bad usage refused. scripts/slowest-tests on logs of three builds:
# ordered by wall time, or by CPU time with --cpu, a rig's wait said, a log without figures left
# out.
. "$RAILYARD_SRCDIR/tests/lib.sh"
S=$RAILYARD_SRCDIR/scripts/soak
B=$TMP/build
mkdir -p "$B/tests/cli"
cat >"$B/Makefile" <<'MK'
print-tests:
	@echo "QUICK_TESTS = tests/cli/t9001-good.t tests/cli/t9002-flaky.t tests/cli/t9003-slow.t"
	@echo "RIG_TESTS = tests/cli/t9004-makefails.t tests/cli/t9005-skips.t"
check:
	@sh ./run-one $(TESTS)
MK
# each run of a test counts itself; the log is what the harness writes (TAP and the wall time)
cat >"$B/run-one" <<'SH'
t=$1 n=$(cat "$t.count" 2>/dev/null || echo 0)
n=$((n + 1)); echo $n >"$t.count"
log=${t%.t}.log
case $t in
*good*) printf 'ok 1 - good\n# wall: %d.5 s\n' $n >"$log" ;;
*flaky*) if [ $n -eq 2 ]; then printf 'not ok 1 - second run\n# wall: 9.0 s\n' >"$log"; exit 1; fi
    printf 'ok 1 - flaky\n# wall: 1.0 s\n' >"$log" ;;
*slow*) if [ $n -eq 2 ]; then sleep 60 & echo $! >slow.pid; touch slow.started; wait; fi
    printf 'ok 1 - slow\n# wall: 2.0 s\n' >"$log" ;;
*makefails*) printf 'ok 1 - passes\n# wall: 3.0 s\n' >"$log"; [ $n -eq 1 ] && exit 1 ;;
*skips*) if [ $n -eq 2 ]; then printf 'ok 1 - ran\n# wall: 4.0 s\n' >"$log"
    else printf '1..0 # SKIP no rig on this host\n# wall: 0.1 s\n' >"$log"; fi ;;
esac
exit 0
SH

"$S" -n 3 --idle -C "$B" t9001 >"$TMP/good" 2>&1
rc=$?
is "$rc" 0 "three passing runs: exit 0"
row=$(grep '^t9001-good' "$TMP/good" | tr -s ' ')
is "$row" "t9001-good 3 0 0 3.5 2.5" "runs, failures, skipped, the slowest and the median run"
is "$(tail -1 "$TMP/good")" "soak: 3 runs, 0 failed, load none" "the last line"

"$S" -n 3 --idle -C "$B" --keep "$TMP/kept" t9002-flaky >"$TMP/flaky" 2>"$TMP/flaky.err"
rc=$?
is "$rc" 1 "a failed run: exit 1"
is "$(grep '^t9002' "$TMP/flaky" | tr -s ' ')" "t9002-flaky 3 1 0 9.0 1.0" "the failed run counted"
grep -q "t9002-flaky run 2 failed: not ok 1 - second run" "$TMP/flaky.err" && grep -q 'not ok 1 - second run' "$TMP/kept/t9002-flaky.run2.log"
ok $? "the failed run named and its log kept ($(head -c 120 "$TMP/flaky.err"))"
is "$(tail -1 "$TMP/flaky")" "soak: 3 runs, 1 failed, load none" "the failure in the last line"

"$S" -n 2 --idle -C "$B" t9004 >"$TMP/mk" 2>"$TMP/mk.err"
rc=$?
is "$rc:$(grep '^t9004' "$TMP/mk" | tr -s ' ')" "0:t9004-makefails 1 0 0 3.0 3.0" "a run whose test passed and make failed is not counted"
grep -q "run 1: the test passed, make check around it failed" "$TMP/mk.err"
ok $? "and it says so"
# a run that skipped whole: not a pass, its reason said, exit 3 (none failed); the run that ran
"$S" -n 3 --idle -C "$B" RIG_TESTS >"$TMP/sk" 2>"$TMP/sk.err"
rc=$?
is "$rc:$(grep '^t9005' "$TMP/sk" | tr -s ' ')" "3:t9005-skips 1 0 2 4.0 4.0" "skipped runs counted apart, exit 3"
is "$(tail -1 "$TMP/sk")" "soak: 4 runs, 0 failed, 2 skipped, load none" "...and in the last line"
is "$(grep -c 't9005-skips run [13] skipped: no rig on this host' "$TMP/sk.err")" 2 "...each with its reason"

# stopped in the second run of a test: the first run's row, marked, and the total
loops_before=$(pgrep -fc 'while :; do :; done')
"$S" -n 3 -C "$B" t9003 >"$TMP/slow" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -f "$B/slow.started" ] && break; sleep 0.1; done
loops_during=$(pgrep -fc 'while :; do :; done')
kill -TERM $pid
wait $pid
rc=$?
is "$rc" 130 "stopped by TERM: exit 130"
is "$(grep '^t9003' "$TMP/slow" | tr -s ' ')" "t9003-slow 1 0 0 2.0 2.0 (stopped in run 2)" "the row of the runs it finished"
is "$(tail -1 "$TMP/slow")" "soak: 1 runs, 0 failed, stopped" "the total, stopped"
gone=1
for _ in $(seq 1 50); do kill -0 "$(cat "$B/slow.pid")" 2>/dev/null || { gone=0; break; }; sleep 0.1; done
ok $gone "the run under way ended with it"
is "$((loops_during - loops_before))" "$(nproc)" "a loop per core ran beside the test"
for _ in $(seq 1 50); do [ "$(pgrep -fc 'while :; do :; done')" -le "$loops_before" ] && break; sleep 0.1; done
is "$(pgrep -fc 'while :; do :; done')" "$loops_before" "its loops ended with it"

# a test the soak stops (TERM to its session) lets what it runs clean up before its own EXIT
# trap removes its folder (tests/lib.sh): here a child that takes a second to take its rig down
cat >"$TMP/sig.t" <<'SH'
. "$RAILYARD_SRCDIR/tests/lib.sh"
trap 'echo "cleaned after: $(cat "$OUTER/child" 2>/dev/null)" >"$OUTER/cleaned"' EXIT
bash -c 'trap "sleep 1; echo rig down >\"\$OUTER/child\"; exit 143" TERM; touch "$OUTER/sig.started"; sleep 30 & wait'
SH
OUTER=$TMP setsid bash "$TMP/sig.t" &
pid=$!
for _ in $(seq 1 100); do [ -f "$TMP/sig.started" ] && break; sleep 0.1; done
kill -TERM -- -"$pid"
wait $pid
is "$?:$(cat "$TMP/cleaned" 2>/dev/null)" "143:cleaned after: rig down" \
   "a test stopped by TERM: its EXIT trap ran after its child's cleanup, exit 143"
# ...but not for a daemon of a session of its own, which the signal did not reach: the test
# ends after RAILYARD_TEST_STOP_WAIT seconds all the same
cat >"$TMP/sig2.t" <<'SH'
. "$RAILYARD_SRCDIR/tests/lib.sh"
setsid sleep 60 &
echo $! >"$OUTER/daemon"
touch "$OUTER/sig2.started"
sleep 30
SH
OUTER=$TMP RAILYARD_TEST_STOP_WAIT=2 setsid bash "$TMP/sig2.t" &
pid=$!
for _ in $(seq 1 100); do [ -f "$TMP/sig2.started" ] && break; sleep 0.1; done
t0=$(date +%s)
kill -TERM -- -"$pid"
wait $pid
rc=$? t1=$(date +%s)
kill "$(cat "$TMP/daemon")" 2>/dev/null
is "$rc:$((t1 - t0 <= 5))" "143:1" "...nor for a daemon of its own session: ended in $((t1 - t0)) s (the wait is 2 s)"

"$S" -n 0 -C "$B" t9001 >/dev/null 2>"$TMP/usage"
is "$?:$(cat "$TMP/usage")" "2:soak: -n wants a count of runs, not '0'" "-n 0 refused"
"$S" -C "$B" t900 >/dev/null 2>"$TMP/usage"
is "$?:$(cat "$TMP/usage")" "2:soak: 't900' names 0 tests of this build, not one" "a name of no test refused"
"$S" -C "$TMP" t9001 >/dev/null 2>"$TMP/usage"
is "$?:$(cat "$TMP/usage")" "2:soak: $TMP is not a configured build (no Makefile)" "a folder that is not a build refused"

# slowest-tests: three logs under a CI tree (the build named from the path), one without figures
SL=$RAILYARD_SRCDIR/scripts/slowest-tests
mkdir -p "$TMP/_ci/full/tests/cli" "$TMP/_ci/sanitizers/tests/unit"
printf 'ok 1\n# rig host-rigs: waited 7 s\n# wall: 30.5 s\n# cpu: 2.0 s\n' >"$TMP/_ci/full/tests/cli/t9101-wait.log"
printf 'ok 1\n# wall: 12.0 s\n# cpu: 45.5 s\n' >"$TMP/_ci/sanitizers/tests/unit/test_busy.log"
printf 'ok 1\n# wall: 20.0 s\n# cpu: 19.0 s\n' >"$TMP/_ci/full/tests/cli/t9102-mid.log"
printf 'ok 1\n' >"$TMP/_ci/full/tests/cli/t9103-none.log"
"$SL" -n 2 "$TMP/_ci" | tr -s ' ' >"$TMP/slow"
is "$(cat "$TMP/slow")" " 30.5 s cpu 2.0 s t9101-wait (full) waited 7 s for host-rigs
 20.0 s cpu 19.0 s t9102-mid (full)" "slowest-tests: by wall time, the rig's wait said, the build named"
"$SL" --cpu -n 5 "$TMP/_ci" | tr -s ' ' | cut -d' ' -f5-8 >"$TMP/slow"
is "$(cat "$TMP/slow")" "45.5 s test_busy (sanitizers)
19.0 s t9102-mid (full)
2.0 s t9101-wait (full)" "slowest-tests --cpu: by CPU time; a log without figures left out"
"$SL" >/dev/null 2>"$TMP/usage"
is "$?:$(cat "$TMP/usage")" "2:usage: slowest-tests [-n N] [--cpu] DIR..." "slowest-tests without a folder: usage, exit 2"
done_testing
