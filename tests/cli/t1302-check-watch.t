#!/bin/bash
# railyard check --watch-state: what railyard watch saw, judged by the node check. A port that
# flapped or went down within the watch's window fails the node (and names the port in the
# reason); one older than the window does not; a watch that ended, a state too old, a file
# missing or damaged are "not judged", never a failure; the default state file of the live
# node is read, a capture's check reads none. End to end: a real watch on a sysfs tree whose
# port flaps, then the check and the health check while it runs and after it ended.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt
have_feature jansson || skip_all "built without jansson: the watch keeps no state"
command -v jq >/dev/null || skip_all "jq is not installed"
IB=$SHARED_FIXTURES/ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt

"$RAILYARD" map capture --ibstat "$IB" --node-type roce --nodes 'roce[01-16]' -o "$TMP/roce.map" 2>"$TMP/err"
is $? 0 "a map captured from a healthy node"
# check STATE [ARGS]: the capture against its map with the watch's state STATE
check() {
    local st=$1
    shift
    "$RAILYARD" check --map "$TMP/roce.map" --node roce03 --ibstat "$IB" --watch-state "$st" "$@" \
        >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
# state FILE WATCHING UPDATED_AGO EVENTS: a state file as railyard watch writes it
state() {
    local now
    now=$(date +%s.%N)
    jq -n --argjson now "$now" --argjson w "$2" --argjson ago "$3" --argjson ev "$4" '{
        schema_version: 1, tool: "railyard watch", host: "roce03", pid: 1,
        updated_s: ($now - $ago), interval_s: 1, window_s: 300, watching: $w,
        ports: [{subject: "mlx5_0/1", sampled: true}, {subject: "mlx5_1/1", sampled: true}],
        events: [$ev[] | .first_s = $now - .first_ago | .last_s = $now - .last_ago
                       | del(.first_ago, .last_ago)]}' >"$1"
}
FLAP='{"event":"port.flapping","phase":"open","subject":"mlx5_1/1","first_ago":30,"last_ago":2,"value":3,"limit":2,"figures":"3 flaps in 28 s (limit 2 in 300 s)"}'
OLDDOWN='{"event":"port.down","phase":"close","subject":"mlx5_0/1","first_ago":400,"last_ago":301,"value":99,"limit":7,"figures":"down 99 s, up again"}'
DOWN='{"event":"port.down","phase":"close","subject":"mlx5_0/1","first_ago":400,"last_ago":299,"value":101,"limit":7,"figures":"down 101 s, up again"}'
BURST='{"event":"port.errors.burst","phase":"open","subject":"mlx5_0/1","counter":"symbol_error","first_ago":5,"last_ago":1,"value":40,"limit":10,"figures":"40/s (limit 10/s)"}'

# --- a flap within the window: the node fails, the reason names the port
state "$TMP/s.json" true 0 "[$FLAP]"
check "$TMP/s.json" --reason
is $rc 1 "a port flapping now: exit 1"
case $(cat "$TMP/out") in "railyard: watch.port.flapping mlx5_1:1 3 flaps in 28 s"*) ok 0 "the reason names it: $(cat "$TMP/out")" ;;
*) ok 1 "the reason names it (got '$(cat "$TMP/out")')" ;; esac
[ "$(wc -c <"$TMP/out")" -le 81 ]; ok $? "...in at most 80 characters"
check "$TMP/s.json" --json
is "$(jq -r '[.findings[] | select(.check | startswith("watch.")) | "\(.severity) \(.check) \(.subject)"] | join(";")' "$TMP/out")" \
    "fail watch.port.flapping roce03/mlx5_1:1;ok watch.port.down roce03" "the JSON: the flap failed, no down"
is "$(jq -r .verdict "$TMP/out")" fail "...verdict fail"

