#!/bin/bash
# railyard-fabric at scale under SimGrid's SMPI (scripts/sim-cluster): 64 x 8 and 128 x 8
# simulated rail-optimized clusters, healthy and with one fault of each kind (a degraded port, a
# port down, a port on another rail's leaf, a slow spine), each named exactly, the spine as the
# spine layer's and no node's; and railyard-fabric keeps no mutable globals (SMPI runs every
# rank as a thread of one process).
. "$RAILYARD_SRCDIR/tests/lib.sh"
SIM=$RAILYARD_SRCDIR/scripts/sim-cluster
sim_rig t3002 jq objdump
export RAILYARD_SIM_BUILD=$TMP/simbuild
trap 'rm -rf "$TMP"' EXIT

# writable data of railyard-fabric (in build directory $1) that railyard's own objects define:
# objects in .data/.bss of the program, less the C runtime's and the libraries' (copy
# relocations of stdout, optind, MPI's predefined handles: undefined in railyard's objects)
globals() {
    local objs
    objs=$(find "$1" -name 'librailyard.a' -o -name '*railyard_fabric*.o' | tr '\n' ' ')
    # shellcheck disable=SC2086
    objdump -t $objs 2>/dev/null | grep -v '\*UND\*' | awk 'NF >= 5 {print $NF}' | sort -u >"$TMP/ours"
    # AddressSanitizer's own: the ODR indicators of the globals it instruments
    objdump -t "$1/railyard-fabric" | awk '$3 == "O" && $4 ~ /^\.(data|bss|tdata|tbss)$/ &&
        $NF !~ /^__(odr_)?asan/ {print $NF}' | sort -u | comm -12 - "$TMP/ours" | tr '\n' ' '
}
# the CUDA driver's entry points (fabric/cuda.c), filled once by dlopen: alike for every rank
is "$(globals "$(dirname "$FABRIC")" | sed 's/\bapi //')" "" "railyard-fabric: no writable globals of its own"

"$SIM" build >"$TMP/build.out" 2>&1
ok $? "railyard-fabric built with smpicc" || { sed 's/^/# /' "$TMP/build.out"; done_testing; exit; }
is "$(globals "$RAILYARD_SIM_BUILD")" "" "the SMPI build: no writable globals"

sim() { # sim-cluster with the rest of the arguments; status in $rc, the run kept in $TMP/run
    rm -rf "$TMP/run"
    "$SIM" --dir "$TMP/run" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ -s "$TMP/run/run/results.json" ] || { sed 's/^/# /' "$TMP/err" | tail -20; }
}
res() { echo "$TMP/run/run/results.json"; }
fails() { jq -r '[.findings[] | select(.severity != "ok") | "\(.severity) \(.check) \(.subject)"] | join(";")' "$(res)"; }

sim --nodes 64 --rails 8
is "$rc $(fails)" "0 " "64 x 8 healthy: exit 0, no finding"
jq -e '(.links | length) == 768 and ([.links[].bw_gbps] | min > 380 and max <= 400.001) and .complete' \
    "$(res)" >/dev/null
ok $? "64 x 8: 768 links, each near the 400 Gb/s of its NIC"
# the default spread ring: each node with the node 32 away, leaf 0 with leaf 1 by every spine
is "$(jq '[.links[] | select((.from | ltrimstr("n") | tonumber) - (.to | ltrimstr("n") | tonumber) | . == 32 or . == -32)] | length' "$(res)")" 256 \
   "...512 of the neighbours, 256 of the spread ring (32 pairs x 8 rails, across the leaves)"
grep -Eq '^sim: 64 nodes x 8 rails, 512 ranks, [0-9.e-]+ s simulated to the verdict, cpu_s [0-9.]+ .* peak_mb [0-9]+' "$TMP/out"
ok $? "sim-cluster prints the simulated time, the CPU time and the peak memory"

