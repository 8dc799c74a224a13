#!/bin/bash
# railyard top, the live console: batch refreshes over a netdev tree whose counters a helper
# raises between refreshes (rates, rising errors turning the port red, hostile interface names
# inert, -n, bad options), a real H100 sysfs capture, valgrind over -n 5; then, in tmux against
# ibsim (scripts/ibsim-fabric): the whole fabric through the PMA, an erroring switch port red
# within two refreshes, sort and filter keys, the rails view marking the miscabled HCA, a
# hostile NodeDescription shown inert, resize, and the terminal restored after q and SIGTERM.
. "$RAILYARD_SRCDIR/tests/lib.sh"
SIM=$RAILYARD_SRCDIR/scripts/ibsim-fabric
TOP=("$RAILYARD" top)

# --- a netdev tree: two rails, one whose errors rise
N=$TMP/sys/class/net
mk_if() { # mk_if NAME STATE FLAGS
    mkdir -p "$N/$1/statistics"
    echo "$2" >"$N/$1/operstate"
    echo "$3" >"$N/$1/flags"
    echo 100000 >"$N/$1/speed"
    for c in tx_bytes rx_bytes rx_errors tx_errors rx_dropped tx_dropped; do echo 0 >"$N/$1/statistics/$c"; done
}
mk_if rail0 up 0x1003
mk_if rail1 up 0x1003
mk_if spare down 0x1002
mk_if "$(printf 'evil\033[31mred')" up 0x1003
( # rail0 sends 2 Gb/s (its byte count follows the clock), rail1 gains receive errors. The
    # writer stands for the NIC, whose counters move however busy the host: it runs ahead of
    # the host's other work (seen starved for a whole refresh on an overloaded host)
    renice -n -10 -p "$BASHPID" >/dev/null 2>&1
    t0=$(date +%s%N)
    for i in $(seq 1 200); do
        # written aside and renamed over, as sysfs never shows a half-written counter
        echo $((($(date +%s%N) - t0) / 4)) >"$N/rail0/statistics/.tx_bytes" &&
            mv -f "$N/rail0/statistics/.tx_bytes" "$N/rail0/statistics/tx_bytes"
        echo $((i * 5)) >"$N/rail1/statistics/.rx_errors" &&
            mv -f "$N/rail1/statistics/.rx_errors" "$N/rail1/statistics/rx_errors"
        sleep 0.05
    done
) &
BUMP=$!
# the writer's value is up to one of its steps (and a busy host's scheduling delay) old when
# read: refreshes a second apart and a +-25% band keep that out of the verdict, and still catch
# bits for bytes or a wrong time base
"${TOP[@]}" --source netdev --sysfs-root "$TMP/sys" --node node1 --batch -n 3 -d 1 >"$TMP/batch" 2>"$TMP/err"
is $? 0 "batch: three refreshes, exit 0"
kill "$BUMP" 2>/dev/null; wait "$BUMP" 2>/dev/null
# the writer may die between truncating a counter file and writing it (a busy host widens that):
# the files are whole again for what follows
echo 4000000000 >"$N/rail0/statistics/tx_bytes"; echo 1000 >"$N/rail1/statistics/rx_errors"
is "$(grep -c '^railyard top  netdev node1' "$TMP/batch")" 3 "batch: a screen per refresh (-n 3)"
last() { awk '/refresh 3/ {p = 1} p' "$TMP/batch"; }
last | grep ' rail0 ' | awk '$1 == "node1" && $3 == 0 && $4 == "up" && $5 == 100 && $6 >= 1.5 && $6 <= 2.5 {f = 1}
    END {exit !f}'
