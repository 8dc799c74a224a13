#!/bin/bash
# The fault sweep (scripts/fault-sweep): tool faults injected into the health check under a real
# Slurm (a missing library, an unreadable and a corrupt map, a sysfs file that blocks, archives
# on a full and on a read-only filesystem, SIGTERM mid-run) and into railyard-fabric on the demo
# cluster (a rank killed at its start, a hung peer, SIGTERM mid-run, the wall clock jumping) and
# into the preflight in Slurm jobs on the demo cluster (all of those): no node drained, no run
# past its deadline, no archived run lost, every exit code the expected one; and a real fault
# beside them (the controls) is still found and drained.
. "$RAILYARD_SRCDIR/tests/lib.sh"
demo_rig patchelf slurmctld slurmd munged scontrol sinfo
need_shared ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt
have_feature yaml || skip_all "built without libyaml: no maps"
if command -v ss >/dev/null && ss -ltn | grep -qE ':(16917|1710[1-8]) '; then
    rig_taken "the sweep's Slurm ports 16917/17101-17108 are in use"
fi
trap 'rm -rf "$TMP"' EXIT
chmod 755 "$TMP" # the sweep's files are kept here, and munged wants every folder above its socket searchable
RAILYARD=$RAILYARD RAILYARD_FABRIC=$FABRIC "$RAILYARD_SRCDIR/scripts/fault-sweep" --keep "$TMP/kept" >"$TMP/sweep" 2>&1
rc=$?
sed 's/^/# /' "$TMP/sweep"
is $rc 0 "the sweep passes (exit $rc)"
line=$(grep '^SWEEP ' "$TMP/sweep")
for k in drains hangs lost unexpected_exit; do
    v=$(echo "$line" | grep -o " $k=[0-9]*" | cut -d= -f2)
    is "${v:-missing}" 0 "$k from tool faults: 0"
done
c=$(echo "$line" | grep -o 'controls_ok=[0-9]*/[0-9]*' | cut -d= -f2)
is "$c" "3/3" "the controls (a real fault in each part) found and drained"
is "$(grep -c '^healthcheck ' "$TMP/sweep")" 8 "the health check: 8 rows (a control and 7 faults)"
is "$(grep -c '^railyard-fabric ' "$TMP/sweep")" 5 "railyard-fabric: 5 rows (a control and 4 faults)"
is "$(grep -c '^preflight ' "$TMP/sweep")" 12 "the preflight: 12 rows (a control and 11 faults)"
grep -E '^(healthcheck|railyard-fabric|preflight) ' "$TMP/sweep" | awk '$0 !~ /UNEXPECTED/ {n++} END {exit n != NR}'
ok $? "no row has an unexpected exit code"
# the preflight whose node checks block on sysfs: each check ends at its own timeout and says
# so, the fabric keeps its half of the deadline, and the job is not told "healthy"
grep -q 'node[1-4]: the node check could not judge (exit 2): railyard: check: deadline reached' "$TMP/kept/pf-fifo.out"
ok $? "a node check blocked on sysfs says its deadline: $(grep -m1 'could not judge' "$TMP/kept/pf-fifo.out" | cut -c1-160)"
grep -q 'nothing faulty found, but 4 node check(s) could not judge; the job runs on' "$TMP/kept/pf-fifo.out"
ok $? "...and the screen ends not judged, not healthy: $(grep -m1 'done in' "$TMP/kept/pf-fifo.out" | cut -c1-160)"
# what the preflight's job is told when its railyard-fabric cannot judge: the reason, not an
# empty one; a rank that hung after the verdict does not hide the verdict
f=$TMP/kept/pf-fabnolib.out
grep -q 'fabric: not judged: railyard-fabric exit 127: .*libry-sweep-missing.so.1' "$f"
ok $? "railyard-fabric missing a library: the loader's words: $(grep -m1 'not judged' "$f" | cut -c1-160)"
f=$TMP/kept/pf-killed.out
grep -q 'fabric: not judged: railyard-fabric exit [0-9]*: railyard-fabric: MPI_Init did not complete' "$f"
ok $? "a rank killed at its start: railyard-fabric's start deadline ends it first: $(grep -m1 'not judged' "$f" | cut -c1-160)"
f=$TMP/kept/pf-hung.out
grep -q 'node3: a rank stopped answering during the screen: not judged, not drained' "$f" &&
    grep -q '1 node(s) stopped answering, not judged, nothing drained; the job runs on' "$f"
ok $? "a hung peer: node3 named lost from the verdict: $(grep -m1 'stopped answering' "$f" | cut -c1-160)"
done_testing
