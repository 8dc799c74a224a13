#!/bin/sh
# On a GPU node: railyard's discovery against what the driver's own tools print, and the
# golden-node workflow end to end. Kept under OUT: nvidia-smi topo -m and nvlink --status, the
# inventory, `railyard check --json` on the node, a gather bundle and the same check replayed
# from it (tests/gpu/replay-compare.py sets the two side by side: a bundle must judge as the
# node did), a map captured from the node and the node checked against it (a golden node passes
# its own map), live and from the bundle.
#
#   tests/gpu/run-discovery.sh   (RAILYARD_BIN: the railyard binary; OUT: the folder)
#
# Exit: 0 all agree, 1 a replay differs or the node fails its own map, 2 railyard could not run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
RY=${RAILYARD_BIN:?RAILYARD_BIN names the railyard binary}
out=${OUT:?OUT names the folder for the outputs}
mkdir -p "$out"
rc=0
limit() { if command -v timeout >/dev/null; then timeout -k 5 60 "$@"; else "$@"; fi; }
step() { # NAME EXPECTED-EXIT COMMAND...: run, keep stdout and stderr, say the exit
    n=$1 want=$2
    shift 2
    limit "$@" >"$out/$n.out" 2>"$out/$n.err"
    got=$?
    echo "$n: exit $got$([ "$got" = "$want" ] || echo " (expected $want)")"
    sed 's/^/  | /' "$out/$n.err" | head -5
    [ "$got" = "$want" ] || { [ "$got" -ge 2 ] && rc=2 || { [ $rc -eq 2 ] || rc=1; }; }
    return 0
}
nvidia-smi topo -m >"$out/nvidia-smi-topo-m.txt" 2>&1
nvidia-smi nvlink --status >"$out/nvidia-smi-nvlink-status.txt" 2>&1
limit "$RY" inventory >"$out/inventory.txt" 2>&1
sed 's/^/  /' "$out/inventory.txt"
# a live check's exit is the node's state: what it is, the replay must say too
limit "$RY" check --no-archive --json >"$out/check-live.json" 2>"$out/check-live.err"
live=$?
echo "check (live): exit $live"
[ $live -le 1 ] || { cat "$out/check-live.err"; exit 2; }
step gather 0 "$RY" gather -o "$out/gather.tar.gz"
step check-replay "$live" "$RY" check --no-archive --json --bundle "$out/gather.tar.gz"
mv "$out/check-replay.out" "$out/check-replay.json"
python3 "$here/replay-compare.py" "$out/check-live.json" "$out/check-replay.json" | sed 's/^/  /'
[ "$(python3 "$here/replay-compare.py" "$out/check-live.json" "$out/check-replay.json" >/dev/null; echo $?)" = 0 ] ||
    { [ $rc -eq 2 ] || rc=1; }
step map-capture 0 "$RY" map capture -o "$out/map.yaml"
step check-map-live 0 "$RY" check --no-archive --map "$out/map.yaml"
step check-map-replay 0 "$RY" check --no-archive --map "$out/map.yaml" --bundle "$out/gather.tar.gz"
sed 's/^/  /' "$out/check-map-live.out"
# railyard watch on this node's NVLinks (NVML, in its own thread with a deadline), with lo as
# a port so that a node without NVLinks runs too: the links it sampled against nvidia-smi's
step watch 0 "$RY" watch --netdev lo --count 5 --interval 1 --grace 0 \
    --state "$out/watch-state.json" --log "$out/watch-events.jsonl" --textfile "$out/watch.prom"
sed 's/^/  /' "$out/watch.out" | head -8
echo "  NVLinks: nvidia-smi lists $(grep -c 'Link [0-9]*:' "$out/nvidia-smi-nvlink-status.txt"), the watch sampled $(grep -c '"nvlink": true' "$out/watch-state.json" 2>/dev/null)"
echo "run-discovery: exit $rc"
exit $rc