ok $? "rail0: rail 0, up, 100 Gb/s, about 2 Gb/s sent: $(last | grep ' rail0 ')"
last | grep -Eq '^! node1 +rail1 +1 .*errors rising: rx_errors \+'; ok $? "rail1: red (!) with its rising counter named"
last | grep -Eq '^  node1 +spare +- +disabled '; ok $? "an interface nobody brought up is shown, not judged"
grep -q 'evil\\x1b\[31mred' "$TMP/batch"; ok $? "a hostile interface name is shown as \\x1b"
! grep -q $'\033' "$TMP/batch"; ok $? "...and no escape byte reaches the output"
head -1 "$TMP/batch" | grep -q 'errors n/a'; ok $? "the first refresh: rates and errors n/a"
"${TOP[@]}" --source netdev --sysfs-root "$TMP/sys" --batch -n 1 --view findings --node node1 >"$TMP/f"
grep -q 'no finding' "$TMP/f"; ok $? "findings view on one sample: no finding, said so"
"${TOP[@]}" --source netdev --sysfs-root "$TMP/sys" --batch -n 1 --view rails --node node1 >"$TMP/r"
grep -Eq '^  node1 +up +up' "$TMP/r"; ok $? "rails view: node1 up on rail0 and rail1$(grep -Eq '^  node1 +up +up' "$TMP/r" || { printf ': '; grep -v '^$' "$TMP/r" | tr '\n' '|' | head -c 400; })"
: >"$N/rail1/statistics/tx_bytes" # caught half-written
"${TOP[@]}" --source netdev --sysfs-root "$TMP/sys" --batch -n 1 --view rails --node node1 >"$TMP/r2"
grep -Eq '^\? node1 +up +up' "$TMP/r2"; ok $? "a counter that cannot be read keeps its port on its rail (marked ?)"
"${TOP[@]}" --source netdev --sysfs-root "$TMP/sys" --batch -n 1 --node node1 >"$TMP/p2"
grep -E ' rail1 ' "$TMP/p2" | grep -q 'counters not read'; ok $? "...and the port says its counters were not read: $(grep -E ' rail1 ' "$TMP/p2" | head -c 160)"
echo 0 >"$N/rail1/statistics/tx_bytes"
"${TOP[@]}" --source netdev --sysfs-root "$TMP/sys" --batch -n 1 --view nvlink >"$TMP/nv"
grep -q 'NVLink: n/a, no NVIDIA driver' "$TMP/nv"; ok $? "NVLink view without a driver says why: $(grep NVLink: "$TMP/nv")"
"${TOP[@]}" --source netdev --sysfs-root "$TMP/nothing" --batch -n 1 >"$TMP/empty"
grep -q "cannot list $TMP/nothing/class/net" "$TMP/empty"; ok $? "an empty view says why"
for bad in "-d 0" "-n 0" "--source bogus" "--view bogus" "--sort bogus" "extra"; do
    "${TOP[@]}" $bad --batch -n 1 >/dev/null 2>"$TMP/err"
    is $? 2 "bad option '$bad': exit 2 ($(head -1 "$TMP/err"))"
done

# --- --follow: a railyard-fabric run directory, after its first round and at the end (the
# recorded demo-cluster run), a file caught half-written, a directory not written yet
if have_feature jansson; then
    F=$TMP/follow; mkdir -p "$F"
    jq '.links |= map(select(.round == 1)) | .rounds_done = 1 | .complete = false | .findings = []' \
        "$RAILYARD_FIXTURES/reports/demo-fabric/report.json" >"$F/results.json"
    "${TOP[@]}" --follow "$F" --batch -n 1 >"$TMP/f1"
    grep -q 'round 1/2, 2 links measured, 2 failed, in progress' "$TMP/f1"; ok $? "follow, round 1: the progress"
    grep -Eq '^  0 node1 +#\.\.$' "$TMP/f1"; ok $? "follow, round 1: node1 -> node2 measured on rail 0, the rest not yet (.)"
    grep -Eq '^ +0123$' "$TMP/f1"; ok $? "follow: the columns carry the node indexes"
    cp "$RAILYARD_FIXTURES/reports/demo-fabric/report.json" "$F/results.json"
    "${TOP[@]}" --follow "$F" --batch -n 1 >"$TMP/f2"
    grep -q 'round 2/2, 4 links measured, 4 failed, complete' "$TMP/f2"; ok $? "follow, the end: complete"
    grep -q '^  \. not measured' "$TMP/f2"; ok $? "follow, the end: '.' is not measured, no longer 'not yet'"
    grep -q 'findings: 3 fail' "$TMP/f2"; ok $? "follow: the run's three findings counted"
    "${TOP[@]}" --follow "$F" --batch -n 1 --view findings | grep -q 'FAIL  rail.cabling  *node4/rail1'
    ok $? "follow: the findings view lists them"
    head -c 300 "$RAILYARD_FIXTURES/reports/demo-fabric/report.json" >"$F/results.json"
    "${TOP[@]}" --follow "$F" --batch -n 1 >"$TMP/f3"; rc=$?
    grep -q "$F/results.json:[0-9]*:[0-9]*:" "$TMP/f3"; is "$rc $?" "0 0" "follow, a half-written file: said with its position, the console goes on"
    "${TOP[@]}" --follow "$TMP/not-yet" --batch -n 1 | grep -q "waiting for $TMP/not-yet/results.json"
    ok $? "follow, a run that has not written yet: waiting, said"
    "${TOP[@]}" --follow "$F" --source netdev --batch -n 1 >/dev/null 2>&1; is $? 2 "--follow with --source: exit 2"