# --- the window's edges: a port down that ended 301 s ago is history, 299 s ago it fails
state "$TMP/s.json" true 0 "[$OLDDOWN]"
check "$TMP/s.json" --reason
is "$rc $(cat "$TMP/out")" "0 railyard: ok (51 checks passed, 0 warnings)" "a down that ended 301 s ago (window 300 s): healthy"
state "$TMP/s.json" true 0 "[$DOWN]"
check "$TMP/s.json" --reason
is $rc 1 "a down that ended 299 s ago: exit 1"
case $(cat "$TMP/out") in "railyard: watch.port.down mlx5_0:1 down 101 s, up again"*) ok 0 "...named: $(cat "$TMP/out")" ;;
*) ok 1 "...named (got '$(cat "$TMP/out")')" ;; esac
# two events on two ports: both failures, the reason the first and "+1"
state "$TMP/s.json" true 0 "[$DOWN, $FLAP]"
check "$TMP/s.json" --reason
case "$rc $(cat "$TMP/out")" in "1 railyard: watch.port.down mlx5_0:1 "*" +1") ok 0 "two ports: $(cat "$TMP/out")" ;;
*) ok 1 "two ports: both failures, the first named, +1 (got '$rc $(cat "$TMP/out")')" ;; esac
# a burst of errors warns, never drains
state "$TMP/s.json" true 0 "[$BURST]"
check "$TMP/s.json" --reason
is "$rc $(cat "$TMP/out")" "0 railyard: ok (51 checks passed, 1 warnings)" "an error burst: a warning, exit 0"
check "$TMP/s.json" --json
is "$(jq -r '[.findings[] | select(.severity == "warn") | "\(.check) \(.subject) \(.observed)"] | join(";")' "$TMP/out")" \
    "watch.port.errors.burst roce03/mlx5_0:1 40/s (limit 10/s) (symbol_error), still on at $(jq -r '.events[0].last_s | floor | todate' "$TMP/s.json")" \
    "...watch.port.errors.burst, with its counter and time"

# --- a watch that is not running: not judged, never a failure, never a pass of the watch
state "$TMP/s.json" false 0 "[$FLAP]"
check "$TMP/s.json"
is $rc 0 "the watch ended (watching false), a flap in its state: exit 0"
grep -q "^not judged: watch: not running ($TMP/s.json: it ended at " "$TMP/out"
ok $? "...said not judged: $(grep 'watch:' "$TMP/out")"
grep -q "watch.port" "$TMP/out"; is $? 1 "...and no watch finding"
# stale: 3 intervals and 5 s (8 s at 1 s a sample)
state "$TMP/s.json" true 6 "[$FLAP]"
check "$TMP/s.json" --reason
is $rc 1 "a state 6 s old (limit 8 s): judged"
state "$TMP/s.json" true 10 "[$FLAP]"
check "$TMP/s.json"
is $rc 0 "a state 10 s old: exit 0"
grep -q "^not judged: watch: not running ($TMP/s.json: last updated 10 s ago" "$TMP/out"
ok $? "...not judged: $(grep 'watch:' "$TMP/out")"

# --- files that are not a state: not judged, the file and what is wrong named
check "$TMP/nosuch.json"
is $rc 0 "no state file: exit 0"
grep -q "^not judged: watch: $TMP/nosuch.json: .*No such file" "$TMP/out"
ok $? "...not judged, the file named: $(grep 'watch:' "$TMP/out")"
printf '{"schema_version": 1,\n "updated_s": \n' >"$TMP/bad.json"
check "$TMP/bad.json"
is $rc 0 "a damaged state file: exit 0"
grep -q "^not judged: watch: $TMP/bad.json:3: not JSON" "$TMP/out"
ok $? "...its line named: $(grep 'watch:' "$TMP/out")"
state "$TMP/s.json" true 0 "[$FLAP]"
check none --reason
is "$rc $(cat "$TMP/out")" "0 railyard: ok (49 checks passed, 0 warnings)" "--watch-state none: not read"

# --- the default: the archive's watch/state.json, on the live node only
mkdir -p "$TMP/arch/watch"
state "$TMP/arch/watch/state.json" true 0 "[$FLAP]"
RAILYARD_ARCHIVE=$TMP/arch "$RAILYARD" check --map "$TMP/roce.map" --node roce03 --ibstat "$IB" \
    --no-archive --reason >"$TMP/out" 2>&1
