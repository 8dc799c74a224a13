#!/bin/bash
# The fault sweep (scripts/fault-sweep): tool faults injected into the health check under a real
# Slurm (a missing library, an unreadable and a corrupt map, a sysfs file that blocks, archives
# on a full and on a read-only filesystem, SIGTERM mid-run) and into railyard-fabric on the demo
# cluster (a rank killed at its start, a hung peer, SIGTERM mid-run, the wall clock jumping):
# no node drained, no run past its deadline, no archived run lost, every exit code the expected
# one; and a real fault beside them (the controls) is still found and drained.
. "$RAILYARD_SRCDIR/tests/lib.sh"
demo_rig patchelf slurmctld slurmd munged scontrol sinfo
need_shared ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt
have_feature yaml || skip_all "built without libyaml: no maps"
if command -v ss >/dev/null && ss -ltn | grep -qE ':(16917|1710[1-8]) '; then
    rig_taken "the sweep's Slurm ports 16917/17101-17108 are in use"
fi
trap 'rm -rf "$TMP"' EXIT
RAILYARD=$RAILYARD RAILYARD_FABRIC=$FABRIC "$RAILYARD_SRCDIR/scripts/fault-sweep" >"$TMP/sweep" 2>&1
rc=$?
sed 's/^/# /' "$TMP/sweep"
is $rc 0 "the sweep passes (exit $rc)"
line=$(grep '^SWEEP ' "$TMP/sweep")
for k in drains hangs lost unexpected_exit; do
    v=$(echo "$line" | grep -o " $k=[0-9]*" | cut -d= -f2)
    is "${v:-missing}" 0 "$k from tool faults: 0"
done
c=$(echo "$line" | grep -o 'controls_ok=[0-9]*/[0-9]*' | cut -d= -f2)
is "$c" "2/2" "the controls (a real fault in each part) found and drained"
is "$(grep -c '^healthcheck ' "$TMP/sweep")" 8 "the health check: 8 rows (a control and 7 faults)"
is "$(grep -c '^railyard-fabric ' "$TMP/sweep")" 5 "railyard-fabric: 5 rows (a control and 4 faults)"
grep -E '^(healthcheck|railyard-fabric) ' "$TMP/sweep" | awk '$0 !~ /UNEXPECTED/ {n++} END {exit n != NR}'
ok $? "no row has an unexpected exit code"
done_testing