else
    for i in 1 2 3 4 5 6 7 8 9 10; do skip "built without jansson"; done
fi

# --- a real node's RDMA ports (H100, sysfs capture)
if [ -d "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" ]; then
    mkdir -p "$TMP/h100/class"
    cp -r "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" "$TMP/h100/class/infiniband"
    "${TOP[@]}" --sysfs-root "$TMP/h100" --node gpu01 --batch -n 1 >"$TMP/h"
    is "$(grep -Ec '^  gpu01 +mlx5_[0-9]+:1 +- +ACTIVE +400 ' "$TMP/h")" 8 "H100 capture: 8 ports ACTIVE at 400 Gb/s"
    grep -q 'ports up 9/9' "$TMP/h"; ok $? "...and the bond: ports up 9/9"
else
    skip "no H100 sysfs capture"; skip "no H100 sysfs capture"
fi

# --- valgrind over five refreshes
if command -v valgrind >/dev/null && ! ldd "$RAILYARD" 2>/dev/null | grep -q libasan; then
    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
        "${TOP[@]}" --source netdev --sysfs-root "$TMP/sys" --batch -n 5 -d 0.1 >/dev/null 2>"$TMP/vg"
    is $? 0 "valgrind: -n 5 clean $(grep -m1 '==' "$TMP/vg")"
else
    skip "valgrind is not installed, or this is a sanitizer build"
fi

