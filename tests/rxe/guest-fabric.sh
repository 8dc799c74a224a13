# Sourced in the Soft-RoCE guest (scripts/rxe-vm) by tests/rxe/guest-tests.sh and
# scripts/bench-goodput --guest: railyard-fabric --transport verbs under Open MPI between two
# "nodes" of the guest (named by RAILYARD_FABRIC_NODE), nodea on the ra<r> ends and nodeb on the
# rb<r> ends of the two rails. Needs RAILYARD (the railyard binary) and T (a scratch folder);
# sets FABRIC and writes the map $T/two.map.
FABRIC=$(dirname "$RAILYARD")/railyard-fabric
cat >"$T/two.map" <<'MAP'
cluster: rxe
node_types:
  a:
    nics:
      - {name: rxe_a0, rail: 0, netdev: ra0, link_layer: Ethernet}
      - {name: rxe_a1, rail: 1, netdev: ra1, link_layer: Ethernet}
    thresholds: {rail_bw_gbps: 0.025} # Soft-RoCE under emulation: 0.1-0.3 Gb/s, send 0.05-0.08 with ASan; tbf-shaped: <= 0.008
  b:
    nics:
      - {name: rxe_b0, rail: 0, netdev: rb0, link_layer: Ethernet}
      - {name: rxe_b1, rail: 1, netdev: rb1, link_layer: Ethernet}
    thresholds: {rail_bw_gbps: 0.025}
nodes:
  nodea: a
  nodeb: b
rails:
  0:
  1:
MAP
# why a run did not pass: its failed links' errors and its findings, on one line
why() { # RUN-DIR
    jq -e '.rounds_done > 0' "$1/results.json" >/dev/null 2>&1 || { tail -n 2 "$1.out" | tr '\n' ' '; return; }
    jq -r '[(.links[] | select(.ok | not) | "link rail \(.rail): \(.error)"),
        (.findings[] | select(.severity != "ok") | "\(.severity) \(.check) \(.subject): \(.observed)")]
        | join("; ")' "$1/results.json" 2>/dev/null | head -c 400
}
# a run that judged nothing (exit 2) because its links were measured while the emulated guest was
# short of CPU: no failure, and links listed under not judged as host-limited. What such a run
# proves is that the rails were measured; a busy machine must not make it a fault.
host_limited() { # RUN-DIR
    jq -e '([.findings[] | select(.severity == "fail")] | length) == 0 and
        ([.not_judged[] | select(test("->.*host-limited"))] | length) > 0' "$1/results.json" >/dev/null 2>&1
}
measured() { # RC RUN-DIR: the run exited 0, or 2 as host-limited
    [ "$1" -eq 0 ] || { [ "$1" -eq 2 ] && host_limited "$2"; }
}
mpi_fabric() { # RUN-DIR [railyard-fabric options]
    local dir=$1 m="--allow-run-as-root --oversubscribe --stdin none --mca btl tcp,self --mca pml ob1
        --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo --mca mpi_yield_when_idle 1"
    shift
    # under emulation (and a loaded host) setting up the queue pairs of the first round can take
    # longer than the 5 s a real fabric is given, and the guest can stall for longer than the
    # 67 ms ACK timeout: rxe then retransmits and that is what gets measured (seen in CI:
    # duplicate_request +376, 0.03 Gb/s). 268 ms: past the guest's stalls, short enough that a
    # real retransmission (a receiver not ready on send) does not stall the run (1 s did: 0.024)
    # The round's deadline (duration + 10 s by default) bounds the connection's too, and a guest
    # starved by its host ran past it in the ping-pong after a read (200 pings at 8 ms each, and
    # each stall of the guest on top): 45 s, as long as the run under emulation needs
    set -- --connect-timeout 30 --round-timeout 45 --qp-timeout 16 "$@"
    # a sanitizer build: LeakSanitizer scans Open MPI's mappings for minutes at exit
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    # shellcheck disable=SC2086
    timeout 300 mpirun $m -x ASAN_OPTIONS -np 2 -x RAILYARD_FABRIC_NODE=nodea "$FABRIC" \
        --map "${MAPF:-$T/two.map}" --transport verbs -d 2 -o "$dir" "$@" : \
        -np 2 -x RAILYARD_FABRIC_NODE=nodeb "$FABRIC" --map "${MAPF:-$T/two.map}" --transport verbs -d 2 \
        -o "$dir" "$@" >"$dir.out" 2>&1
}
