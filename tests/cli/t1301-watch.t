#!/bin/bash
# railyard watch on a sysfs tree laid out as the kernel lays it out, changed under it as a
# flapping cable, a port that stays down and a stuck counter query would change it: the events
# in its log and on its output (port.flapping within two intervals of the second flap,
# port.down past its limit and closed when the port is up, nothing for the quiet port, nothing
# within the boot-time grace), a read that hangs named while the others are sampled, the state
# file and the node_exporter textfile, SIGTERM (exit 0, the state says not watching, every log
# line whole), bad usage.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature jansson || skip_all "railyard was built without a JSON library: watch keeps no log"
command -v jq >/dev/null || skip_all "jq is not installed"
PROMCHECK=$(dirname "$RAILYARD")/tests/tools/promcheck

R=$TMP/sys
up() { fake_ib_port "$R" "$1" "4: ACTIVE" "5: LinkUp"; }
down() { fake_ib_port "$R" "$1" "1: DOWN" "2: Polling"; }
now() { date +%s.%N; }
wait_log() { # wait_log PATTERN SECONDS: the log has a line matching PATTERN
    local _
    for _ in $(seq 1 $(($2 * 10))); do
        grep -q "$1" "$TMP/ev.jsonl" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
for d in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do up $d; done

# the watch: a sample every 0.5 s, no grace, down after 2 s (a flap below is down 1 s)
"$RAILYARD" watch --sysfs-root "$R" --interval 0.5 --grace 0 --down-after 2 \
    --log "$TMP/ev.jsonl" --state "$TMP/state.json" --textfile "$TMP/watch.prom" >"$TMP/out" 2>"$TMP/err" &
W=$!
for _ in $(seq 1 50); do [ -s "$TMP/state.json" ] && break; sleep 0.1; done
is "$(jq -r '[.ports[].subject] | join(" ")' "$TMP/state.json" 2>/dev/null)" "mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1" \
    "the state file lists the four ports"
is "$(jq -r '.watching' "$TMP/state.json" 2>/dev/null)" true "...and says it is watching"

# mlx5_1/1 flaps twice, 1.5 s apart
down mlx5_1; sleep 1; up mlx5_1; sleep 1.5
down mlx5_1; sleep 1; up mlx5_1; t2=$(now)
wait_log '"port.flapping","phase":"open","subject":"mlx5_1/1"' 5
ok $? "two flaps: port.flapping opens for mlx5_1/1"
line=$(grep -m1 '"port.flapping","phase":"open"' "$TMP/ev.jsonl")
late=$(echo "$line" | jq -r --arg t "$t2" '.last_s - ($t | tonumber)')
awk -v d="$late" 'BEGIN {exit !(d <= 1.0)}'
ok $? "...seen within two intervals (1 s) of the second flap: $late s"
is "$(echo "$line" | jq -r '.value, .limit' | tr '\n' ' ')" "2 2 " "...2 flaps, the limit 2"
grep -q 'OPEN   port.flapping      mlx5_1/1     2 flaps in' "$TMP/out"
ok $? "...and printed: $(grep -m1 'port.flapping' "$TMP/out")"
for _ in $(seq 1 20); do grep -q 'event_open{.*port="mlx5_1/1",event="port.flapping"} 1' "$TMP/watch.prom" 2>/dev/null && break; sleep 0.1; done
grep -q '^railyard_watch_events_total{host="[^"]*",port="mlx5_1/1",event="port.flapping"} 1$' "$TMP/watch.prom" &&
    grep -q '^railyard_watch_event_open{host="[^"]*",port="mlx5_1/1",event="port.flapping"} 1$' "$TMP/watch.prom"
ok $? "...and in the textfile at once: one opened, open now"
"$PROMCHECK" "$TMP/watch.prom" >"$TMP/pc" 2>&1; ok $? "the textfile passes the exposition syntax check $(head -1 "$TMP/pc")"
# the console: the events view lists the flap, the ports view marks mlx5_1
mkdir -p "$TMP/wd"
ln -sf "$TMP/state.json" "$TMP/wd/state.json"
ln -sf "$TMP/ev.jsonl" "$TMP/wd/events.jsonl"
"$RAILYARD" top --source sysfs --sysfs-root "$R" --watch "$TMP/wd" --batch -n 1 --view events >"$TMP/top" 2>&1
grep -q '^. [0-9T:-]*Z  port.flapping      open   mlx5_1/1 ' "$TMP/top"
ok $? "top's events view: the flap, with its time: $(grep -m1 port.flapping "$TMP/top")"
grep -q 'railyard watch: watching 4 ports' "$TMP/top"; ok $? "...and the watch's status"
"$RAILYARD" top --source sysfs --sysfs-root "$R" --watch "$TMP/wd" --batch -n 1 >"$TMP/top" 2>&1
is "$(grep -c 'watch: port.flapping' "$TMP/top") $(grep 'watch: port.flapping' "$TMP/top" | awk '{print $3}')" "1 mlx5_1:1" \
    "top's ports view: mlx5_1 marked flapping, the others not"
is "$(grep -c '^railyard_watch_port_up{.*} 1$' "$TMP/watch.prom")" 4 "...the four ports up"

# mlx5_2/1 down for 3 s and more: port.down past 2 s, closed when up again
down mlx5_2
wait_log '"port.down","phase":"open","subject":"mlx5_2/1"' 5
ok $? "a port down past --down-after: port.down opens"
sleep 1; up mlx5_2
wait_log '"port.down","phase":"close","subject":"mlx5_2/1"' 5
ok $? "...and closes when it is up again"

# a counter query that hangs: a FIFO nobody writes stands for mlx5_3's symbol_error
rm -f "$R/class/infiniband/mlx5_3/ports/1/counters/symbol_error"
mkfifo "$R/class/infiniband/mlx5_3/ports/1/counters/symbol_error"
for _ in $(seq 1 50); do grep -q 'mlx5_3/1.*did not come back in time' "$TMP/err" && break; sleep 0.1; done
grep -q 'mlx5_3/1: not sampled: .*did not come back in time' "$TMP/err"
ok $? "a read that hangs is named: $(grep -m1 mlx5_3 "$TMP/err")"
sleep 1.2
is "$(jq -r '[.ports[] | "\(.subject)=\(.sampled)"] | join(" ")' "$TMP/state.json")" \
    "mlx5_0/1=true mlx5_1/1=true mlx5_2/1=true mlx5_3/1=false" "...the other ports are still sampled (the state file)"
is "$(grep -c 'did not come back in time' "$TMP/err")" 1 "...and it is said once, not at every sample"

is "$(grep -c '"subject":"mlx5_0/1"' "$TMP/ev.jsonl")" 0 "the quiet port: no event"
is "$(jq -r '[.events[] | "\(.event):\(.phase)"] | join(" ")' "$TMP/state.json")" \
    "port.flapping:open port.down:close" "the state lists the open event and the one closed within the window"

# SIGTERM: exit 0, the state says not watching, every log line whole
kill -TERM $W
wait $W
is "$?" 0 "SIGTERM: the watch ends with exit 0"
is "$(jq -r '.watching' "$TMP/state.json")" false "...and its state says it is not watching"
grep -q '^railyard_watch_up{host="[^"]*"} 0$' "$TMP/watch.prom"; ok $? "...and its textfile: railyard_watch_up 0"
n=$(wc -l <"$TMP/ev.jsonl")
is "$(jq -c . "$TMP/ev.jsonl" 2>/dev/null | wc -l)" "$n" "...every one of the $n log lines is whole JSON"

# railyard history --events: the log in an archive, its rotated part first, newest first
mkdir -p "$TMP/arch/watch"
cp "$TMP/ev.jsonl" "$TMP/arch/watch/events.jsonl"
{ echo '{"event":"port.down","phase":"open","subject":"mlx5_9/1","first":"2026-01-01T00:00:00Z","last":"2026-01-01T00:00:08Z","host":"other","figures":"down 8 s (limit 7 s)"}'
  echo 'not json'; } >"$TMP/arch/watch/events.jsonl.1"
H() { "$RAILYARD" history --events --archive "$TMP/arch" "$@"; }
H >"$TMP/h" 2>"$TMP/herr"
is "$?:$(($(wc -l <"$TMP/h") - 1)):$(($(wc -l <"$TMP/ev.jsonl") + 1))" "0:$(($(wc -l <"$TMP/ev.jsonl") + 1)):$(($(wc -l <"$TMP/ev.jsonl") + 1))" \
    "history --events: every event of the log and of its rotated part"
is "$(sed -n 2p "$TMP/h" | awk '{print $3, $4, $5}') $(tail -1 "$TMP/h" | awk '{print $2, $3, $5}')" \
    "$(tail -1 "$TMP/ev.jsonl" | jq -r '"\(.event) \(.phase) \(.subject)"') other port.down mlx5_9/1" \
    "...newest first: the last line of the log first, the rotated part's last"
is "$(cat "$TMP/herr")" "railyard: $TMP/arch/watch/events.jsonl.1:2: not an event line of railyard watch (left out)" \
    "...a line that is not an event: named with its file and line, left out"
is "$(H --limit 2 2>/dev/null | wc -l)" 3 "--limit 2: two rows"
is "$(H --node other 2>/dev/null | tail -n +2 | awk '{print $2}' | sort -u)" other "--node: that host's only"
is "$(H --since 2026-06-01 2>/dev/null | grep -c ' other ')" 0 "--since: the older event left out"
is "$(H --json 2>/dev/null | jq -r 'length, .[0].event' | tr '\n' ' ')" "$(($(wc -l <"$TMP/ev.jsonl") + 1)) $(tail -1 "$TMP/ev.jsonl" | jq -r .event) " \
    "--json: an array of the lines, newest first"
H --rail 1 >/dev/null 2>"$TMP/herr"
is "$?:$(grep -c 'not with --rail' "$TMP/herr")" "2:1" "--events with --rail: refused"
is "$("$RAILYARD" history --events --archive "$TMP/none" 2>&1)" "no event matches ($TMP/none/watch/events.jsonl)" \
    "no log yet: no event, said"

# within the grace (default 120 s): a down and up is training, not an event
for d in mlx5_0 mlx5_1 mlx5_2; do up $d; done
rm -f "$R/class/infiniband/mlx5_3/ports/1/counters/symbol_error"; echo 0 >"$R/class/infiniband/mlx5_3/ports/1/counters/symbol_error"
"$RAILYARD" watch --sysfs-root "$R" --interval 0.3 --count 12 --log "$TMP/ev2.jsonl" --state none >"$TMP/out2" 2>&1 &
W=$!
sleep 0.8; down mlx5_1; sleep 0.7; up mlx5_1; sleep 0.7; down mlx5_1; sleep 0.7; up mlx5_1
wait $W
is "$?:$(cat "$TMP/ev2.jsonl" 2>/dev/null | wc -l)" "0:0" "two flaps within the grace: no event (and --count ends it, exit 0)"

# the capture of a real node: every port found
if [ -d "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" ]; then
    mkdir -p "$TMP/real/class"
    cp -r "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" "$TMP/real/class/infiniband"
    want=$(ls -d "$TMP"/real/class/infiniband/*/ports/* | wc -l)
    "$RAILYARD" watch --sysfs-root "$TMP/real" --interval 0.1 --count 2 --log none --state "$TMP/real.json" >/dev/null 2>&1
    is "$?:$(jq '.ports | length' "$TMP/real.json")" "0:$want" "an H100 node's capture: its $want ports watched"
    is "$(jq '[.ports[] | select(.sampled)] | length' "$TMP/real.json")" "$want" "...each sampled"
else
    skip "the shared fixtures are not here (an H100 node's sysfs capture)"
    skip "the shared fixtures are not here"
fi

# the map's watch: keys: its thresholds, the options over them, and its errors named
cat >"$TMP/w.map" <<'EOF'
cluster: t
node_types:
  n: {nics: [{name: mlx5_0, rail: 0, link_layer: InfiniBand, rate_gbps: 400}]}
watch:
  interval: 0.2
  flap_count: 3
  flap_window: 600
  grace: 30
  down_after: 12
  limits: {SymbolErrorCounter: 5, np_cnp_sent: 20000}
EOF
hdr() { "$RAILYARD" watch --sysfs-root "$R" --count 1 --log none --state none "$@" 2>&1 | head -1; }
is "$(hdr --map "$TMP/w.map")" \
    "railyard watch: 4 ports every 0.2 s (flaps: 3 within 600 s, grace 30 s; down after 12 s), no log" \
    "--map: the map's interval, flap count and window, grace and down limit"
is "$(hdr --map "$TMP/w.map" --flap-count 2 --interval 0.5)" \
    "railyard watch: 4 ports every 0.5 s (flaps: 2 within 600 s, grace 30 s; down after 12 s), no log" \
    "...the options given win over the map"
is "$(hdr)" "railyard watch: 4 ports every 1 s (flaps: 2 within 300 s, grace 120 s; down after 7 s), no log" \
    "...and without a map, the defaults"
is "$("$RAILYARD" map show --json "$TMP/w.map" | jq -c '.watch')" \
    '{"interval_s":0.2,"flap_count":3,"flap_window_s":600,"grace_s":30,"down_after_s":12,"hold_s":null,"counter_limits":2}' \
    "map show: the watch: keys"
sed 's/SymbolErrorCounter: 5/LinkDownedCounter: 5/' "$TMP/w.map" >"$TMP/w2.map"
"$RAILYARD" watch --sysfs-root "$R" --count 1 --log none --state none --map "$TMP/w2.map" >/dev/null 2>"$TMP/e"
is "$?:$(head -1 "$TMP/e")" \
    "2:railyard: watch: $TMP/w2.map:10:12: watch: limits: 'LinkDownedCounter' is not a counter the watch judges by its rate (SymbolErrorCounter, PortRcvErrors, LinkErrorRecoveryCounter, np_cnp_sent, nvlink_crc_flit_errors, ...)" \
    "a counter the watch does not judge by its rate: refused, its line and column named"
sed 's/flap_window: 600/flap_windw: 600/' "$TMP/w.map" >"$TMP/w3.map"
"$RAILYARD" watch --sysfs-root "$R" --count 1 --log none --state none --map "$TMP/w3.map" >/dev/null 2>"$TMP/e"
is "$?:$(grep -c "w3.map:7:3: .*flap_windw.*flap_window" "$TMP/e")" "2:1" "a misspelt key: refused, the nearest named ($(head -1 "$TMP/e"))"
sed 's/interval: 0.2/interval: 0.01/' "$TMP/w.map" >"$TMP/w4.map"
"$RAILYARD" watch --sysfs-root "$R" --count 1 --log none --state none --map "$TMP/w4.map" >/dev/null 2>"$TMP/e"
is "$?:$(grep -c "w4.map:5:13: interval takes seconds (0.05 to 3600), not 0.01" "$TMP/e")" "2:1" "an interval under 0.05 s: refused ($(head -1 "$TMP/e"))"

sed 's/np_cnp_sent: 20000/nvlink_crc_flit_errors: 50/' "$TMP/w.map" >"$TMP/w5.map"
"$RAILYARD" watch --sysfs-root "$R" --count 1 --log none --state none --map "$TMP/w5.map" >/dev/null 2>"$TMP/e"
is "$?:$(cat "$TMP/e")" "0:" "an NVLink counter's limit in the map: taken"

# NVLinks: no driver on this machine (or none where RAILYARD_NVML_LIBRARY points): said once,
# the ports watched all the same, the state with no NVLink and nothing said not judged
RAILYARD_NVML_LIBRARY=$TMP/no-libnvidia-ml.so.1 "$RAILYARD" watch --sysfs-root "$R" --count 2 --interval 0.1 \
    --log none --state "$TMP/nv.json" >"$TMP/nv.out" 2>"$TMP/nv.err"
is "$?:$(grep -c '^railyard watch: NVLinks not sampled: no NVIDIA driver ' "$TMP/nv.out"):$(wc -c <"$TMP/nv.err")" "0:1:0" \
    "no NVIDIA driver: NVLinks not sampled, said once on the output, nothing on stderr"
is "$(jq -c '[(.ports | length), ([.ports[] | select(.nvlink)] | length), (.nvlinks_why // "none")]' "$TMP/nv.json")" '[4,0,"none"]' \
    "...the four ports in the state, no NVLink, no reason to say they were not judged"
"$RAILYARD" check --watch-state "$TMP/nv.json" --json >"$TMP/nvc.json" 2>/dev/null
is "$(jq -r '[.findings[] | select(.check | startswith("watch.nvlink"))] | length' "$TMP/nvc.json")" 0 \
    "...so the check says nothing of NVLinks (no GPU is not a pass)"
RAILYARD_NVML_LIBRARY=libc.so.6 "$RAILYARD" watch --sysfs-root "$R" --count 1 --log none --state none >"$TMP/nv.out" 2>&1
is "$?:$(grep -c 'NVLinks not sampled: .*libc.so.6 lacks nvmlInit' "$TMP/nv.out")" "0:1" \
    "a library that is not NVML: NVLinks not sampled, the ports watched"
"$RAILYARD" watch --sysfs-root "$R" --count 1 --nvlink none --log none --state none >"$TMP/nv.out" 2>&1
is "$?:$(grep -c NVLink "$TMP/nv.out")" "0:0" "--nvlink none: NVML not opened, nothing said of it"

# a quiet hour of the command on a fake clock (libfaketime, 240 times as fast): 3600 samples at
# 1 s of four ports, one with a symbol error and 1000 CNPs a minute (under their limits), the
# others still; no event, every port sampled to the end
ft=$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)
if [ -n "$ft" ]; then
    echo 0 >"$R/class/infiniband/mlx5_3/ports/1/counters/symbol_error"
    for d in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do up $d; done
    mkdir -p "$R/class/infiniband/mlx5_2/ports/1/hw_counters"
    echo 0 >"$R/class/infiniband/mlx5_2/ports/1/hw_counters/np_cnp_sent"
    # (a sanitizer build: ASan wants to be the first library loaded, libfaketime is)
    LD_PRELOAD=$ft FAKETIME="+0 x240" ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
        "$RAILYARD" watch --sysfs-root "$R" --count 3600 --interval 1 --deadline 100 \
        --nvlink none --log "$TMP/quiet.jsonl" --state "$TMP/quiet.json" >"$TMP/quiet.out" 2>&1 &
    Q=$!
    k=0
    while kill -0 $Q 2>/dev/null && [ $k -lt 600 ]; do # a minute of the fake clock: 0.25 s here
        k=$((k + 1))
        echo "$k" >"$R/class/infiniband/mlx5_2/ports/1/counters/symbol_error"
        echo $((k * 1000)) >"$R/class/infiniband/mlx5_2/ports/1/hw_counters/np_cnp_sent"
        sleep 0.25
    done
    wait $Q
    rc=$?
    span=$(jq -r '(.updated_s - (.started | fromdateiso8601)) | floor' "$TMP/quiet.json" 2>/dev/null)
    is "$rc:$(cat "$TMP/quiet.jsonl" 2>/dev/null | wc -l)" "0:0" \
        "a quiet hour on a fake clock ($span s of it, $k counter steps): no event"
    awk -v s="${span:-0}" 'BEGIN {exit !(s >= 3590)}'
    ok $? "...the fake clock ran an hour of samples or more: $span s from start to end (its start counted)"
    is "$(jq -r '[.ports[] | select(.sampled)] | length' "$TMP/quiet.json")" 4 "...every port sampled to the end"
else
    skip "a quiet hour on a fake clock" "libfaketime is not installed"
    skip "...an hour of samples" "as above"
    skip "...every port sampled" "as above"
fi

# bad usage: exit 2, said
mkdir -p "$TMP/empty"
for bad in "--interval 0" "--flap-count 0" "--count 2.5" "--netdev nosuch0" "--nvlink yes" "--bogus" "extra"; do
    # shellcheck disable=SC2086
    "$RAILYARD" watch --sysfs-root "$R" $bad --count 1 --log none --state none >/dev/null 2>"$TMP/e"
    is "$?:$(grep -c '^railyard: ' "$TMP/e")" "2:1" "refused: $bad ($(head -1 "$TMP/e"))"
done
"$RAILYARD" watch --sysfs-root "$TMP/empty" --count 1 --log none --state none >/dev/null 2>"$TMP/e"
is "$?:$(grep -c 'no port to watch.*and no NVLink' "$TMP/e")" "2:1" "no port and no NVLink: refused ($(head -1 "$TMP/e"))"
done_testing