# --- in tmux against ibsim
skip_rest() { for i in $(seq 1 33); do skip "$1"; done; done_testing; exit 0; }
have_feature ncursesw || skip_rest "built without ncursesw"
have_feature ibnetdisc || skip_rest "built without libibnetdisc/libibmad"
have_feature yaml || skip_rest "built without libyaml: the rig's maps need it"
for p in tmux ibsim opensm timeout; do command -v $p >/dev/null || skip_rest "$p is not installed"; done
ls /usr/lib/*/umad2sim/libumad2sim.so >/dev/null 2>&1 || skip_rest "libumad2sim.so is not installed"
export IBSIM_FABRIC_DIR=$TMP/sim
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:suppressions=$RAILYARD_SRCDIR/tests/asan.supp
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$RAILYARD_SRCDIR/tests/lsan.supp
TM=(tmux -L "railyard-test-$$")
trap '"${TM[@]}" kill-server >/dev/null 2>&1; "$SIM" stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
"$SIM" gen --hosts 4 --rails 4 --map "$TMP/rail.map" --move gpu03/mlx5_1=leaf-r2-0 \
    --desc "gpu04/mlx5_2=$(printf 'gpu04 evil\033[31m')" >"$TMP/f.net" 2>"$TMP/gen.err"
"$SIM" start "$TMP/f.net" >"$TMP/start.log" 2>&1 || { sed 's/^/# /' "$TMP/start.log"; skip_rest "ibsim did not start"; }
screen() { "${TM[@]}" capture-pane -p -t top; }
screen_e() { "${TM[@]}" capture-pane -p -e -t top; }
wait_for() { # wait_for SECONDS PATTERN: the screen shows PATTERN
    local end=$((SECONDS + $1))
    while [ $SECONDS -le "$end" ]; do screen | grep -Eq "$2" && return 0; sleep 0.2; done
    return 1
}
# what a railyard watch that has ended left: its log and its state (the events view, e)
mkdir -p "$TMP/watch"
echo '{"event":"port.flapping","phase":"open","subject":"mlx5_1/1","first_s":1800000000,"last_s":1800000041,"figures":"3 flaps in 41 s (limit 2 in 300 s)","host":"gpu01"}' >"$TMP/watch/events.jsonl"
echo '{"schema_version":1,"host":"gpu01","updated_s":1800000041,"interval_s":1,"window_s":300,"watching":false,"ports":[],"events":[]}' >"$TMP/watch/state.json"
"${TM[@]}" new-session -d -s top -x 150 -y 70 \
    "$SIM run $RAILYARD top --source fabric --map $TMP/rail.map -d 1 --watch $TMP/watch 2>$TMP/top.err; echo EXIT=\$? >$TMP/top.exit; sleep 60"
wait_for 60 'refresh 2 '; ok $? "the console shows the fabric (refresh 2)"
screen | grep -q 'ports up 48/48'; ok $? "header: ports up 48/48"
"$SIM" ramp leaf-r1-0:2:SymbolErrorCounter --step 5 --count 12 --every 0.25 &
RAMP=$!
# one capture, colours and text together (two captures can straddle a refresh); the ramp takes
# 3 s, a busy host may delay it: the bound is the host's, the test is that it turns red
red=1 end=$((SECONDS + 40))
while [ $SECONDS -le $end ]; do
    screen_e | grep -E 'leaf-r1-0 +2 ' | grep -q $'\033\\[31m' && { red=0; break; }
    sleep 0.2
done
ok $red "the erroring switch port turns red: $(screen | grep -E 'leaf-r1-0 +2 ')"
screen | grep -Eq 'leaf-r1-0 +2 .*errors rising: SymbolErrorCounter \+'; ok $? "...with the rising counter named"
# the sort is by errors per second: the counter keeps rising while the keys go in (a slow build
# takes longer than the first ramp to draw four sorts)
wait "$RAMP"
"$SIM" ramp leaf-r1-0:2:SymbolErrorCounter --step 61 --count 120 --every 0.25 &
RAMP=$!
for i in 1 2 3 4; do "${TM[@]}" send-keys -t top s; done
wait_for 30 'sort errors'; ok $? "s four times: sorted by errors"
end=$((SECONDS + 25))
while first=$(screen | awk '/^NODE/ {getline; print; exit}'); [ $SECONDS -le $end ]; do
    echo "$first" | grep -Eq '^leaf-r1-0 +2 ' && break
    sleep 0.2
done
echo "$first" | grep -Eq '^leaf-r1-0 +2 '; ok $? "...the erroring port first: $first"
kill "$RAMP" 2>/dev/null; wait "$RAMP" 2>/dev/null
"${TM[@]}" send-keys -t top / g p u 0 2 Enter
wait_for 30 'filter: gpu02'; ok $? "/ gpu02: the filter is shown"
# the rows: the screen is redrawn while it is captured (seen in CI: the filter line and a row of
# the unfiltered list in one capture), so the capture is taken again until it settles (10 s)
rows() { screen | awk '/^NODE/ {p = 1; next} p && NF' | grep -v '^\[' | awk '{print $1}' | sort -u | tr '\n' ' '; }
want="gpu02 leaf-r0-0 leaf-r1-0 leaf-r2-0 leaf-r3-0 "
end=$((SECONDS + 10))
while got=$(rows); [ "$got" != "$want" ] && [ $SECONDS -le $end ]; do sleep 0.2; done
is "$got" "$want" "...only gpu02's ports and the leaf ports facing it"
# traffic: the leaf port facing gpu02's rail-1 HCA sends (its 64-bit XmitData rises); the HCA's
# data counters are read at that leaf port, so the HCA receives it and sends nothing
# the ramp runs until the check ends (a busy host can make a refresh slower than the ramp's
# steps: a short ramp could end before the console's rate saw it); the first screen that shows
# the leaf port sending is the one judged, both rows from one capture
"$SIM" ramp leaf-r1-0:2:PortCountersExtended.PortXmitData --step 50000000 --count 400 --every 0.25 &
RAMP=$!
hca="" leaf="" end=$((SECONDS + 40))
while [ $SECONDS -le $end ]; do
    cap=$(screen)
    hca=$(echo "$cap" | grep -E '^gpu02 +mlx5_1:1 ') leaf=$(echo "$cap" | grep -E '^leaf-r1-0 +2 ')
    echo "$leaf" | awk '{exit !($6 > 1)}' && break
    sleep 0.2
done
awk -v l="$(echo "$leaf" | awk '{print $6}')" -v rx="$(echo "$hca" | awk '{print $7}')" \
    -v tx="$(echo "$hca" | awk '{print $6}')" 'BEGIN {exit !(l > 1 && rx == l && tx < 0.1)}'
ok $? "pushed traffic: what leaf-r1-0:2 sends, gpu02's rail-1 HCA receives ($(echo "$hca" | awk '{print "TX", $6, "RX", $7}'); leaf TX $(echo "$leaf" | awk '{print $6}'))"
kill "$RAMP" 2>/dev/null; wait "$RAMP" 2>/dev/null
"${TM[@]}" send-keys -t top / C-u BSpace BSpace BSpace BSpace BSpace Enter r
wait_for 30 'rail0 +rail1'; ok $? "r: the rails view"
screen | grep -Eq '^gpu03 +up +X>r2 +up +up'; ok $? "...gpu03's rail-1 port marked X>r2 (on a rail-2 leaf)"
# the NVLink view's peer probe: without a driver there is no GPU to select, and it says why
"${TM[@]}" send-keys -t top n
wait_for 30 'P peer-probe the GPU pair'; ok $? "n: the NVLink view, P named in its footer"
"${TM[@]}" send-keys -t top P
wait_for 30 'P: no GPU to select: NVLink: n/a, no NVIDIA driver'
ok $? "P without a driver: no GPU to select, and why: $(screen | grep -m1 -o 'P: no GPU.*' | cut -c1-80)"
"${TM[@]}" send-keys -t top e
wait_for 30 '2027-01-15T08:00:41Z +port.flapping +open +mlx5_1/1 +3 flaps in 41 s'
ok $? "e: the events view, the watch's event with its time"
screen | grep -q 'railyard watch: not running (its state was last updated at 2027-01-15T08:00:41Z, when it ended)'
ok $? "...and the watch's status: $(screen | grep -m1 -o 'railyard watch: .*' | cut -c1-90)"
"${TM[@]}" send-keys -t top p
# the ports view again, with gpu04's rail-2 row in it (the header alone can come a refresh
# before the rows under a busy build); the escape is shown as text and never reaches the terminal
wait_for 30 'HCA:PORT' && wait_for 30 'evil'
screen | grep -q 'evil\\x1b\[31m' && ! screen_e | grep -q $'evil\033\\[31m'
evil=$?
ok $evil "a hostile NodeDescription is shown inert: $(screen | grep -m1 -o 'evil[^ ]*')"
[ $evil = 0 ] || screen | sed 's/^/# screen: /'
"${TM[@]}" resize-window -t top -x 50 -y 12; sleep 1.5
"${TM[@]}" resize-window -t top -x 150 -y 70; sleep 1.5
wait_for 30 'ports up 48/48'; ok $? "resized to 50x12 and back: still drawing"
"${TM[@]}" send-keys -t top q
for i in $(seq 1 300); do [ -f "$TMP/top.exit" ] && break; sleep 0.1; done
is "$(cat "$TMP/top.exit" 2>/dev/null)" "EXIT=0" "q: exit 0"
"${TM[@]}" kill-session -t top
# SIGTERM: the terminal is given back (the shell's next line shows on the normal screen)
rm -f "$TMP/top.exit"
"${TM[@]}" new-session -d -s top -x 120 -y 40 \
    "sh -c 'echo \$\$ >$TMP/top.pid; exec $SIM run $RAILYARD top --source fabric -d 1'; echo EXIT=\$? >$TMP/top.exit; echo restored; sleep 60"
# a loaded host slows ibsim, and with it discovery and each sweep: the waits are generous,
# and the signal is sent once the console has drawn twice (not in the middle of discovery)
wait_for 120 'refresh 2 '; ok $? "the console draws the fabric again (refresh 2) before the signal"
! screen | grep -q ibwarn; ok $? "what libibmad writes to stderr does not reach the drawn screen"
kill -TERM "$(cat "$TMP/top.pid")" 2>/dev/null
for i in $(seq 1 900); do [ -f "$TMP/top.exit" ] && break; sleep 0.1; done
[ -f "$TMP/top.exit" ] || screen | tail -5 | sed 's/^/# screen: /'
is "$(cat "$TMP/top.exit" 2>/dev/null)" "EXIT=0" "SIGTERM: a clean exit"
wait_for 30 '^restored'; ok $? "...and the terminal restored (the shell's line is on the normal screen)"
screen | grep -q 'railyard top: said while the console ran:'; ok $? "...and is shown once the terminal is given back"
# the fabric stops answering (ibsim ends): the console says so, and the rates it had are n/a
"$SIM" run "$RAILYARD" top --source fabric --map "$TMP/rail.map" --batch -d 1 -n 7 >"$TMP/gone" 2>/dev/null &
TOP=$!
for i in $(seq 1 600); do grep -q 'refresh 3 ' "$TMP/gone" && break; sleep 0.1; done
"$SIM" stop >/dev/null 2>&1
wait "$TOP"
is "$?" 0 "the fabric gone: the console keeps refreshing to -n 7 and exits 0"
last_screen=$(awk '/^railyard top/ {s = ""} {s = s $0 "\n"} END {printf "%s", s}' "$TMP/gone")
printf '%b' "$last_screen" | grep -q 'SOURCE NOT READ: no port answered a PMA counter query'
ok $? "...its header says the source was not read: $(printf '%b' "$last_screen" | grep -o 'SOURCE NOT READ.*' | head -c 90)"
is "$(printf '%b' "$last_screen" | grep -Ec ' n/a +n/a +n/a  ')" 48 "...and the rates of all 48 ports are n/a, not the last values"

# --- a larger fabric (64 hosts x 8 rails, 1056 cabled ports): past --read-all ports a refresh
# reads the rows around the selection, the ports judged not ok and a sixteenth of the rest in
# turn; the console's first screen comes from the last discovery's cache
rm -rf "$TMP/sim"
"$SIM" gen --hosts 64 --rails 8 --map "$TMP/big.map" >"$TMP/big.net" 2>"$TMP/gen.err"
"$SIM" start "$TMP/big.net" >"$TMP/start.log" 2>&1 || { sed 's/^/# /' "$TMP/start.log"; for i in $(seq 1 10); do skip "ibsim did not start the 64 x 8 fabric"; done; done_testing; exit 0; }
rated() { # rated FILE N: the rows of refresh N with a TX rate
    awk -v n="$2" '$0 ~ "refresh " n " " {p = 1; next} /^railyard top/ {p = 0} p' "$1" |
        grep -E '^. (gpu|leaf|spine)' | awk '$6 != "n/a"' | wc -l
}
"$SIM" run "$RAILYARD" top --source fabric --map "$TMP/big.map" --batch -n 2 -d 0.2 >"$TMP/all2" 2>/dev/null
is "$(rated "$TMP/all2" 2)" 1056 "1056 ports (under 4096): every one read at each refresh, rates at refresh 2"
"$SIM" run "$RAILYARD" top --source fabric --map "$TMP/big.map" --batch -n 33 -d 0.2 --read-all 100 >"$TMP/share" 2>/dev/null
# refresh 1 has no rows to select; from refresh 2 the rows around the selection are read at every
# refresh, so at refresh 3 they (and no more than a few turns' cables) have rates
r3=$(rated "$TMP/share" 3) r17=$(rated "$TMP/share" 17) r33=$(rated "$TMP/share" 33)
[ "$r3" -gt 0 ] && [ "$r3" -lt 528 ]; ok $? "--read-all 100: at refresh 3 only the ports read twice have rates ($r3 of 1056)"
[ "$r17" -gt "$r3" ] && [ "$r17" -lt 1056 ]; ok $? "...at refresh 17 more, not all: a sixteenth a refresh ($r17 of 1056)"
is "$r33" 1056 "...by refresh 33 every port was read twice in turn"
# an erroring port far down the list (not on the first screen): found in turn, then read at
# every refresh. The ramp outlasts the console (it is ended by its PID after), and a refresh
# spans many of its steps: on a busy host the ramp's steps come late, and a refresh of 0.25 s
# often saw none (the port rightly back to ok on the last screen).
"$SIM" ramp leaf-r7-0:40:SymbolErrorCounter --step 7 --count 3000 --every 0.1 &
RAMP=$!
"$SIM" run "$RAILYARD" top --source fabric --map "$TMP/big.map" --batch -n 20 -d 1.5 --read-all 100 >"$TMP/far" 2>/dev/null
kill "$RAMP" 2>/dev/null; wait "$RAMP" 2>/dev/null
last=$(awk '/^railyard top/ {s = ""} {s = s $0 "\n"} END {printf "%s", s}' "$TMP/far")
printf '%b' "$last" | grep -Eq '^! leaf-r7-0 +40 .*errors rising: SymbolErrorCounter'
ok $? "an erroring port past the first screen is found in turn: $(printf '%b' "$last" | grep -E '^. leaf-r7-0 +40 ' | head -c 120)"
# the cache: the first console saves its discovery; the next draws its first screen from it,
# then discovers live; a batch run and a damaged cache never show a cached fabric
FC=$TMP/fabric.cache
# each console on a tmux server of its own: a server being killed can refuse the next session
"${TM[@]}" kill-server >/dev/null 2>&1
TM=(tmux -L "railyard-test-$$-cache1")
"${TM[@]}" new-session -d -s top -x 150 -y 50 "$SIM run $RAILYARD top --source fabric --map $TMP/big.map -d 1 --fabric-cache $FC -n 3 2>$TMP/cache.err; sleep 60"
wait_for 60 'refresh 1 '; [ -s "$FC" ]; saved=$?
ok $saved "the console saved its discovery to --fabric-cache"
[ $saved -eq 0 ] || { screen | head -3 | sed 's/^/# screen: /'; grep -v ibwarn "$TMP/cache.err" | head -3 | sed 's/^/# stderr: /'; ls -la "$TMP" | sed 's/^/# /'; }
"${TM[@]}" kill-server >/dev/null 2>&1
TM=(tmux -L "railyard-test-$$-cache2")
"${TM[@]}" new-session -d -s top -x 150 -y 50 "$SIM run $RAILYARD top --source fabric --map $TMP/big.map -d 1 --fabric-cache $FC -n 4 2>/dev/null; sleep 60"
wait_for 60 'discovery cached .*ports up 1056/1056'; ok $? "the next console's first screen: the cached discovery, 1056 ports"
wait_for 60 'live from .*ports up 1056/1056'; ok $? "...then the live discovery: $(screen | head -1 | cut -c1-100)"
"${TM[@]}" kill-server >/dev/null 2>&1
"$SIM" run "$RAILYARD" top --source fabric --map "$TMP/big.map" --batch -n 1 --fabric-cache "$FC" >"$TMP/b1" 2>/dev/null
grep -q 'live from' "$TMP/b1" && ! grep -q 'cached' "$TMP/b1"; ok $? "--batch never shows the cached discovery"
head -c 4096 /dev/urandom >"$FC"
TM=(tmux -L "railyard-test-$$-cache3")
"${TM[@]}" new-session -d -s top -x 150 -y 50 "$SIM run $RAILYARD top --source fabric --map $TMP/big.map -d 1 --fabric-cache $FC -n 2 2>/dev/null; sleep 60"
wait_for 60 'refresh 1 '; screen | head -1 | grep -q 'live from .*ports up 1056/1056'
ok $? "a damaged cache: the first screen is the live discovery"
"${TM[@]}" kill-server >/dev/null 2>&1
done_testing
