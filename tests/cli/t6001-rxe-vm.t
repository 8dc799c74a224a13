#!/bin/bash
# railyard against real kernel RDMA devices: Soft-RoCE (rdma_rxe) in a QEMU guest
# (scripts/rxe-vm check): inventory and check of live rxe devices, a captured map, perftest and
# railyard's verbs transport (verified RDMA writes, ping-pong; and railyard-fabric --transport
# verbs under Open MPI) on two rails, a lossy rail, a tbf-shaped rail, railyard watch seeing a rail
# flap and go down, a rail taken down. Each guest result is one TAP line here.
. "$RAILYARD_SRCDIR/tests/lib.sh"
VM=$RAILYARD_SRCDIR/scripts/rxe-vm
[ "$(id -u)" -eq 0 ] || skip_all "needs root (QEMU shares / with the guest)"
[ -x "$(dirname "$RAILYARD")/railyard-fabric" ] || skip_all "railyard-fabric not built (configure found no MPI)"
have_feature verbs || skip_all "built without libibverbs: no verbs transport"
for p in qemu-system-x86_64 busybox cpio ib_write_bw ibv_devices jq tc mpirun; do
    command -v $p >/dev/null || skip_all "$p is not installed (scripts/install-deps)"
done
have_feature jansson || skip_all "built without jansson: the guest tests read --json"
have_feature yaml || skip_all "built without libyaml: the guest tests capture a map"
# the guest runs this build's binaries under software emulation: with ASan and UBSan that took
# longer than the guest's 900 s twice on a quiet machine; the other builds run the guest list
ldd "$RAILYARD" 2>/dev/null | grep -q libasan &&
    skip_all "a sanitizer build: the emulated guest runs its binaries past the 900 s limit (the full build runs the guest list)"
rig_lock guest
cd "$TMP" || exit 1
if ! "$VM" prepare >"$TMP/prepare.log" 2>&1; then
    rig_taken "the guest kernel could not be fetched: $(tail -n 1 "$TMP/prepare.log")"
fi
[ -x "$(dirname "$RAILYARD")/tests/rxe/verbs_pair" ] || skip_all "tests/rxe/verbs_pair not built (make check builds it)"
"$VM" check --railyard "$RAILYARD" >"$TMP/out" 2>&1
rc=$?
# a guest that never reached its tests (an emulator starved while it booted) is reported and
# run once more; one that started them and did not finish is judged as it is
if [ $rc -ne 0 ] && grep -q '^rxe-vm: the guest did not reach its command' "$TMP/out"; then
    echo "# the guest did not reach its tests, run again: $(grep '^rxe-vm: the guest did not reach' "$TMP/out")"
    "$VM" check --railyard "$RAILYARD" >"$TMP/out" 2>&1
    rc=$?
fi
while IFS= read -r line; do
    case $line in
    "ok - "*) ok 0 "guest: ${line#ok - }" ;;
    "not ok - "*) ok 1 "guest: ${line#not ok - }" ;;
    "skip - "*) skip "guest: ${line#skip - }" ;;
    "# "*) echo "$line" ;;
    esac
done <"$TMP/out"
is "$rc" 0 "rxe-vm check exits 0"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/out" | tail -n 30
# every check ran: passed, or skipped with its reason (a reference tool that gave no figure)
awk '/^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {s = $1 + $5; f = $3} END {exit !(s == 34 && f == 0)}' "$TMP/out"
ok $? "the guest ran all 34 checks ($(grep -E '^[0-9]+ passed' "$TMP/out"))"
# a stopped rxe-vm (TERM: a test run ended by make or by the soak) stops its guest: qemu runs
# under timeout, which leads a process group of its own that a stop of the test's group misses
"$VM" run --timeout 300 -- sleep 250 >"$TMP/stop.out" 2>&1 &
vm=$!
q=""
for _ in $(seq 1 300); do
    q=$(pgrep -P "$vm" -x timeout)
    [ -n "$q" ] && break
    sleep 0.1
done
qemu=$(pgrep -P "${q:-0}" -f qemu-system)
kill -TERM "$vm"
for _ in $(seq 1 200); do
    kill -0 "${q:-0}" 2>/dev/null || kill -0 "${qemu:-0}" 2>/dev/null || break
    sleep 0.1
done
[ -n "$q" ] && [ -n "$qemu" ] && ! kill -0 "$q" 2>/dev/null && ! kill -0 "$qemu" 2>/dev/null
ok $? "rxe-vm stopped by TERM stops its guest: timeout (PID ${q:-none}) and qemu (PID ${qemu:-none}) gone within 20 s"
# (a guest left behind is this test's own: stopped by its PIDs)
[ -n "$q" ] && kill "$q" 2>/dev/null
[ -n "$qemu" ] && kill "$qemu" 2>/dev/null
wait "$vm" 2>/dev/null
done_testing
