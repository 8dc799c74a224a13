#!/bin/bash
# railyard-healthcheck under a real Slurm (slurmctld + 3 slurmd + munge on localhost):
# a faulty node drains with a railyard reason, a healthy one stays idle, a broken map never
# drains (as HealthCheckProgram and as prolog).
. "$RAILYARD_SRCDIR/tests/lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to run slurmd"
for p in slurmctld slurmd munged scontrol sinfo srun; do
    command -v $p >/dev/null || skip_all "$p is not installed (Debian: slurm-wlm, munge)"
done
have_feature yaml || skip_all "built without libyaml: no maps"
need_shared ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt
if command -v ss >/dev/null && ss -ltn | grep -qE ':(16817|1700[1-3]) '; then
    rig_taken "Slurm ports 16817/17001-17003 are in use"
fi
I=$SHARED_FIXTURES/ibstat
D=$TMP/slurm
RIG=$RAILYARD_SRCDIR/tests/slurm/rig.sh
trap '"$RIG" stop "$D"; rm -rf "$TMP"' EXIT
export SLURM_CONF=$D/etc/slurm.conf

"$RAILYARD" map capture --ibstat "$I/gpud_ibstat_h100_roce_12hca_all_active.txt" --node-type roce \
    --nodes 'n[1-3]' -o "$TMP/roce.map" 2>/dev/null
printf 'cluster: x\nnode_types:\n  roce:\n    nics: {name: mlx5_0}\n' >"$TMP/broken.map"
cat >"$TMP/hc-n1.env" <<ENV
RAILYARD_MAP=$TMP/roce.map
RAILYARD_HC_ARGS="--ibstat $I/gpud_ibstat_h100_roce_12hca_all_active.txt"
ENV
cat >"$TMP/hc-n2.env" <<ENV
RAILYARD_MAP=$TMP/roce.map
RAILYARD_HC_ARGS="--ibstat $I/gpud_ibstat_h100_roce_12hca_some_down_1.txt"
ENV
cat >"$TMP/hc-n3.env" <<ENV
RAILYARD_MAP=$TMP/broken.map
RAILYARD_HC_ARGS="--ibstat $I/gpud_ibstat_h100_roce_12hca_all_active.txt"
ENV
# the program Slurm runs: each fake node reads its own captured input
cat >"$TMP/hc.sh" <<WRAP
#!/bin/sh
set -a
. "$TMP/hc-\$SLURMD_NODENAME.env"
RAILYARD_BIN="$RAILYARD"
RAILYARD_SLURM_CONF="$D/etc/slurm.conf"
RAILYARD_HC_LOG="$TMP/hc.log"
RAILYARD_HC_CONF=/nonexistent
RAILYARD_ARCHIVE="$TMP/archive"
set +a
exec "$RAILYARD_SRCDIR/scripts/railyard-healthcheck"
WRAP
chmod +x "$TMP/hc.sh"

# munged wants every directory above its socket searchable by all
chmod 755 "$TMP"
"$RIG" start "$D" 3 "$TMP/hc.sh" "$TMP/hc.sh" >"$TMP/rig.log" 2>&1
rc=$?
ok $rc "Slurm started (slurmctld, 3 slurmd, munged)"
if [ $rc -ne 0 ]; then sed 's/^/# /' "$TMP/rig.log"; done_testing; exit 1; fi

state() { sinfo -h -N -n "$1" -o '%t' 2>/dev/null | head -1; }
reason() { scontrol show node "$1" 2>/dev/null | sed -n 's/^ *Reason=\(.*\) \[.*/\1/p'; }
for _ in $(seq 200); do
    case $(state n2) in drain*|drng*) break ;; esac
    sleep 0.2
done
s2=$(state n2)
case $s2 in drain*|drng*) ok 0 "faulty node n2 is drained" ;; *) ok 1 "faulty node n2 is drained (state $s2)" ;; esac
r2=$(reason n2)
case $r2 in "railyard: "*) ok 0 "n2 reason: $r2" ;; *) ok 1 "n2 reason starts with 'railyard: ' (got '$r2')" ;; esac
[ ${#r2} -le 80 ]; ok $? "n2 reason is at most 80 characters"
echo "$r2" | grep -q "mlx5_5:1\|mlx5_11:1"; ok $? "n2 reason names the down port"
# give the health check a few more rounds on n1 and n3
for _ in $(seq 50); do
    [ "$(grep -c 'n3: railyard could not judge' "$TMP/hc.log" 2>/dev/null)" -ge 2 ] && break
    sleep 0.2
done
is "$(state n1)" idle "healthy node n1 stays idle"
is "$(state n3)" idle "node n3 with a broken map stays idle"
grep -q "n3: railyard could not judge (exit 2)" "$TMP/hc.log"; ok $? "n3: the tool failure is logged"
grep -q "n1: healthy" "$TMP/hc.log"; ok $? "n1: the health check ran and passed"
if have_feature jansson; then
    ls "$TMP"/archive/*/*-n2-check-*/report.json >/dev/null 2>&1
    ok $? "the health check's runs are archived (n2's failure kept for later)"
else
    skip "built without jansson: no archive"
fi

# prolog: jobs start on the healthy node and on the node whose map is broken
timeout 60 srun -w n1 -N1 -t 1 true >"$TMP/srun1" 2>&1; ok $? "a job runs on n1 (prolog passes)"
timeout 60 srun -w n3 -N1 -t 1 true >"$TMP/srun3" 2>&1; ok $? "a job runs on n3 (a broken map never fails the prolog)"
# the job's end leaves the node "completing", or "mixed" while Slurm still releases its CPUs,
# for a moment (seconds on a busy host): wait until no job holds it
for _ in $(seq 300); do
    case $(state n3) in comp | mix | alloc) sleep 0.1 ;; *) break ;; esac
done
is "$(state n3)" idle "n3 is still idle after its prolog"
# a node railyard drained is resumed once the fault is gone
cp "$TMP/hc-n1.env" "$TMP/hc-n2.env"
for _ in $(seq 100); do [ "$(state n2)" = idle ] && break; sleep 0.2; done
is "$(state n2)" idle "n2 resumes once its check passes"
done_testing
