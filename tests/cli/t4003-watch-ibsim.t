#!/bin/bash
# railyard watch on a simulated HCA (ibsim + OpenSM, scripts/ibsim-fabric). libumad2sim gives the
# watch a sysfs view whose state never changes and that has no counters, so the port is read
# through MADs: its PortInfo (state) and its PMA's PortCounters. The port taken down and up
# twice through ibsim's console gives port.flapping, a SymbolErrorCounter ramp a burst with its
# rate, the port down past the limit port.down; ibsim stopped (SIGSTOP) makes the MAD reads miss
# their deadline: the port is named not sampled, and sampled again once ibsim runs; the node
# check judges the state; the console's events view shows the events live, in tmux.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature ibnetdisc || skip_all "built without libibnetdisc/libibmad: no MAD path"
have_feature jansson || skip_all "built without a JSON library: the watch keeps no log"
ibsim_rig jq
TM=(tmux -L "railyard-test-$$")
W=
# shellcheck disable=SC2317
cleanup() {
    [ -n "$W" ] && kill -TERM "$W" 2>/dev/null
    [ -f "$IBSIM_FABRIC_DIR/ibsim.pid" ] && kill -CONT "$(cat "$IBSIM_FABRIC_DIR/ibsim.pid")" 2>/dev/null
    "${TM[@]}" kill-server >/dev/null 2>&1
    "$SIM" stop >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT
cd "$TMP" || exit 1 # libumad2sim writes its sysfs view into the current directory

con() { "$SIM" cmd "$1" >/dev/null; }
now() { date +%s.%N; }
wait_log() { # wait_log PATTERN SECONDS: the log has a line matching PATTERN
    local _
    for _ in $(seq 1 $(($2 * 10))); do
        grep -q "$1" ev.jsonl 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
late() { # late PATTERN T: seconds from T to the last_s of the first log line matching PATTERN
    grep -m1 "$1" ev.jsonl | jq -r --arg t "$2" '.last_s - ($t | tonumber) | . * 100 | round / 100'
}

"$SIM" gen --hosts 2 --rails 2 >f.net
"$SIM" start f.net --sim-host "gpu01 mlx5_0" >start.log 2>&1
ok $? "ibsim + OpenSM up (SUBNET UP) $(tail -1 start.log)"
# the watch: every 0.5 s, no grace, down after 2 s; a read's deadline 0.45 s
"$SIM" run "$RAILYARD" watch --interval 0.5 --deadline 0.45 --grace 0 --down-after 2 --nvlink none \
    --log ev.jsonl --state st.json --textfile w.prom >w.out 2>w.err &
W=$!
for _ in $(seq 1 100); do [ -s st.json ] && [ -s w.prom ] && break; sleep 0.1; done
is "$(jq -r '[.ports[] | "\(.subject)=\(.sampled)"] | join(" ")' st.json 2>/dev/null)" "ibsim0/1=true" \
    "the simulated HCA's port is found and sampled"
grep -q '^railyard_watch_port_counter{.*port="ibsim0/1",counter="SymbolErrorCounter"} 0$' w.prom &&
    grep -q '^railyard_watch_port_up{.*port="ibsim0/1"} 1$' w.prom
ok $? "...its counters from its PMA (its sysfs view has none), its state up from its PortInfo"

# down and up twice, 1 s apart: port.flapping within two intervals (1 s) of the second
for _ in 1 2; do
    con 'Unlink "gpu01/mlx5_0"[1]'; sleep 1
    con 'ReLink "gpu01/mlx5_0"[1]'; t2=$(now); sleep 1
done
wait_log '"port.flapping","phase":"open","subject":"ibsim0/1"' 5
ok $? "the port unlinked and relinked twice in ibsim's console: port.flapping"
d=$(late '"port.flapping","phase":"open"' "$t2")
awk -v d="$d" 'BEGIN {exit !(d <= 1.0)}'
ok $? "...seen within two intervals (1 s) of the second relink: $d s"

# a SymbolErrorCounter ramp: 20 every 0.5 s, 40 a second against the limit of 1
"$SIM" ramp "gpu01/mlx5_0:SymbolErrorCounter" --step 20 --every 0.5 --count 4
wait_log '"port.errors.burst","phase":"open","subject":"ibsim0/1"' 5
line=$(grep -m1 '"port.errors.burst","phase":"open"' ev.jsonl)
is "$(echo "$line" | jq -r '"\(.counter) \(.limit) \(.value > 10)"')" "SymbolErrorCounter 1 true" \
    "a ramped SymbolErrorCounter: port.errors.burst with its rate ($(echo "$line" | jq -r .figures))"

# down past 2 s: port.down, closed when relinked
con 'Unlink "gpu01/mlx5_0"[1]'; t3=$(now)
wait_log '"port.down","phase":"open","subject":"ibsim0/1"' 6
ok $? "the port unlinked past 2 s: port.down"
d=$(late '"port.down","phase":"open"' "$t3")
# (a sample's time is when its read began: the one that saw the port down may have begun just
# before the unlink returned)
awk -v d="$d" 'BEGIN {exit !(d > 1.5 && d <= 3.0)}'
ok $? "...seen $d s after the unlink (its limit 2 s, within two intervals past it)"
con 'ReLink "gpu01/mlx5_0"[1]'
wait_log '"port.down","phase":"close","subject":"ibsim0/1"' 5
ok $? "...closed when relinked: $(grep '"port.down","phase":"close"' ev.jsonl | jq -r .figures)"

# the console's events view, in tmux, while the watch runs
if command -v tmux >/dev/null && have_feature ncursesw; then
    mkdir -p wd && ln -sf "$TMP/st.json" wd/state.json && ln -sf "$TMP/ev.jsonl" wd/events.jsonl
    "${TM[@]}" new-session -d -s top -x 150 -y 40 \
        "$RAILYARD top --source sysfs --sysfs-root $TMP/none --watch $TMP/wd --view events -d 1 2>$TMP/top.err; sleep 30"
    seen=1
    for _ in $(seq 1 100); do
        "${TM[@]}" capture-pane -p -t top >screen 2>/dev/null
        grep -q 'port.flapping *open *ibsim0/1' screen && grep -q 'port.errors.burst' screen &&
            grep -q 'railyard watch: watching 1 port' screen && { seen=0; break; }
        sleep 0.2
    done
    ok $seen "top's events view in tmux: the live watch's flap and burst, newest first ($(grep -m1 port.flapping screen))"
    "${TM[@]}" kill-server >/dev/null 2>&1
else
    skip "top's events view in tmux" "tmux is not installed or railyard was built without ncursesw"
fi

# ibsim stopped: its MADs are not answered, the read misses its deadline and is named; the
# watch goes on, and samples the port again once ibsim runs
IB=$(cat "$IBSIM_FABRIC_DIR/ibsim.pid")
kill -STOP "$IB"
for _ in $(seq 1 50); do grep -q 'ibsim0/1: not sampled' w.err && break; sleep 0.1; done
grep -q 'ibsim0/1: not sampled: ' w.err
ok $? "ibsim stopped: the port's read is named not sampled ($(grep -m1 'not sampled' w.err))"
for _ in $(seq 1 30); do [ "$(jq -r '.ports[0].sampled' st.json 2>/dev/null)" = false ] && break; sleep 0.1; done
is "$(jq -r '.ports[0].sampled, .watching' st.json | tr '\n' ' ')" "false true " "...the state says so, and the watch goes on"
kill -CONT "$IB"
for _ in $(seq 1 50); do [ "$(jq -r '.ports[0].sampled' st.json 2>/dev/null)" = true ] && break; sleep 0.1; done
is "$(jq -r '.ports[0].sampled' st.json)" true "ibsim runs again: the port is sampled again"

# the node check on the watch's state: the flap and the down fail, the burst warns
"$RAILYARD" check --watch-state st.json --json >check.json 2>/dev/null
rc=$?
is "$rc:$(jq -r '[.findings[] | select(.severity != "ok" and (.check | startswith("watch."))) | "\(.severity) \(.check)"] | sort | join(";")' check.json)" \
    "1:fail watch.port.down;fail watch.port.flapping;warn watch.port.errors.burst" \
    "railyard check with the watch's state: the flap and the down fail, the burst warns (exit $rc)"

kill -TERM "$W"
wait "$W"
is "$?:$(jq -r .watching st.json)" "0:false" "SIGTERM: the watch ends (exit 0), its state says so"
W=
n=$(wc -l <ev.jsonl)
is "$(jq -c . ev.jsonl 2>/dev/null | wc -l)" "$n" "...every one of the $n log lines is whole JSON"
done_testing