sim --nodes 64 --rails 8 --degrade 5:3:200
is "$rc $(fails)" "1 fail link.bandwidth n5/rail3" "a port at 200 Gb/s: link.bandwidth n5/rail3 alone"
# the collective phase at 64 x 8: every rail's all-reduce near its bound, and the degraded
# port's rail halved down to the port
sim --nodes 64 --rails 8 --degrade 5:3:200 -- --collectives allreduce --coll-size 64M --coll-groups rails
is "$rc $(fails)" "1 fail collective.busbw n5/rail3;fail link.bandwidth n5/rail3" \
   "collectives, a port at 200 Gb/s: collective.busbw and link.bandwidth name n5/rail3 alone"
jq -e '[.collectives.results[] | select(.purpose == "phase" and .rail != 3) | .ratio > 0.8 and .verdict == "ok" and .ranks == 64] | length == 7 and all' \
    "$(res)" >/dev/null
ok $? "... the seven other rails' all-reduce over 64 ranks reaches 80% of its bound: $(jq -c '[.collectives.results[] | select(.purpose == "phase") | .ratio * 1000 | floor / 1000]' "$(res)")"
is "$(jq -r '[.collectives.results[] | select(.purpose == "half") | .nodes | length] | join(",")' "$(res)")" "32,32,16,16,8,8,4,4,2,2" \
   "... rail 3 halved 64 -> 2 nodes, the halves side by side"
is "$(jq -r '[.collectives.results[] | select(.purpose == "pair") | .suspect // "control"] | join(",")' "$(res)")" "n5,n6,control" \
   "... then each suspect beside a good node, and two good nodes as the yardstick"
sim --nodes 64 --rails 8 --down 9:1
is "$rc $(fails)" "1 fail rail.cabling n9/rail1" \
   "a port down (no carrier in a simulation: it carries nothing by the deadline): n9/rail1 alone"
sim --nodes 64 --rails 8 --miscable 20:2:5 -- --latency-sweep 2
is "$rc $(fails)" "0 warn rail.cabling n20/rail2" \
   "a port on rail 5's leaf, latency sweep: rail.cabling n20/rail2 (a warning), nothing else"
jq -e '(.latency_links | length) > 0 and ([.latency_links[] | select(.ok)] | length) == (.latency_links | length)' \
    "$(res)" >/dev/null
ok $? "... the latency sweep's links are kept apart (latency_links)"
sim --nodes 64 --rails 8 --miscable 20:2:5
is "$rc $(fails)" "0 warn rail.cabling n20/rail2" \
   "the default screen (its latency sweep of 2): the port on rail 5's leaf named, nothing else"
is "$(jq '[.latency_links[] | select(.rail == 2 and (.from == "n20" or .to == "n20"))] | length' "$(res)")" 4 \
   "... by the sweep's four more peers of n20 (rings 2 and 3)"
sim --nodes 64 --rails 8 --miscable 20:2:5 -- --latency-sweep 0
is "$rc $(fails)" "0 " "--latency-sweep 0: two partners per port are too few to judge a leaf: no finding"
is "$(jq '.latency_links | length' "$(res)")" 0 "... and no latency link"
# a port on the other leaf of its own rail (leaf 1: nodes 33-64), and one on the boundary of
# its leaf (n32, whose neighbour n33 is on leaf 1): each named alone
sim --nodes 64 --rails 8 --other-leaf 20:2:1 --other-leaf 32:6:1
is "$rc $(fails)" "0 warn rail.cabling n20/rail2;warn rail.cabling n32/rail6" \
   "two ports on the other leaf of their own rail, one at the leaves' boundary: both named, nothing else"

sim --nodes 64 --rails 8 --slow-spine 1:100 -- --latency-sweep 2 --culprits "$TMP/culprits"
f=$(fails)
is "$f" "fail fabric.spine spine layer" \
   "a slow spine: fabric.spine (the spine layer) alone, its slow paths folded under it"
jq -e '.findings[] | select(.check == "fabric.spine") | .observed | test("^[0-9]+ slow paths, every one between two leaves")' \
    "$(res)" >/dev/null