is "$? $(cat "$TMP/out")" "0 railyard: ok (49 checks passed, 0 warnings)" "a capture's check reads no default state"
RAILYARD_ARCHIVE=$TMP/arch "$RAILYARD" check --no-archive --reason >"$TMP/out" 2>&1
rc=$?
case "$rc $(cat "$TMP/out")" in "1 railyard: watch.port.flapping "*) ok 0 "the live node's check reads it: $(cat "$TMP/out")" ;;
*) ok 1 "the live node's check reads the archive's state (got '$rc $(cat "$TMP/out")')" ;; esac

# --- end to end: a real watch on a sysfs tree, its port flapping; the check and the health check
R=$TMP/sys
up() { fake_ib_port "$R" "$1" "4: ACTIVE" "5: LinkUp"; }
down() { fake_ib_port "$R" "$1" "1: DOWN" "2: Polling"; }
up mlx5_0; up mlx5_1
rm -rf "$TMP/arch"
"$RAILYARD" watch --sysfs-root "$R" --interval 0.3 --grace 0 --log none \
    --state "$TMP/live.json" >"$TMP/wout" 2>"$TMP/werr" &
W=$!
for _ in $(seq 1 50); do [ -s "$TMP/live.json" ] && break; sleep 0.1; done
check "$TMP/live.json" --reason
is "$rc $(cat "$TMP/out")" "0 railyard: ok (51 checks passed, 0 warnings)" "a watch running, its ports quiet: healthy"
down mlx5_1; sleep 0.7; up mlx5_1; sleep 0.7; down mlx5_1; sleep 0.7; up mlx5_1
for _ in $(seq 1 50); do jq -e '.events | length > 0' "$TMP/live.json" >/dev/null 2>&1 && break; sleep 0.1; done
check "$TMP/live.json" --reason
case "$rc $(cat "$TMP/out")" in "1 railyard: watch.port.flapping mlx5_1:1 2 flaps in"*) ok 0 "mlx5_1 flapped twice: the check fails, $(cat "$TMP/out")" ;;
*) ok 1 "mlx5_1 flapped twice: the check fails (got '$rc $(cat "$TMP/out")')" ;; esac
HC() {
    RAILYARD_BIN="$TMP/ry" RAILYARD_MAP="$TMP/roce.map" RAILYARD_HC_CONF=/nonexistent \
        RAILYARD_HC_LOG="$TMP/hc.log" RAILYARD_HC_RESUME=0 SLURMD_NODENAME=roce03 PATH="$TMP/bin:$PATH" \
        RAILYARD_HC_ARGS="--ibstat $IB --watch-state $TMP/live.json --no-archive" \
        "$RAILYARD_SRCDIR/scripts/railyard-healthcheck" 2>/dev/null
}
# the health check drains through scontrol: a stand-in that records what it was asked
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "$*" >>%s/scontrol.log\n' "$TMP" >"$TMP/bin/scontrol"
chmod +x "$TMP/bin/scontrol"
ln -sf "$RAILYARD" "$TMP/ry"
HC
grep -q 'state=drain reason=railyard: watch.port.flapping mlx5_1:1' "$TMP/scontrol.log"
ok $? "railyard-healthcheck drains with the event as the reason: $(tail -1 "$TMP/scontrol.log" 2>/dev/null)"
kill -TERM $W
wait $W
is "$?" 0 "the watch ends (SIGTERM)"
: >"$TMP/scontrol.log"
check "$TMP/live.json"
is $rc 0 "after the watch ended: exit 0, though its state lists the flap"
grep -q "^not judged: watch: not running" "$TMP/out"; ok $? "...not judged, said"
HC
grep -q 'drain' "$TMP/scontrol.log"; is $? 1 "...and the health check drains nothing"
grep -q "roce03: healthy" "$TMP/hc.log"; ok $? "...it says healthy: $(tail -1 "$TMP/hc.log")"
done_testing
