#!/bin/bash
# railyard's RDMA tests inside the Soft-RoCE guest (scripts/rxe-vm check): real kernel verbs
# devices (rdma_rxe) on 2 rails of veth pairs, ra<r> <-> rb<r>. Ends with "N passed, N failed".
# RAILYARD: the railyard binary (visible in the guest: a shared build folder).
set -u
RAILYARD=${RAILYARD:?set RAILYARD to the railyard binary}
pass=0 fail=0
T=$(mktemp -d)
ok() { # ok STATUS DESCRIPTION
    if [ "$1" -eq 0 ]; then pass=$((pass + 1)); echo "ok - $2"; else fail=$((fail + 1)); echo "not ok - $2"; fi
}
# perftest between the two ends of a rail; prints the bandwidth in Gb/s (0 when it failed)
write_bw() { # RAIL PORT
    local r=$1 port=$2 bw
    timeout 120 ib_write_bw -d "rxe_a$r" -x 0 -F -p "$port" -n 300 -s 65536 >"$T/srv$r" 2>&1 &
    local spid=$!
    sleep 1
    timeout 120 ib_write_bw -d "rxe_b$r" -x 0 -F -p "$port" -n 300 -s 65536 "198.18.$r.1" >"$T/cli$r" 2>&1
    wait $spid
    bw=$(awk '/^ *65536/ {print $4}' "$T/cli$r" | tail -n 1)
    echo "${bw:-0}" | awk '{printf "%.4f\n", $1 * 8 / 1000}' # MB/s -> Gb/s
}

n=$(ibv_devices | grep -c 'rxe_')
[ "$n" -eq 4 ]; ok $? "four rxe devices on two rails ($n)"

"$RAILYARD" inventory --json >"$T/inv.json"
ok $? "railyard inventory reads the live rxe devices"
jq -e '[.nics[] | select(.name | startswith("rxe_"))] | length == 4' "$T/inv.json" >/dev/null
ok $? "inventory: four RDMA NICs"
jq -e '[.nics[] | .ports[0] | select(.state == "ACTIVE" and .link_layer == "Ethernet")] | length == 4' "$T/inv.json" >/dev/null
ok $? "inventory: every port ACTIVE, link layer Ethernet"
jq -e '[.nics[] | select(.name == "rxe_a1" and .netdev == "ra1" and .ports[0].netdev == "ra1")] | length == 1' "$T/inv.json" >/dev/null
ok $? "inventory: rxe_a1's netdev is ra1"
jq -e '[.nics[].ports[0].gids[0] | select(.type == "RoCE v2" and (.gid | startswith("fe80:")))] | length == 4' "$T/inv.json" >/dev/null
ok $? "inventory: GID 0 of every port is a RoCE v2 link-local address"

"$RAILYARD" check >"$T/check.out"
ok $? "railyard check with the built-in references passes"
"$RAILYARD" map capture --node-type rxe >"$T/rxe.map" && "$RAILYARD" map validate "$T/rxe.map" >/dev/null
ok $? "map capture on the guest gives a valid map"
"$RAILYARD" check --map "$T/rxe.map" >"$T/check.out"
ok $? "check against the captured map passes"

bw0=$(write_bw 0 18515)
bw1=$(write_bw 1 18516)
echo "# ib_write_bw rail 0: $bw0 Gb/s, rail 1: $bw1 Gb/s"
awk -v a="$bw0" -v b="$bw1" 'BEGIN {exit !(a > 0 && b > 0)}'
ok $? "RDMA writes flow on both rails (perftest)"
tc qdisc add dev ra1 root tbf rate 20mbit burst 32kbit latency 100ms
tc qdisc add dev rb1 root tbf rate 20mbit burst 32kbit latency 100ms
bw1s=$(write_bw 1 18517)
bw0b=$(write_bw 0 18518)
echo "# shaped rail 1: $bw1s Gb/s, rail 0: $bw0b Gb/s"
awk -v a="$bw0b" -v b="$bw1s" 'BEGIN {exit !(b < a / 2)}'
ok $? "a rail shaped by tbf moves less than half of the other"

ip link set rb1 down
sleep 1
"$RAILYARD" check --map "$T/rxe.map" >"$T/check.out"
rc=$?
[ $rc -eq 1 ] && grep -q 'FAIL  nic.port.state  *rxevm/rxe_b1:1 *expected ACTIVE, observed DOWN' "$T/check.out"
ok $? "a rail taken down is named by railyard check (exit $rc)"
rm -rf "$T"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
