#!/bin/bash
# railyard fabric live, through libibnetdisc and libibmad, on a simulated fabric (ibsim +
# OpenSM, scripts/ibsim-fabric): a healthy 4 hosts x 4 rails fabric has no finding; each fault
# alone and all together are named with the exact cable or port; a dump replayed in ibsim
# judges the same live and offline; ibsim dying mid-query gives exit 2, not a hang;
# railyard check --fabric keeps the node's own cables.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature ibnetdisc || skip_all "built without libibnetdisc/libibmad"
have_feature yaml || skip_all "built without libyaml: the rig's maps need it"
ibsim_rig ibnetdiscover jq
trap '"$SIM" stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1 # libumad2sim writes its sysfs view into the current directory

start() { "$SIM" start "$@" >"$TMP/start.log" 2>&1 || { sed 's/^/# /' "$TMP/start.log"; return 1; }; }
stop() { "$SIM" stop >/dev/null 2>&1; }
fab() { timeout 120 "$SIM" run "$RAILYARD" fabric "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }
# first_sample: wait (up to 60 s) until the fab in the background has taken its first counter
# sample (-v says so on stderr): what a ramp does after it is in the difference of the two
first_sample() {
    local i
    for i in $(seq 1 1200); do
        grep -q 'first counter sample taken' "$TMP/err" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "# no first counter sample in 60 s: $(head -c 300 "$TMP/err" 2>/dev/null)"
    return 1
}
fails() { grep -E '^(FAIL|WARN)' "$TMP/out" | awk '{print $2, $3}' | sort | tr '\n' ';'; }
# a fabric with the given faults: start it, judge it against the map and the reference
judge() { # judge DESCRIPTION EXPECTED-RC EXPECTED-FINDINGS GEN-OPTIONS...
    local d=$1 want_rc=$2 want=$3
    shift 3
    "$SIM" gen "$@" >"$TMP/f.net" 2>"$TMP/gen.err" || { ok 1 "$d: gen"; sed 's/^/# /' "$TMP/gen.err"; return; }
    start "$TMP/f.net" || { ok 1 "$d: fabric starts"; return; }
    if [ -n "${FLAP:-}" ]; then # a link flapping while railyard samples
        rm -f "$TMP/err"
        ( fab --map "$TMP/rail.map" --interval 3 -v; echo "$rc" >"$TMP/flap.rc" ) &
        local bg=$!
        first_sample
        "$SIM" ramp "$FLAP:LinkDownedCounter" --count 3
        wait $bg
        rc=$(cat "$TMP/flap.rc")
    else
        fab --map "$TMP/rail.map" ${FAB_ARGS:-}
    fi
    stop
    is "$rc $(fails)" "$want_rc $want" "$d"
}

"$SIM" gen --hosts 4 --rails 4 --map "$TMP/rail.map" >"$TMP/healthy.net"
ok $? "gen: healthy 4 x 4 fabric and its map"
"$RAILYARD" map validate "$TMP/rail.map" >/dev/null; ok $? "the generated map validates"
start "$TMP/healthy.net"; ok $? "ibsim + OpenSM up (SUBNET UP)"
timeout 60 "$SIM" run ibnetdiscover >"$TMP/ref.topo" 2>/dev/null
ok $? "ibnetdiscover of the healthy fabric (the reference)"
echo "  expect: ref.topo" >>"$TMP/rail.map"
fab --map "$TMP/rail.map"
is "$rc $(fails)" "0 " "healthy: exit 0, no finding"
grep -q '6 switches, 16 HCAs, 24 cables' "$TMP/out"; ok $? "healthy: 6 switches, 16 HCAs, 24 cables"
grep -q 'counters: 2 samples 1.0 s apart' "$TMP/out"; ok $? "healthy: counters sampled twice"
if have_feature jansson; then
    fab --map "$TMP/rail.map" --json --interval 0.2
    jq -e '.counters.samples == 2 and ([.links[].ends[] | select(.counters.PortXmitData != null)] | length) == 48
           and ([.links[].ends[].extended] | all) and ([.links[] | select(.width == 4 and .speed == "HDR" and .state == "Active")] | length) == 24' \
        "$TMP/out" >/dev/null
    ok $? "healthy JSON: 24 active 4xHDR links, PortCounters and PortCountersExtended on all 48 ends"
else
    skip "built without jansson"
fi
# data rates from the 64-bit PortCountersExtended: the counter follows the clock at 4 Gb/s
# (one 4-byte word every 8 ns), set every 0.1 s, so the two samples measure about 4 Gb/s
# whenever they fall. The value set is up to one step plus the simulator's reply old when read,
# and on a busy host that lag differs by a few tenths of a second between the two samples: four
# seconds apart and a +-40% band keep it out of the verdict, and still catch bytes for words
# (1 or 16 Gb/s) or bits for bytes (0.5 or 32 Gb/s). The only other traffic is the MADs.
if have_feature jansson; then
    (
        t0=$(date +%s%N)
        while :; do
            w=$((($(date +%s%N) - t0) / 8))
            "$SIM" cmd "PerformanceSet \"gpu01/mlx5_0\"[1] PortCountersExtended.PortXmitData=$w" >/dev/null
            sleep 0.1
        done
    ) &
    ramp=$!
    fab --map "$TMP/rail.map" --interval 4 --json
    kill "$ramp" 2>/dev/null; wait "$ramp" 2>/dev/null
    jq -e '[.links[].ends[] | select(.node == "gpu01/mlx5_0")][0] | .tx_gbps > 2.4 and .tx_gbps < 5.6 and .rx_gbps < 0.01' \
        "$TMP/out" >/dev/null
    ok $? "TX rate of an HCA port from PortCountersExtended ($(jq -c '[.links[].ends[] | select(.node == "gpu01/mlx5_0")][0] | [.tx_gbps, .rx_gbps]' "$TMP/out" 2>/dev/null) Gb/s)"
else
    skip "built without jansson"
fi
# rising LinkDowned: a flapping HCA link while railyard samples
rm -f "$TMP/err"
( fab --map "$TMP/rail.map" --interval 3 -v; echo "$rc" >"$TMP/rising.rc" ) &
bg=$!
first_sample
"$SIM" ramp gpu03/mlx5_2:LinkDownedCounter --count 3 --every 0.3
wait $bg
is "$(cat "$TMP/rising.rc") $(fails)" "1 port.errors.rising gpu03/mlx5_2:1;" "rising LinkDownedCounter: the HCA port is named"
grep -q 'LinkDownedCounter +[1-3] in 3\.[0-9] s (cable to leaf-r2-0:3)' "$TMP/out"; ok $? "rising: the delta, the interval and the cable are said"
# check --fabric: the node's own cables only
{ cat "$TMP/rail.map"; printf 'severity:\n  nic.: ignore\n'; } >"$TMP/check.map"
mkdir -p "$TMP/nosys/class" "$TMP/nosys/bus"
timeout 60 "$SIM" run "$RAILYARD" check --fabric --map "$TMP/check.map" --node gpu01 --sysfs-root "$TMP/nosys" >"$TMP/out" 2>"$TMP/err"
is "$? $(fails)" "0 " "check --fabric on a healthy fabric: exit 0"
stop

FAB_ARGS="--archive $TMP/archive" \
judge "swapped cables: both HCAs named" 1 "rail.cabling gpu02/mlx5_1:1;rail.cabling gpu02/mlx5_2:1;" \
    --swap gpu02/mlx5_1,gpu02/mlx5_2
grep -q 'rail.cabling  *gpu02/mlx5_1:1  *expected leaf of rail 1, observed cabled to leaf-r2-0 port 2 (rail 2)' "$TMP/out"
ok $? "the cable is named: expected leaf of rail 1, cabled to leaf-r2-0 port 2 (rail 2)"
# the run is archived with the leaf of every HCA port (railyard-report(5))
REP=$(ls "$TMP"/archive/*/*-ib-*/report.json 2>/dev/null | head -1)
if have_feature jansson && [ -n "$REP" ]; then
    is "$(jq -r '[.cabling[] | select(.host == "gpu02" and (.rail == 1 or .rail == 2)) | "\(.rail)>\(.leaf):\(.leaf_rail)"] | sort | join(" ")' "$REP")" \
        "1>leaf-r2-0:2 2>leaf-r1-0:1" "archived: gpu02's rail-1 and rail-2 HCAs on each other's leaf"
    is "$(jq '[.cabling[] | select(.rail != null and .rail == .leaf_rail)] | length' "$REP")" 14 "archived: the other 14 HCA ports on a leaf of their rail"
    if have_feature libxml2; then
        is "$(grep -o 'class="crossed"' "$(dirname "$REP")/report.html" | wc -l)" 2 "report.html: the two swapped cables drawn crossing"
    else skip "built without libxml2"; fi
elif have_feature jansson; then
    ok 1 "the fabric run is archived under $TMP/archive"; skip "no archive"; skip "no archive"
else
    for i in 1 2 3; do skip "built without jansson: no archive"; done
fi
judge "moved cable: the HCA and the leaf port it went to" 1 "rail.cabling gpu03/mlx5_1:1;" \
    --move gpu03/mlx5_1=leaf-r2-0
grep -q 'cabled to leaf-r2-0 port 7 (rail 2)' "$TMP/out"; ok $? "moved: the spare port is named"
# rising symbol errors on a switch port (ramp EP:COUNTER with a switch port)
start "$TMP/healthy.net"
rm -f "$TMP/err"
( fab --map "$TMP/rail.map" --interval 2 -v; echo "$rc" >"$TMP/sym.rc" ) &
bg=$!
first_sample
"$SIM" ramp leaf-r1-0:4:SymbolErrorCounter --step 7 --count 4
wait $bg
stop
is "$(cat "$TMP/sym.rc") $(fails)" "1 port.errors.rising leaf-r1-0:4;" "symbol errors rising on a leaf port: that port is named"
grep -q 'SymbolErrorCounter +[0-9]* in 2\.[0-9] s (cable to gpu04/mlx5_1:1)' "$TMP/out"; ok $? "... with its cable"
judge "1x link" 1 "link.width gpu01/mlx5_3:1<->leaf-r3-0:1;" --width gpu01/mlx5_3=1x
judge "EDR link on an HDR fabric" 1 "link.speed gpu04/mlx5_0:1<->leaf-r0-0:4;" --speed gpu04/mlx5_0=EDR
grep -q 'expected HDR, observed EDR' "$TMP/out"; ok $? "EDR: expected and observed speed"
judge "slow spine link" 1 "link.speed leaf-r1-0:5<->spine-0:2;" --speed leaf-r1-0:5=QDR
judge "down HCA link: the switch port is Down/Polling" 1 "link.state gpu03/mlx5_2:1<->leaf-r2-0:3;" \
    --down gpu03/mlx5_2
grep -q 'observed Down/Polling at leaf-r2-0:3' "$TMP/out"; ok $? "down: the port state is said"
judge "down spine link" 1 "link.state leaf-r1-0:6<->spine-1:2;" --down leaf-r1-0:6
judge "preset SymbolErrorCounter: a warning on that port" 0 "port.errors leaf-r0-0:2;" \
    --counter leaf-r0-0:2:PortCounters.SymbolErrorCounter=1234
grep -q 'SymbolErrorCounter 1234 (cable to gpu02/mlx5_0:1)' "$TMP/out"; ok $? "preset counter: value and cable"
judge "duplicate NodeDescription" 1 "fabric.desc.duplicate gpu03;" --desc 'gpu04/mlx5_3=gpu03 mlx5_3'
judge "leaf-to-leaf cable" 1 "fabric.link.extra leaf-r0-0:7<->leaf-r1-0:7;" --link leaf-r0-0,leaf-r1-0

ALL="--swap gpu02/mlx5_1,gpu02/mlx5_2 --move gpu03/mlx5_1=leaf-r2-0 --width gpu01/mlx5_3=1x
 --speed gpu04/mlx5_0=EDR --speed leaf-r0-0:5=QDR --down gpu03/mlx5_2 --down leaf-r1-0:6
 --counter leaf-r0-0:2:PortCounters.SymbolErrorCounter=1234"
# shellcheck disable=SC2086
FLAP=gpu01/mlx5_0 judge "all faults at once (and a flapping link): exactly that set" 1 "fabric.desc.duplicate gpu03;fabric.link.extra leaf-r0-0:7<->leaf-r1-0:3;link.speed gpu04/mlx5_0:1<->leaf-r0-0:4;link.speed leaf-r0-0:5<->spine-0:1;link.state gpu03/mlx5_2:1<->leaf-r2-0:3;link.state leaf-r1-0:6<->spine-1:2;link.width gpu01/mlx5_3:1<->leaf-r3-0:1;port.errors leaf-r0-0:2;port.errors.rising gpu01/mlx5_0:1;rail.cabling gpu02/mlx5_1:1;rail.cabling gpu02/mlx5_2:1;rail.cabling gpu03/mlx5_1:1;" \
    $ALL --desc 'gpu04/mlx5_3=gpu03 mlx5_3' --link leaf-r0-0,leaf-r1-0

# a dump of the faulty fabric, replayed in ibsim: the same verdict live and offline
# shellcheck disable=SC2086
"$SIM" gen $ALL --desc 'gpu04/mlx5_3=gpu03 mlx5_3' >"$TMP/all.net"
start "$TMP/all.net"
timeout 60 "$SIM" run ibnetdiscover >"$TMP/all.topo" 2>/dev/null; ok $? "dump of the faulty fabric"
timeout 60 "$SIM" run "$RAILYARD" check --fabric --map "$TMP/check.map" --node gpu02 --sysfs-root "$TMP/nosys" >"$TMP/out" 2>"$TMP/err"
is "$? $(fails)" "1 port.errors leaf-r0-0:2;rail.cabling gpu02/mlx5_1:1;rail.cabling gpu02/mlx5_2:1;" \
   "check --fabric --node gpu02: only gpu02's cables (and the port facing its HCA)"
timeout 60 "$SIM" run "$RAILYARD" check --fabric --map "$TMP/check.map" --node gpu02 --sysfs-root "$TMP/nosys" --reason >"$TMP/out" 2>"$TMP/err"
# too long for its expected value ("leaf of rail 1"): the reason leaves it out rather than cut it
is "$(cat "$TMP/out")" "railyard: rail.cabling mlx5_1:1 cabled to leaf-r2-0 port 2 (rail 2) +1" \
   "check --fabric --reason: one line for the node reason"
# gpu04's mlx5_3 says "gpu03 mlx5_3": check --fabric on gpu04 finds its own HCA by GUID (from
# its sysfs) and names the wrong NodeDescription
d=$TMP/gpu04sys/class/infiniband/mlx5_3
mkdir -p "$d/ports/1" "$TMP/gpu04sys/bus"
echo a088:c203:0004:0300 >"$d/node_guid"
echo "4: ACTIVE" >"$d/ports/1/state"
echo "5: LinkUp" >"$d/ports/1/phys_state"
echo InfiniBand >"$d/ports/1/link_layer"
timeout 60 "$SIM" run "$RAILYARD" check --fabric --map "$TMP/check.map" --node gpu04 --sysfs-root "$TMP/gpu04sys" >"$TMP/out" 2>"$TMP/err"
is "$? $(fails)" "1 fabric.desc.duplicate gpu03;fabric.desc.mismatch gpu04/mlx5_3;link.speed gpu04/mlx5_0:1<->leaf-r0-0:4;" \
   "check --fabric --node gpu04: its HCA found by GUID despite another host's NodeDescription"
grep -q 'fabric.desc.mismatch gpu04/mlx5_3  *expected gpu04 mlx5_3, observed gpu03 mlx5_3' "$TMP/out"
ok $? "... and the NodeDescription it should have is said"
stop
"$RAILYARD" fabric --ibnetdiscover "$TMP/all.topo" --map "$TMP/rail.map" >"$TMP/out" 2>"$TMP/err"
is $? 1 "the dump judged offline: exit 1"
offline=$(fails)
start "$TMP/all.topo"; ok $? "ibsim runs the replayed dump"
fab --map "$TMP/rail.map" --no-counters
is "$(fails)" "$offline" "replayed dump: live and offline give the same findings"
stop

# a real cluster's dump (PSMN X5, QDR with DDR hosts) replayed in ibsim: live = offline
PSMN=$SHARED_FIXTURES/ibnetdiscover/psmn_x5_X5.topofile.txt
if [ -f "$PSMN" ]; then
    sed 's/: x5-ddr$/: x5-qdr/' "$RAILYARD_SRCDIR/tests/fixtures/maps/psmn-x5.map" >"$TMP/qdr.map"
    names=$SHARED_FIXTURES/ibnetdiscover/psmn_x5_X5.map.txt
    "$RAILYARD" fabric --ibnetdiscover "$PSMN" --map "$TMP/qdr.map" --node-name-map "$names" >"$TMP/out" 2>"$TMP/err"
    offline=$(fails)
    start "$PSMN"; ok $? "ibsim runs the real PSMN X5 dump (11 switches, 89 HCAs)"
    fab --map "$TMP/qdr.map" --node-name-map "$names" --no-counters
    stop
    is "$rc $(fails | tr ';' '\n' | grep -c '^link.speed')" "1 21" "PSMN live: the 21 named DDR hosts fail a QDR map"
    is "$(fails)" "$offline" "PSMN: live and offline give the same findings"
else
    skip "shared fixture psmn_x5_X5.topofile.txt not found"
    skip "shared fixture psmn_x5_X5.topofile.txt not found"
    skip "shared fixture psmn_x5_X5.topofile.txt not found"
fi

# bad situations: exit 2, a message, no hang
start "$TMP/healthy.net"
# the simulator dies once the first sample is taken, inside the 6 s before the second
rm -f "$TMP/err"
( fab --map "$TMP/rail.map" --interval 6 --timeout 60 -v; echo "$rc" >"$TMP/gone.rc" ) &
bg=$!
first_sample
kill -KILL "$(cat "$IBSIM_FABRIC_DIR/ibsim.pid")"
wait $bg
is "$(cat "$TMP/gone.rc")" 2 "ibsim killed between the two counter samples: exit 2"
grep -q 'no port answered a PMA counter query' "$TMP/err"
ok $? "... saying no port answered$(grep -q 'no port answered' "$TMP/err" || { printf ' (said: '; head -c 200 "$TMP/err"; printf ')'; })"
stop
start "$TMP/healthy.net"
eval "$("$SIM" env)"
kill -KILL "$(cat "$IBSIM_FABRIC_DIR/ibsim.pid")"
timeout 60 "$RAILYARD" fabric --timeout 3 >"$TMP/out" 2>"$TMP/err"
rc=$?
unset LD_PRELOAD
is $rc 2 "no simulator at all (the client would wait forever): the deadline gives exit 2"
grep -q 'deadline reached' "$TMP/err"; ok $? "... saying the deadline was reached"
stop
start "$TMP/healthy.net" --sm none
fab --map "$TMP/rail.map" --no-counters
is "$rc $(fails | tr ';' '\n' | grep -c 'link.state')" "1 24" "no subnet manager: every link is named Initialize, not Active"
fab --map "$TMP/rail.map"
is $rc 2 "no subnet manager: counters cannot be read (no LIDs): exit 2"
stop
done_testing
