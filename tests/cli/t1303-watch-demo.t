#!/bin/bash
# railyard watch on the demo cluster's nodes (network namespaces whose rails are veths, the far
# end in the switch's namespace): a cable that flaps (demo-cluster fault --flap) gives one
# port.flapping naming that port within two intervals of its second flap; a down and up within
# the boot-time grace gives nothing; a port down 10 s gives port.down, closed when it is back;
# the quiet ports give nothing; the node check with each node's watch fails the two nodes whose
# ports misbehaved, each with its event as the reason, and passes the third.
. "$RAILYARD_SRCDIR/tests/lib.sh"
demo_rig
WPIDS=
cleanup() {
    for p in $WPIDS; do kill -TERM "$p" 2>/dev/null; done
    "$DEMO" down >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT
now() { date +%s.%N; }
# appeared LOG PATTERN SECONDS: the time at which LOG first had a line matching PATTERN
appeared() {
    for _ in $(seq 1 $(($3 * 20))); do
        grep -q "$2" "$1" 2>/dev/null && { now; return 0; }
        sleep 0.05
    done
    return 1
}

DEMO_QUIET=1 "$DEMO" up --nodes 3 --rails 2 >"$TMP/up.log" 2>&1
ok $? "demo cluster up: 3 nodes x 2 rails$( [ -s "$TMP/up.log" ] && { printf ': '; tail -2 "$TMP/up.log" | tr '\n' ' '; })"
# a watch in each node on its two rails: a sample every 0.5 s, a grace of 4 s
for n in 1 2 3; do
    "$DEMO" exec node$n -- "$RAILYARD" watch --netdev rail0 --netdev rail1 --interval 0.5 \
        --grace 4 --log "$TMP/ev$n.jsonl" --state "$TMP/st$n.json" >"$TMP/w$n.out" 2>"$TMP/w$n.err" &
    WPIDS="$WPIDS $!"
done
for n in 1 2 3; do
    for _ in $(seq 1 100); do [ -s "$TMP/st$n.json" ] && break; sleep 0.05; done
done
is "$(for n in 1 2 3; do jq -r '[.ports[] | "\(.subject)=\(.sampled)"] | join(",")' "$TMP/st$n.json" 2>/dev/null; done | sort -u)" \
    "rail0=true,rail1=true" "each node's watch samples its two rails"

# within the grace: node1's rail0 loses its carrier for half a second
"$DEMO" fault --flap 1:0:1:1 2>/dev/null
ok $? "demo-cluster fault --flap 1:0:1:1: one flap"
sleep 4

# node2's rail1 flaps 3 times in 20 s (4 s each: down 2 s, up 2 s); its second flap ends when
# it is up the second time, about 6 s after the first down: when, demo-cluster says (each
# transition and its time), and when the watch saw it, its event (last_s, the sample that
# opened it), so that neither a late start of the flaps nor this test's polling counts
"$DEMO" fault --flap 2:1:4:3 2>"$TMP/flap.err" &
F=$!
appeared "$TMP/ev2.jsonl" '"port.flapping","phase":"open","subject":"rail1"' 20 >/dev/null
ok $? "node2 rail1 flapping: port.flapping opens"
wait $F
ok $? "the flap ends, the port up: $(tail -1 "$TMP/flap.err")"
t_up2=$(awk '/flap 2:1:4:3: up 2 of 3 at / { print $NF }' "$TMP/flap.err")
t_open=$(jq -r 'select(.event == "port.flapping" and .phase == "open" and .subject == "rail1") | .last_s' "$TMP/ev2.jsonl" | head -1)
late=$(awk -v a="$t_up2" -v b="$t_open" 'BEGIN { if (a == "" || b == "") print "unknown"; else printf "%.2f", b - a }')
awk -v d="$late" 'BEGIN { exit !(d != "unknown" && d + 0 >= 0 && d + 0 <= 1.0) }'
ok $? "...within two intervals (1 s) of the second flap: $late s after it (the flap's times: $(grep -c ' at ' "$TMP/flap.err") told)"
sleep 1
is "$(jq -sr '[.[] | select(.event == "port.flapping") | .phase] | join(",")' "$TMP/ev2.jsonl")" "open,update" \
    "one port.flapping event, grown once (the third flap)"
is "$(jq -sr '[.[] | select(.event == "port.flapping")] | last | "\(.subject) \(.value)"' "$TMP/ev2.jsonl")" "rail1 3" \
    "...naming rail1, 3 flaps"

# node3's rail0 down 10 s: port.down past 7 s, closed when it is back
# (from when demo-cluster says the port went down to the sample that opened the event, as above)
t0=$(now)
"$DEMO" fault --down 3:0 2>"$TMP/down.err"
appeared "$TMP/ev3.jsonl" '"port.down","phase":"open","subject":"rail0"' 12 >/dev/null
ok $? "node3 rail0 down: port.down opens"
t_went=$(awk '/fault: down 3:0 at / { print $NF }' "$TMP/down.err")
t_down=$(jq -r 'select(.event == "port.down" and .phase == "open" and .subject == "rail0") | .last_s' "$TMP/ev3.jsonl" | head -1)
late=$(awk -v a="$t_went" -v b="$t_down" 'BEGIN { if (a == "" || b == "") print "unknown"; else printf "%.2f", b - (a + 7) }')
awk -v d="$late" 'BEGIN { exit !(d != "unknown" && d + 0 >= 0 && d + 0 <= 1.0) }'
ok $? "...past 7 s down, within two intervals: $late s after the limit"
sleep "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { d = 10 - (b - a); printf "%.2f", (d > 0 ? d : 0) }')"
"$DEMO" fault --heal 3:0 2>/dev/null
appeared "$TMP/ev3.jsonl" '"port.down","phase":"close","subject":"rail0"' 3 >/dev/null
ok $? "...and closes when it is back"
jq -e 'select(.event == "port.down" and .phase == "close") | .figures | test("^down 1[0-9] s")' "$TMP/ev3.jsonl" >/dev/null
ok $? "...down 10 s and more: $(jq -r 'select(.event == "port.down" and .phase == "close") | .figures' "$TMP/ev3.jsonl")"

is "$(cat "$TMP/ev1.jsonl" 2>/dev/null | wc -l)" 0 "node1: a flap within the grace and a quiet rail: no event"
is "$(jq -sr '[.[] | .subject] | unique | join(",")' "$TMP/ev2.jsonl") $(jq -sr '[.[] | .subject] | unique | join(",")' "$TMP/ev3.jsonl")" \
    "rail1 rail0" "the quiet rails of node2 and node3: no event"

# the node check of each node with its watch's state: node2 and node3 fail with their events
for n in 1 2 3; do
    r=$("$DEMO" exec node$n -- "$RAILYARD" check --no-archive --watch-state "$TMP/st$n.json" --reason 2>"$TMP/c$n.err")
    echo "$? $r" >"$TMP/c$n"
done
is "$(cat "$TMP/c1")" "0 railyard: ok (2 checks passed, 0 warnings)" "node1's check: healthy"
case $(cat "$TMP/c2") in "1 railyard: watch.port.flapping rail1 3 flaps in"*) ok 0 "node2's check fails: $(cat "$TMP/c2")" ;;
*) ok 1 "node2's check fails with the flap (got '$(cat "$TMP/c2")')" ;; esac
case $(cat "$TMP/c3") in "1 railyard: watch.port.down rail0 down 1"*) ok 0 "node3's check fails: $(cat "$TMP/c3")" ;;
*) ok 1 "node3's check fails with the down (got '$(cat "$TMP/c3")')" ;; esac

for p in $WPIDS; do kill -TERM "$p"; done
st=0
for p in $WPIDS; do wait "$p" || st=$?; done
WPIDS=
is "$st" 0 "the three watches end on SIGTERM"
"$DEMO" down; ok $? "demo cluster down"
done_testing