ok $? "... which counts them: $(jq -r '.findings[] | select(.check == "fabric.spine") | .observed' "$(res)")"
is "$(jq '[.findings[] | select(.check == "link.path")] | length' "$(res)")" 0 \
   "... no link.path finding beside it (each slow path kept in the links)"
is "$(grep -c '^drain ' "$TMP/culprits" 2>/dev/null)" 0 "... no node to drain in the culprits"
[ "$rc" = 1 ]; ok $? "... exit 1: the fabric is faulty"
# the spine's ports at 100 Gb/s: each of its cables at a quarter (8 ports of 400 Gb/s a cable),
# the other spines' cables as built, and the spine no link of its own
cable() { sed -n "s/.*<link id=\"$1\" bandwidth=\"\([^\"]*\)\".*/\1/p" "$TMP/run/platform.xml"; }
is "$(cable r0-l0-s1) $(cable r7-l1-s1) $(cable r0-l0-s0) $(cable r7-l1-s3)" \
   "800Gbps 800Gbps 3200Gbps 3200Gbps" "... its cables, of every rail and leaf, at a quarter; the others' not"
grep -q 'id="spine' "$TMP/run/platform.xml"; is $? 1 "... and no spine link"

sim --nodes 128 --rails 8 --degrade 5:3:200 --down 9:1 --miscable 70:2:5 --slow-spine 1:100 -- \
    --latency-sweep 2 --retest
is "$(fails)" \
   "fail fabric.spine spine layer;fail link.bandwidth n5/rail3;fail rail.cabling n9/rail1;warn rail.cabling n70/rail2" \
   "128 x 8, all four faults with the sweep and retests: exactly those four named"
is "$(jq -r '.nodes, .rails' "$(res)" | tr '\n' ' ')" "128 8 " "... over 128 nodes x 8 rails"

sim --nodes 4 --rails 2 --degrade 9:0:10
is "$rc" 3 "a fault on a node the cluster does not have: refused (status 3)"
grep -q 'node 9 is not in 1..4' "$TMP/err"; ok $? "... naming the node"
# spines are counted from 0, nodes from 1: spine 0 is one, spine S is not
sim --nodes 4 --rails 2 --slow-spine 0:100
is "$rc" 0 "a slow spine 0 of 4 on a cluster of one leaf per rail (no path crosses it): run, exit 0"
is "$(cable r0-l0-s0) $(cable r1-l0-s0) $(cable r0-l0-s1)" "800Gbps 800Gbps 3200Gbps" \
   "... its cables still at a quarter, the other spines' not"
sim --nodes 4 --rails 2 --slow-spine 0:800
is "$rc $(cable r0-l0-s0) $(cable r1-l0-s3)" "0 3200Gbps 3200Gbps" \
   "a spine's ports at 800 Gb/s, faster than the 400 Gb/s NICs: its cables as built, no faster"
sim --nodes 4 --rails 2 --spines 2 --slow-spine 2:100
is "$rc" 3 "spine 2 of 2: refused (status 3)"
grep -q 'spine 2 is not in 0..1' "$TMP/err"; ok $? "... naming the spine and the range"
sim --nodes 4 --rails 2 --spines 2 --slow-spine 1:0
is "$rc:$(cat "$TMP/err")" "3:sim-cluster: the ports of a slow spine run above 0 Gb/s, not 0" \
   "a spine's ports at 0 Gb/s: refused, naming the rate"
# --other-leaf: a leaf of the rail other than the node's own
sim --nodes 64 --rails 2 --other-leaf 40:1:1
is "$rc:$(cat "$TMP/err")" "3:sim-cluster: leaf 1 is node 40's own leaf" "--other-leaf onto the node's own leaf: refused"
sim --nodes 64 --rails 2 --other-leaf 40:1:2
is "$rc:$(cat "$TMP/err")" "3:sim-cluster: leaf 2 is not in 0..1" "--other-leaf past the rail's leaves: refused"
done_testing
