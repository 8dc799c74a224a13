#!/bin/bash
# railyard-fabric on the demo cluster (network namespaces, shaped veth rails, Open MPI): each
# injected fault alone and all together name exactly the culprits; a killed rank is named and
# the others finish; neighbor localizes a bad port on 8 nodes in at most 3 measuring rounds,
# then the default spread ring measures the nodes 4 apart.
. "$RAILYARD_SRCDIR/tests/lib.sh"
demo_rig
owner=
unmarked=
cleanup() {
    [ -n "$owner" ] && kill "$owner" 2>/dev/null
    [ -n "$unmarked" ] && ip netns del node1 2>/dev/null
    RAILYARD_DEMO_STATE=$TMP/left "$DEMO" down >/dev/null 2>&1
    "$DEMO" down >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT
RATE=200mbit

up() { DEMO_QUIET=1 "$DEMO" up --rate $RATE "$@" >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log" | sed 's/^/# /'; return 1; }; }
gone() { # namespaces, their /etc/netns files and their marks
    for n in "$@"; do [ ! -e "/run/netns/$n" ] && [ ! -e "/etc/netns/$n" ] && [ ! -e "/run/railyard-demo-rigs/$n" ] || return 1; done
}

# reaping: a rig whose owner runs is kept, one whose owner ended is removed, an unmarked
# namespace is never touched
sleep 600 &
owner=$!
RAILYARD_DEMO_OWNER=$owner RAILYARD_DEMO_STATE=$TMP/left up --nodes 2 --rails 1
ok $? "a rig owned by a running process (pid $owner) up"
"$DEMO" reap 2>"$TMP/reap"
[ -e /run/netns/node1 ] && [ -e /run/netns/rydemo-sw ] && [ ! -s "$TMP/reap" ]
ok $? "reap keeps a rig whose owner runs"
DEMO_QUIET=1 "$DEMO" up --nodes 2 --rails 1 >"$TMP/up2.log" 2>&1
is "$?:$(grep -c "belongs to the demo cluster of process $owner" "$TMP/up2.log")" "2:1" \
   "up refuses namespaces of another live rig and names its owner"
kill "$owner"
wait "$owner" 2>/dev/null
owner=
"$DEMO" reap 2>"$TMP/reap"
gone node1 node2 rydemo-sw rydemo-head && [ ! -e "$TMP/left" ] && ! grep -q " $TMP/left/" /proc/mounts
ok $? "reap removes the rig of an owner that ended: namespaces, marks, state and mounts"
grep -q "left over by a run that ended: .*node1" "$TMP/reap"
ok $? "reap says what it removed"
ip netns add node1 && unmarked=1
DEMO_QUIET=1 "$DEMO" up --nodes 2 --rails 1 >"$TMP/up3.log" 2>&1
is "$?:$(grep -c "node1 exists that is not ours" "$TMP/up3.log")" "2:1" "up refuses a namespace node1 it did not make"
"$DEMO" reap 2>/dev/null
[ -e /run/netns/node1 ]
ok $? "reap leaves an unmarked namespace alone"
ip netns del node1 && unmarked=
gone rydemo-sw rydemo-head
ok $? "a refused up leaves nothing behind"

fabric() { # run railyard-fabric on the cluster; status in $rc, results in $TMP/run/results.json
    rm -rf "$TMP/run"
    "$DEMO" run -- "$FABRIC" --map "${MAP:-$TMP/demo.map}" -d 1 -o "$TMP/run" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
# the mpi transport: MPI messages between the two ranks, each rank's MPI traffic on its own rail
fabric_mpi() {
    rm -rf "$TMP/run"
    "$DEMO" run --mpi-rails -- "$FABRIC" --map "${MAP:-$TMP/demo.map}" -d 1 -o "$TMP/run" \
        --transport mpi --msg-size 1M "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
fails() { jq -r '[.findings[] | select(.severity != "ok") | "\(.check) \(.subject)"] | join(";")' "$TMP/run/results.json"; }
# is, and where it fails the run's links with their hosts' figures (what a busy host did)
is_run() {
    is "$@"
    [ "$1" = "$2" ] ||
        jq -r '.links[]? | "# round \(.round) \(.from)->\(.to)/rail\(.rail): \(if .ok then "\(.bw_gbps) Gb/s" else .error end), wait \(.wait_from)/\(.wait_to), pressure \(.pressure_from)/\(.pressure_to), cpu \(.cpu_from)/\(.cpu_to)"' \
            "$TMP/run/results.json" 2>/dev/null
}
# the degraded port NODE/railRAIL (node2/rail1 unless named) named: as the port; or, where a link
# of that port was host-limited (not judged: a starved host, railyard-fabric(1) "Busy hosts"), as
# its slow pairs alone, since the port is then seen through fewer partners. Anything else named is
# printed
degraded() { # [NODE RAIL]
    local f n=${1:-node2} r=${2:-1}
    f=$(fails)
    if [ "$f" = "link.bandwidth $n/rail$r" ] ||
        { [ -n "$f" ] && ! echo "$f" | tr ';' '\n' | grep -Evq "^link\.path (node[0-9]+<->$n|$n<->node[0-9]+)/rail$r\$" &&
            jq -r '.not_judged[]?' "$TMP/run/results.json" | grep -Eq "^($n->node[0-9]+|node[0-9]+->$n)/rail$r: .*host-limited"; }; then
        echo named
    else
        echo "$f / not judged: $(jq -r '[.not_judged[]?] | join("; ")' "$TMP/run/results.json" | head -c 300)"
    fi
}

up --nodes 4 --rails 2; ok $? "demo cluster 4 x 2 up"
"$DEMO" map >"$TMP/demo.map"
"$RAILYARD" map validate "$TMP/demo.map" >/dev/null 2>&1 || ! have_feature yaml
ok $? "the demo cluster's map validates"
fabric
is $rc 0 "healthy cluster: exit 0"
is "$(fails)" "" "healthy cluster: no finding"
[ -z "$(fails)" ] ||
    jq -r '.links[] | "# \(.from)->\(.to)/rail\(.rail): \(.bw_gbps) Gb/s, wait \(.wait_from)/\(.wait_to), pressure \(.pressure_from)/\(.pressure_to)"' \
        "$TMP/run/results.json"
if [ -r /proc/pressure/cpu ]; then
    jq -e '[.links[] | .pressure_from, .pressure_to] | all(type == "number" and . >= 0 and . <= 1)' \
        "$TMP/run/results.json" >/dev/null
    ok $? "each link carries its hosts' CPU pressure over the round"
else
    jq -e '[.links[] | .pressure_from, .pressure_to] | all(. == null)' "$TMP/run/results.json" >/dev/null
    ok $? "a kernel without /proc/pressure/cpu: no pressure figures"
fi
is "$(jq -r '.complete, .rounds_done, (.links | length), ([.links[].ok] | all)' "$TMP/run/results.json" | tr '\n' ' ')" \
   "true 2 8 true " "healthy: 2 rounds, 8 links, all measured"
jq -e '[.links[].bw_gbps] | min > 0.17 and max < 0.21' "$TMP/run/results.json" >/dev/null
ok $? "goodput near the 200 Mbit/s line rate on every link"
[ -s "$TMP/run/cmdline" ] && [ -s "$TMP/run/map.yaml" ]; ok $? "run directory keeps the command line and the map"
grep -q -- '-> pass$' "$TMP/out"; ok $? "rank 0 prints the verdict"
fabric_mpi
is_run "$rc $(fails)" "0 " "--transport mpi, healthy cluster: exit 0, no finding"
jq -e '.transport == "mpi" and (.links | length) == 8 and ([.links[].bw_gbps] | min > 0.17 and max < 0.21)' \
    "$TMP/run/results.json" >/dev/null
ok $? "--transport mpi: the 8 links measured near the 200 Mbit/s rail rate (MPI traffic on the rails)"
fabric --bidir
is "$rc $(jq '[.links[] | select(.ok)] | length' "$TMP/run/results.json")" "0 16" \
   "--bidir: both directions of the 8 links measured, pass"
jq -e '[.links[] | select(.from == "node2" and .to == "node1")] | length == 2' "$TMP/run/results.json" >/dev/null
ok $? "--bidir: the reverse direction is a link of its own"

up --nodes 4 --rails 2 --degrade 2:1:50mbit; fabric
is_run "$rc $(degraded)" "1 named" "degraded rail alone: link.bandwidth node2/rail1 ($(fails))"
fabric_mpi
is_run "$rc $(degraded)" "1 named" "--transport mpi: the degraded rail named alike ($(fails))"
# railyard top on the degraded cluster: the active test (key t) in tmux measures node1's rail 1
# against node2, whose rail-1 port is shaped to 50 Mbit/s, while the screen keeps refreshing;
# --follow shows a railyard-fabric run's pair matrix filling in round by round
if have_feature ncursesw && have_feature jansson && command -v tmux >/dev/null; then
    TM=(tmux -L "railyard-t3001-$$")
    "${TM[@]}" new-session -d -s top -x 160 -y 30 \
        "ip netns exec node1 $RAILYARD top --source netdev --netdev 'rail*' --node node1 --map $TMP/demo.map -d 1 --test-timeout 170 --test-cmd '$DEMO run -- $FABRIC --map $TMP/demo.map --schedule custom --pairs {pairs} -d 1 --json'; sleep 30"
    tscreen() { "${TM[@]}" capture-pane -p -t top; }
    for i in $(seq 1 300); do tscreen | grep -q 'refresh 2 ' && break; sleep 0.2; done
    "${TM[@]}" send-keys -t top Down t
    # the test's own run takes ~10 s; a busy host or a sanitizer build (four ranks under ASan
    # beside a QEMU guest: more than top's default 60 s) stretches it: the bounds are generous,
    # the wait ends when the line shows
    for i in $(seq 1 900); do tscreen | grep -q 'Gb/s (rail reference' && break; sleep 0.2; done
    line=$(tscreen | grep '^test node1 rail 1')
    echo "$line" | grep -Eq '^test node1 rail 1 <-> node2: 0\.0[3-6][0-9]* Gb/s \(rail reference 0\.1[5-9][0-9]* Gb/s: LOW\)'
    ok $? "top: the active test measures the degraded rail low: $line"
    r1=$(tscreen | grep -o 'refresh [0-9]*' | awk '{print $2}')
    for i in $(seq 1 300); do
        r2=$(tscreen | grep -o 'refresh [0-9]*' | awk '{print $2}')
        [ "${r2:-0}" -gt "${r1:-0}" ] && break
        sleep 0.1
    done
    [ "${r2:-0}" -gt "${r1:-0}" ]; ok $? "top: the screen kept refreshing ($r1 -> $r2)"
    "${TM[@]}" send-keys -t top q; sleep 0.5
    "${TM[@]}" kill-server >/dev/null 2>&1
    rm -rf "$TMP/follow"
    "$DEMO" run -- "$FABRIC" --map "$TMP/demo.map" -d 1 --schedule all-pairs -o "$TMP/follow" --link-records binary >/dev/null 2>&1 &
    bg=$!
    # refreshes until the run has ended (then it is stopped): a busy host makes the run longer
    "$RAILYARD" top --follow "$TMP/follow" --batch -d 0.4 -n 1500 >"$TMP/follow.out" 2>&1 &
    tp=$!
    wait "$bg"
    # the run has ended: the console's next refresh shows it complete (a busy host delays it)
    for i in $(seq 1 600); do grep -q 'round 3/3, .* complete' "$TMP/follow.out" && break; sleep 0.1; done
    kill "$tp" 2>/dev/null; wait "$tp" 2>/dev/null
    grep -q 'waiting for\|round [12]/3' "$TMP/follow.out"; ok $? "top --follow: the run seen before its end"
    grep -q 'round 3/3, 12 links measured, 0 failed, complete' "$TMP/follow.out"; ok $? "top --follow: ...and complete, 12 links"
    awk '/complete/ {p = 1} p && /^! +[0-9]+ node2 / {print; exit}' "$TMP/follow.out" | grep -q -- '-'
    ok $? "top --follow: node2's row of rail 1 marked low (-) in the matrix"
else
    for i in 1 2 3 4 5; do skip "no ncursesw, jansson or tmux"; done
fi
# the map's severity overrides apply to fabric findings too
sed 's/^nodes:/severity: {link.bandwidth: warn}\nnodes:/' "$TMP/demo.map" >"$TMP/warn.map"
MAP=$TMP/warn.map fabric
is "$rc $(jq -r '[.findings[]|select(.severity=="warn")|.subject]|join(",")' "$TMP/run/results.json")" \
   "0 node2/rail1" "severity override: the degraded rail is a warning, exit 0"
# the faults one by one and together, named exactly: with --retest, as on any host that may be
# busy (a busy host can slow a healthy link by more than its figures show; the retest confirms
# each culprit against a node proven good and measures a doubtful pair again: railyard-fabric(1),
# "Busy hosts")
up --nodes 4 --rails 2 --down 3:0; fabric --retest
is_run "$rc $(fails)" "1 nic.port.state node3/rail0" "rail down alone: nic.port.state node3/rail0"
up --nodes 4 --rails 2 --miscable 4:1:0; fabric --retest
is_run "$rc $(fails)" "1 rail.cabling node4/rail1" "miscabled rail alone: rail.cabling node4/rail1"
up --nodes 4 --rails 2 --degrade 2:1:50mbit --down 3:0 --miscable 4:1:0; fabric --retest --culprits "$TMP/culprits3"
is_run "$rc $(fails)" "1 link.bandwidth node2/rail1;nic.port.state node3/rail0;rail.cabling node4/rail1" \
   "all three faults together: exactly the three culprits"
# each node drained for its own failure, the Slurm reason naming that one (not the run's first)
is "$(awk '$1 == "drain" {print $2, $3, $4, $5, $6, $7}' "$TMP/culprits3" 2>&1 | tr '\n' ';')" \
   "node2 link.bandwidth railyard: fabric link.bandwidth rail1;node3 nic.port.state railyard: fabric nic.port.state rail0;node4 rail.cabling railyard: fabric rail.cabling rail1;" \
   "... the culprits file: each of the three drained with its own finding as the reason"
# --transport mpi with each rank's MPI on its rail: the ranks on the dead and the miscabled port
# reach no rank over MPI; their facts come through the launcher's PMIx server and their links
# fail unmeasured, so the same ports are named
if have_feature pmix; then
    fabric_mpi --start-timeout 90
    is_run "$rc $(fails)" "1 link.bandwidth node2/rail1;nic.port.state node3/rail0;rail.cabling node4/rail1" \
       "--transport mpi, MPI on the rails: the same three culprits"
    is "$(grep -o 'rank [0-9]* ([a-z0-9]*, rail [0-9], carrier [a-z]*) is running, but no MPI message' "$TMP/err" |
          cut -d' ' -f3-7 | sort | tr '\n' ' ')" \
       "(node3, rail 0, carrier down) (node4, rail 1, carrier up) " \
       "--transport mpi: rank 0 names the two ranks MPI cannot reach, with their carrier"
    jq -e '[.links[] | select((.error // "") | test("^not measured: rank [0-9]+ \\((node3, rail 0|node4, rail 1)\\) reaches no rank over MPI$"))]
           | length == 4 and all(.ok == false)' "$TMP/run/results.json" >/dev/null
    ok $? "--transport mpi: their 4 links failed unmeasured (not lost ranks: their nodes are judged)"
else
    for _ in 1 2 3; do skip "built without PMIx: a rank that MPI cannot reach stops an mpi run (exit 2)"; done
fi
# the same run with its links as records (railyard-report(5) LINK RECORDS), archived: the same
# culprits; the archive's renderings and history read the records, and match those of the
# run's links converted to objects
rm -rf "$TMP/arch-rec"
fabric --link-records binary --archive "$TMP/arch-rec" --latency-sweep 1
is_run "$rc $(fails)" "1 link.bandwidth node2/rail1;nic.port.state node3/rail0;rail.cabling node4/rail1" \
   "--link-records binary: the same three culprits"
jq -e '(has("links") | not) and .links_file.records == (.rounds_done * 4) and .links_file.missing == 0' \
    "$TMP/run/results.json" >/dev/null && [ -s "$TMP/run/links.bin.gz" ]
ok $? "--link-records binary: results.json names its $(jq .links_file.records "$TMP/run/results.json") records in links.bin.gz beside it"
AR=$(ls -d "$TMP"/arch-rec/*/*-fabric-* 2>/dev/null | head -1)
[ -n "$AR" ] && [ -s "$AR/links.bin.gz" ] && jq -e '.links_file.records > 0' "$AR/report.json" >/dev/null
ok $? "...and the archived run's report.json its own"
if have_feature libxml2 && have_feature sqlite; then
    grep -q 'node2/rail1' "$AR/junit.xml" && grep -q '^railyard_link_bandwidth_gbps{node="node2",rail="1"' "$AR/metrics.prom"
    ok $? "...its JUnit and textfile name the degraded port from the records"
    "$RAILYARD" history --archive "$TMP/arch-rec" --node node2 --rail 1 --json >"$TMP/hist.json"
    jq -e '[.[] | .bw_gbps] | length > 0 and max < 0.1' "$TMP/hist.json" >/dev/null
    ok $? "...history reads the degraded rail's links from the records"
    cp -r "$AR" "$TMP/arch-json"
    "$RAILYARD" report convert "$TMP/arch-json" --link-records json >/dev/null
    # recorded after the first round and again at the end: the rows of the first kept, the
    # second round's added, none twice
    is "$(jq length "$TMP/hist.json")" \
       "$(jq '[.links[] | select(.rail == 1 and (.from == "node2" or .to == "node2"))] | length' "$TMP/arch-json/report.json")" \
       "...every one of node2's rail-1 links in the history once"
    for fmt in text prometheus junit html; do
        "$RAILYARD" report show "$AR" --format $fmt >"$TMP/r1" 2>&1; "$RAILYARD" report show "$TMP/arch-json" --format $fmt >"$TMP/r2" 2>&1
        cmp -s "$TMP/r1" "$TMP/r2"; ok $? "...records and objects of this run: the same $fmt"
    done
else
    for i in 1 2 3 4 5 6 7; do skip "built without libxml2 or SQLite"; done
fi

# a rank killed in the middle of the run
up --nodes 4 --rails 2
start=$(date +%s)
fabric -d 3 --round-timeout 6 &
bg=$!
for _ in $(seq 100); do
    pid=$(for p in $(ip netns pids node3 2>/dev/null); do
              [ "$(cat /proc/$p/comm 2>/dev/null)" = railyard-fabric ] && echo $p; done | head -1)
    [ -n "$pid" ] && jq -e '.rounds_done >= 1' "$TMP/run/results.json" >/dev/null 2>&1 && break
    sleep 0.1
done
if [ -n "$pid" ]; then kill "$pid"; fi
wait $bg
rc=$?
rc=$(cat "$RAILYARD_DEMO_STATE/rank0.rc" 2>/dev/null || echo $rc)
took=$(( $(date +%s) - start ))
ok $([ -n "$pid" ]; echo $?) "a rank of node3 was killed mid-run"
is "$rc" 1 "killed rank: exit 1"
# the deadline is --round-timeout 6 per round plus the start; without it the run would hang
# for good: 120 s leaves a busy host room and still catches that
[ $took -le 120 ]; ok $? "the run ended within its deadline (${took}s)"
is "$(fails)" "rank.failed node3" "the node of the killed rank is named, nothing else"
jq -e '[.links[] | select(.round == 1 and .ok)] | length == 4' "$TMP/run/results.json" >/dev/null
ok $? "the results of the round before the kill are kept"

# 8 nodes: neighbor localizes one degraded port in at most 3 rounds
up --nodes 8 --rails 1 --degrade 6:0:50mbit
"$DEMO" map >"$TMP/demo.map"
fabric --schedule neighbor
is_run "$rc $(degraded node6 0)" "1 named" "8 nodes: the degraded port is named ($(fails))"
# the neighbours' links, and the default spread ring's: the nodes 4 apart (n/2), one round after
sp='def d: (.from | ltrimstr("node") | tonumber) - (.to | ltrimstr("node") | tonumber) | if . < 0 then -. else . end;'
jq -e "$sp"'([.links[] | select(d != 4) | .round] | unique | length) <= 3' "$TMP/run/results.json" >/dev/null
ok $? "...in at most 3 measuring rounds"
jq -e "$sp"'[.links[] | select(d == 4)] as $s | ($s | length) == 4 and ($s | all(.ok))
       and ([$s[].round] | unique | length) == 1
       and $s[0].round > ([.links[] | select(d != 4) | .round] | max)' "$TMP/run/results.json" >/dev/null
ok $? "...then the default spread ring: the 4 pairs of nodes 4 apart, measured in one round ($(jq -c "$sp"'[.links[] | select(d == 4) | "\(.from)-\(.to)"]' "$TMP/run/results.json"))"
# the default latency sweep on 8 nodes: rings of shifts 2 and 3, ping-pong only, beside them
jq -e '(.latency_links | length) > 0 and ([.latency_links[].round] | min) > ([.links[].round] | max)' \
    "$TMP/run/results.json" >/dev/null
ok $? "...then the default latency sweep's ping-pong rounds ($(jq '[.latency_links[].round] | unique | length' "$TMP/run/results.json"))"
fabric --schedule all-pairs
is_run "$rc $(degraded node6 0)" "1 named" "all-pairs names the same port ($(fails))"
is "$(jq .rounds_done "$TMP/run/results.json")" 7 "all-pairs: 7 rounds for 8 nodes"

# --retest: the suspect is retested against a known-good node; on a busy host a doubtful pair
# (an inconclusive link, or one low while both its ends are fine elsewhere) is measured again
# as itself, and the pair is judged by its best measurement (railyard-fabric(1), SCHEDULES)
up --nodes 4 --rails 1 --degrade 2:0:50mbit
"$DEMO" map >"$TMP/demo.map"
fabric --retest
is_run "$rc $(degraded node2 0)" "1 named" "--retest: the same culprit ($(fails))"
noretest=$(sed -n 's/^railyard-fabric: [^ ]* no retest of [0-9]* suspect nodes*: //p' "$TMP/err" | head -1)
# pairs of the first two rounds measured again (none on a quiet host)
again=$(jq '[.links[] | select(.round <= 2) | "\(.from) \(.to)"] as $first
            | [.links[] | select(.round > 2 and ("\(.from) \(.to)" | IN($first[])))] | length' "$TMP/run/results.json")
if [ "$(fails)" = "link.bandwidth node2/rail0" ] && [ -z "$noretest" ] && [ "$again" = 0 ]; then
    is "$(jq '.rounds_done' "$TMP/run/results.json")" 3 "--retest: one bisect round after the two of neighbor"
    jq -e '.links[] | select(.round == 3 and .from == "node4" and .to == "node2")' "$TMP/run/results.json" >/dev/null
    ok $? "--retest: node2 against node4, the node with only good links"
elif [ -n "$noretest" ]; then
    is "$noretest" "bisect needs at least one known-good node" \
        "--retest: no retest only where no node was known good (a link of each host-limited)"
    skip "--retest: no node was known good on this busy host, so nothing was retested"
else
    # a busy host: some pair of the first rounds was doubtful and measured again; node2 was
    # still retested against a node proven good
    jq -e '[.links[] | select(.round > 2 and (.from == "node2" or .to == "node2"))] | length > 0' \
        "$TMP/run/results.json" >/dev/null
    ok $? "--retest on a busy host: node2 retested ($again pairs of the first rounds measured again)"
    skip "--retest: a pair was measured again on this busy host, so the rounds are not 3"
fi

# bad input: exit 2 with a message; an unreachable peer is a finding, not bad input
cat >"$TMP/bad.map" <<MAP
node_types:
  three-rails:
    nics:
      - {name: rail0, netdev: rail0, rail: 0}
      - {name: rail1, netdev: rail1, rail: 1}
      - {name: rail2, netdev: rail2, rail: 2}
nodes:
  node[1-8]: three-rails
MAP
"$DEMO" run -- "$FABRIC" --map "$TMP/bad.map" -d 1 >"$TMP/out" 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 2 "a map whose rails do not match the ranks: exit 2"
grep -q "ranks per node, but node type" "$TMP/err"; ok $? "...saying why"
"$DEMO" run -- "$FABRIC" --frobnicate >/dev/null 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 2 "an unknown option: exit 2"
"$DEMO" run -- "$FABRIC" --duration -1 >/dev/null 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 2 "a negative duration: exit 2"
grep -q -- "--duration takes a positive number, not '-1'" "$TMP/err"; ok $? "...naming the option"
"$DEMO" run -- "$FABRIC" --transport verbs --qp-timeout 32 >/dev/null 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 2 "an ACK timeout out of range: exit 2"
grep -q -- "--qp-timeout takes 1 to 31, not '32'" "$TMP/err"; ok $? "...naming the option and its range"
"$DEMO" run -- "$FABRIC" --schedule custom >/dev/null 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 2 "custom schedule without --pairs: exit 2"
printf 'node1 node9\n' >"$TMP/pairs"
"$DEMO" run -- "$FABRIC" --map "$TMP/demo.map" --schedule custom --pairs "$TMP/pairs" >/dev/null 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 2 "a pair file naming an unknown node: exit 2"
grep -q "pairs:1: 'node1 node9': no such node" "$TMP/err"; ok $? "...naming file and line"
# --- archived runs (railyard-report(5)): a healthy run, then one with a degraded rail: report diff
# names the fault; the history has both; a run cut short leaves a partial report and a history row
ARCH=$TMP/arch
up --nodes 4 --rails 2; "$DEMO" map >"$TMP/a.map"
"$DEMO" run -- "$FABRIC" --map "$TMP/a.map" -d 1 --archive "$ARCH" >/dev/null 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 0 "archived healthy run: exit 0"
up --nodes 4 --rails 2 --degrade 2:1:50mbit
"$DEMO" run -- "$FABRIC" --map "$TMP/a.map" -d 1 --archive "$ARCH" >/dev/null 2>"$TMP/err"
is "$(cat "$RAILYARD_DEMO_STATE/rank0.rc")" 1 "archived run with a degraded rail: exit 1"
runs=$(ls -d "$ARCH"/*/*-fabric-* 2>/dev/null | sort)
is "$(echo "$runs" | grep -c fabric)" 2 "two runs in the archive"
"$RAILYARD" report diff --archive "$ARCH" $(echo "$runs" | head -1) $(echo "$runs" | tail -1) >"$TMP/diff.out"
is $? 1 "report diff finds differences"
grep -q '^new      fail link.bandwidth *node2/rail1' "$TMP/diff.out"; ok $? "report diff names the new fault: $(head -1 "$TMP/diff.out")"
grep -Eq '^link     node[0-9]->node2/rail1 .*Gb/s \(-[0-9]+%\)' "$TMP/diff.out" ||
    grep -Eq '^link     node2->node[0-9]/rail1 .*Gb/s \(-[0-9]+%\)' "$TMP/diff.out"
ok $? "...and the links whose bandwidth fell"
if have_feature sqlite; then
    "$RAILYARD" history --archive "$ARCH" --node node2 --rail 1 --json >"$TMP/trend.json"
    is "$(jq '[.[].run] | unique | length' "$TMP/trend.json")" 2 "history: node2's rail-1 links in both runs"
    # the runs in time order (their ids start with the time): every link of the second below
    # half of every link of the first (200 -> 50 Mbit/s); two healthy runs do not pass this
    jq -e '(group_by(.run) | map([.[].bw_gbps])) as $g | ($g | length) == 2 and
           ($g[0] | min) > 2 * ($g[1] | max)' "$TMP/trend.json" >/dev/null
    ok $? "history: the bandwidth fell between them ($(jq -c '[group_by(.run)[] | [.[].bw_gbps] | max]' "$TMP/trend.json"))"
else
    skip "built without SQLite"; skip "built without SQLite"
fi
# a run killed mid-run (SIGTERM to the launcher): a readable report marked incomplete, a row
"$DEMO" run -- "$FABRIC" --map "$TMP/a.map" -d 3 --schedule all-pairs --archive "$TMP/arch2" >/dev/null 2>&1 &
bg=$!
for _ in $(seq 300); do
    rep=$(ls "$TMP"/arch2/*/*-fabric-*/report.json 2>/dev/null | head -1)
    [ -n "$rep" ] && jq -e '.rounds_done >= 1' "$rep" >/dev/null 2>&1 && break
    sleep 0.1
done
# stop_launcher PID: SIGTERM to the mpirun the background job PID started; its PID (empty: none)
stop_launcher() {
    local l
    l=$(pgrep -P "$1" mpirun; for c in $(pgrep -P "$1"); do pgrep -P "$c" mpirun; done)
    l=$(echo $l | awk '{print $1}')
    [ -n "$l" ] && kill -TERM "$l"
    wait "$1"
    echo "$l"
}
launcher=$(stop_launcher $bg)
ok $([ -n "$launcher" ] && [ -n "$rep" ]; echo $?) "the run was stopped after its first round"
jq -e '.complete == false and .rounds_done >= 1 and .run.complete == false' "$rep" >/dev/null
ok $? "the cut-short run's report.json is readable and marked incomplete"
"$RAILYARD" report show "$(dirname "$rep")" >"$TMP/partial.txt" 2>&1
grep -q '(incomplete)' "$TMP/partial.txt"; ok $? "report show says it is incomplete"
if have_feature sqlite; then
    "$RAILYARD" history --archive "$TMP/arch2" --json >"$TMP/h2.json"
    is "$(jq -r '.[0].complete' "$TMP/h2.json")" false "history has the run, incomplete"
else
    skip "built without SQLite"
fi
# a run stopped before its first round ended (as a preflight's deadline stops it): the report
# written at its start is there, readable and incomplete, not a folder without one
"$DEMO" run -- "$FABRIC" --map "$TMP/a.map" -d 20 --archive "$TMP/arch3" >/dev/null 2>&1 &
bg=$!
rep=
for _ in $(seq 150); do
    rep=$(ls "$TMP"/arch3/*/*-fabric-*/report.json 2>/dev/null | head -1)
    [ -n "$rep" ] && break
    sleep 0.1
done
r0=$(jq -r '.rounds_done' "$rep" 2>/dev/null)
launcher=$(stop_launcher $bg)
is "${rep:+found}:$r0:${launcher:+stopped}" "found:0:stopped" \
    "a run's report.json is written at its start, before its first round (of 20 s) ends"
jq -e '.complete == false and .rounds_done == 0 and .run.complete == false' "$rep" >/dev/null
ok $? "...and after SIGTERM it is still readable and marked incomplete"
"$RAILYARD" report show "$(dirname "$rep")" >"$TMP/partial0.txt" 2>&1
grep -q '(incomplete)' "$TMP/partial0.txt"; ok $? "report show reads it: $(head -1 "$TMP/partial0.txt")"
"$DEMO" down && gone node1 node2 node3 node4 rydemo-sw rydemo-head; ok $? "demo cluster down: namespaces, files and marks gone"
done_testing
