#!/bin/bash
# railyard-preflight on a real Slurm cluster of namespaces (scripts/demo-cluster up --slurm:
# munged, slurmctld, one slurmd per node, 6 nodes x 2 shaped rails, Open MPI through PMIx):
# a healthy job's screen passes and its step runs (and railyard-fabric runs by mpirun inside a
# job); a degraded rail, a miscabled port and a node check failure each drain exactly their node
# with a reason naming it, the job is requeued and runs on the others; a slow path between two
# nodes drains neither; a screen whose railyard cannot start drains nothing and the job runs; the
# health check never resumes a node a fabric run drained, nor one an admin drained; a port that
# railyard watch saw flap drains its node through the preflight, and only while the watch runs.
. "$RAILYARD_SRCDIR/tests/lib.sh"
. "$RAILYARD_SRCDIR/tests/slurm/demo-slurm.sh"
PRE=$RAILYARD_SRCDIR/scripts/railyard-preflight

demo_map 0.16 >"$TMP/cluster.map"
# node checks read each node's own capture: healthy, or (node2) that capture with mlx5_3 down
cp "$IBSTAT_OK" "$TMP/ibstat-healthy"
awk '/^CA / {ca = $2} ca == "'"'"'mlx5_3'"'"'" && /State: Active/ {sub(/Active/, "Down")}
     ca == "'"'"'mlx5_3'"'"'" && /Physical state: LinkUp/ {sub(/LinkUp/, "Disabled")} {print}' \
    "$IBSTAT_OK" >"$TMP/ibstat-down"
cat >"$TMP/railyard" <<WRAP
#!/bin/sh
f=$TMP/ibstat-\${SLURMD_NODENAME:-\$(hostname -s)}
[ -e "\$f" ] || f=$TMP/ibstat-healthy
[ "\$1" = check ] && set -- "\$@" --ibstat "\$f"
# and where railyard watch ran for the node (its own sysfs tree), the watch's state
w=$TMP/watch-\${SLURMD_NODENAME:-\$(hostname -s)}.json
[ "\$1" = check ] && [ -e "\$w" ] && set -- "\$@" --watch-state "\$w"
exec "$RAILYARD" "\$@"
WRAP
# a railyard-fabric whose rank 0 of node4 dies at start
cat >"$TMP/fabric-dies" <<WRAP
#!/bin/sh
[ "\$SLURMD_NODENAME" = node4 ] && [ "\$SLURM_LOCALID" = 0 ] && kill -9 \$\$
exec "$FABRIC" "\$@"
WRAP
# a railyard-fabric whose verdict carries hostile text: a hostlist expression for a node name
# (it would drain all six) and a reason with escape sequences, a C1 control and a newline
cat >"$TMP/fabric-hostile" <<WRAP
#!/bin/sh
while [ \$# -gt 0 ]; do [ "\$1" = --culprits ] && c=\$2; shift; done
[ "\$SLURM_PROCID" = 0 ] && [ -n "\$c" ] &&
    printf 'drain node[1-6] link.bw railyard: fabric everything\\ndrain node5 link.bw railyard: fabric \\033]0;owned\\007 \\302\\233 \\033[31mred\\n' >"\$c"
exit 1
WRAP
chmod +x "$TMP/railyard" "$TMP/fabric-dies" "$TMP/fabric-hostile"
export RAILYARD_BIN=$TMP/railyard RAILYARD_FABRIC_BIN=$FABRIC RAILYARD_MAP=$TMP/cluster.map
export RAILYARD_PREFLIGHT_CONF=/nonexistent RAILYARD_ARCHIVE=$TMP/archive

demo_up 6
is "$(sl sinfo -h -o '%D %t')" "6 idle" "sinfo: 6 nodes idle"

# submit JOB_NAME NODES SCRIPT: a batch job; its output appended across restarts
submit() {
    sl sbatch --parsable -J "$1" -N "$2" -o "$TMP/$1.out" --open-mode=append --wrap "$3" 2>"$TMP/sbatch.err"
}
# wait_job ID SECONDS: until the job is gone from the queue; the seconds waited
wait_job() {
    local t=0
    while [ $t -lt $(($2 * 10)) ] && [ -n "$(sl squeue -h -j "$1" 2>/dev/null)" ]; do sleep 0.1; t=$((t + 1)); done
    echo $((t / 10))
}
job_field() { sl scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
resume() { sl scontrol update nodename="$1" state=resume; }
STEP='srun -l hostname | sort'

# --- healthy: the screen passes within 30 s and the job's own step runs on all 6
id=$(submit healthy 6 "$PRE --deadline 60 && $STEP")
ok $? "healthy job submitted ($id)"
w=$(wait_job "$id" 90)
t=$(sed -n 's/.*done in \([0-9.]*\) s: healthy$/\1/p' "$TMP/healthy.out")
[ -n "$t" ] && awk -v t="$t" 'BEGIN { exit !(t <= 30) }'
ok $? "healthy: the preflight passes in <= 30 s (${t:-no verdict} s): $(grep railyard-preflight "$TMP/healthy.out" | tail -1)"
is "$(grep -c ': node[1-6]$' "$TMP/healthy.out")" 6 "healthy: the job's step ran on the 6 nodes"
is "$(drained)" "" "healthy: nothing drained"

# --- railyard-fabric by mpirun inside an allocation (Open MPI starts its daemons through srun)
id=$(sl sbatch --parsable -N 4 --ntasks-per-node=2 -o "$TMP/mpirun.out" --wrap \
    "mpirun --allow-run-as-root --map-by ppr:2:node --bind-to none $FABRIC --map $TMP/cluster.map -d 1 --no-archive; echo rc=\$?")
wait_job "$id" 60 >/dev/null
grep -q '^rc=0$' "$TMP/mpirun.out" && grep -q '4 nodes x 2 rails' "$TMP/mpirun.out"
ok $? "mpirun inside an allocation: railyard-fabric tests 4 nodes x 2 rails and passes$(grep -q '^rc=0$' "$TMP/mpirun.out" || { printf ': '; tail -3 "$TMP/mpirun.out" | tr '\n' ' '; })"

# --- a degraded rail: node3 rail1 at 80 of 200 Mbit/s
check "demo-cluster fault --degrade 3:1:80mbit" "$DEMO" fault --degrade 3:1:80mbit
id=$(submit degraded 5 "$PRE && $STEP")
w=$(wait_job "$id" 120)
is "$(drained)" "node3 " "degraded rail: exactly node3 drained (the job ended after $w s)"
r=$(reason node3)
case $r in "railyard: fabric link.bandwidth rail1 "*) ok 0 "its reason names the rail: $r" ;;
*) ok 1 "its reason names the rail (got '$r')" ;; esac
[ ${#r} -le 80 ]; ok $? "the reason is at most 80 characters"
grep -q "node3: drained: railyard: fabric" "$TMP/degraded.out"; ok $? "the job's output says node3 was drained"
grep -q "the job is requeued" "$TMP/degraded.out"; ok $? "...and that the job is requeued"
is "$(job_field "$id" Restarts)" 1 "the job was requeued once"
nl=$(job_field "$id" NodeList)
case $nl in *3*) ok 1 "the requeued job ran without node3 (on $nl)" ;; *) ok 0 "the requeued job ran without node3 (on $nl)" ;; esac
is "$(grep -c ': node[1-6]$' "$TMP/degraded.out")" 5 "its step ran once, on 5 nodes"
is "$(grep -c 'done in .* s: healthy' "$TMP/degraded.out")" 1 "its second screen passed"
is "$(job_field "$id" JobState)" COMPLETED "the job completed"

# the health check (node checks only) on node3: healthy, yet it leaves the fabric's drain alone
HC="env RAILYARD_BIN=$TMP/railyard RAILYARD_MAP=$TMP/cluster.map RAILYARD_HC_CONF=/nonexistent RAILYARD_HC_LOG=$TMP/hc.log $RAILYARD_SRCDIR/scripts/railyard-healthcheck"
"$DEMO" exec node3 -- $HC 2>/dev/null
grep -q "node3: healthy" "$TMP/hc.log"; ok $? "railyard-healthcheck on node3: its node checks pass"
case $(reason node3) in "railyard: fabric "*) ok 0 "...and node3 stays drained by the fabric's reason" ;;
*) ok 1 "...and node3 stays drained by the fabric's reason (got '$(reason node3)')" ;; esac
check "demo-cluster fault --heal 3:1" "$DEMO" fault --heal 3:1
resume node3

# --- a miscabled port (node5 rail0 into rail 1's switch) and a node check failure (node2's
# mlx5_3 down) in one job of 4 nodes: both drained, the job runs on the other 4
check "demo-cluster fault --miscable 5:0:1" "$DEMO" fault --miscable 5:0:1
cp "$TMP/ibstat-down" "$TMP/ibstat-node2"
id=$(submit two 6 "$PRE && $STEP")
# 6 nodes asked: once two are drained the job cannot run again; it waits, and is cancelled
for _ in $(seq 600); do [ "$(drained)" = "node2 node5 " ] && [ "$(job_field "$id" JobState)" = PENDING ] && break; sleep 0.1; done
is "$(drained)" "node2 node5 " "miscabled port and a node check failure: exactly node2 and node5 drained"
r5=$(reason node5)
case $r5 in "railyard: fabric rail.cabling rail0 "*) ok 0 "node5's reason names the rail: $r5" ;;
*) ok 1 "node5's reason names the rail (got '$r5')" ;; esac
r2=$(reason node2)
case $r2 in "railyard: nic.port."*mlx5_3*) ok 0 "node2's reason names its port: $r2" ;;
*) ok 1 "node2's reason names its port (got '$r2')" ;; esac
is "$(job_field "$id" JobState)" PENDING "the job is requeued (pending: 4 nodes left for 6 asked)"
sl scancel "$id"
id=$(submit four 4 "$PRE && $STEP")
w=$(wait_job "$id" 90)
is "$(grep -c ': node[1346]$' "$TMP/four.out")" 4 "a 4-node job then runs on node1, 3, 4 and 6 ($w s)"

# the health check resumes the node its own check drained once it passes, never the fabric's
"$DEMO" exec node2 -- $HC 2>/dev/null
is "$(drained)" "node2 node5 " "health check with node2's port still down: both stay drained"
rm "$TMP/ibstat-node2"
"$DEMO" exec node2 -- $HC 2>/dev/null
"$DEMO" exec node5 -- $HC 2>/dev/null
for _ in $(seq 30); do [ "$(drained)" = "node5 " ] && break; sleep 0.1; done
is "$(drained)" "node5 " "health check after node2's port is back: node2 resumed, node5 (fabric) not"
# an admin's drain is never the health check's to lift
sl scontrol update nodename=node6 state=drain reason="PSU swap, ticket 4711"
"$DEMO" exec node6 -- $HC 2>/dev/null
is "$(reason node6)" "PSU swap, ticket 4711" "an admin's drain stays after a healthy check"
check "demo-cluster fault --heal 5:0" "$DEMO" fault --heal 5:0
resume node5
resume node6

# --- railyard watch for node4 (on a sysfs tree of its own) sees its mlx5_1 flap twice: the
# preflight's node checks drain node4 alone, with the watch's event as the reason; once the
# watch has ended, the health check does not judge it and resumes node4
if have_feature jansson; then
    R4=$TMP/sys4
    wport() { fake_ib_port "$R4" "$@"; }
    wport mlx5_0 "4: ACTIVE" "5: LinkUp"
    wport mlx5_1 "4: ACTIVE" "5: LinkUp"
    "$RAILYARD" watch --sysfs-root "$R4" --interval 0.3 --grace 0 --log none \
        --state "$TMP/watch-node4.json" >"$TMP/watch4.out" 2>&1 &
    WP=$!
    for _ in 1 2; do
        sleep 0.7; wport mlx5_1 "1: DOWN" "2: Polling"; sleep 0.7; wport mlx5_1 "4: ACTIVE" "5: LinkUp"
    done
    for _ in $(seq 50); do grep -q '"port.flapping"' "$TMP/watch-node4.json" 2>/dev/null && break; sleep 0.1; done
    grep -q '"port.flapping"' "$TMP/watch-node4.json"; ok $? "railyard watch for node4: port.flapping in its state"
    id=$(submit watched 6 "$PRE && $STEP")
    for _ in $(seq 600); do [ "$(drained)" = "node4 " ] && [ "$(job_field "$id" JobState)" = PENDING ] && break; sleep 0.1; done
    is "$(drained)" "node4 " "a port that flapped (the watch's state): exactly node4 drained"
    r4=$(reason node4)
    case $r4 in "railyard: watch.port.flapping mlx5_1:1 "*) ok 0 "node4's reason is the watch's event: $r4" ;;
    *) ok 1 "node4's reason is the watch's event (got '$r4')" ;; esac
    sl scancel "$id"
    kill -TERM $WP
    wait $WP
    "$DEMO" exec node4 -- $HC 2>/dev/null
    for _ in $(seq 30); do [ "$(drained)" = "" ] && break; sleep 0.1; done
    is "$(drained)" "" "the watch ended: node4's health check does not judge it and resumes node4"
    rm -f "$TMP/watch-node4.json"
else
    for _ in 1 2 3 4; do skip "built without jansson: railyard watch keeps no state"; done
fi

# --- a slow path between node2 and node3 on rail 0 (node2 sends to node3 alone at 40 Mbit/s):
# both ports are fine with every other partner, so the fault is pinned to neither
check "demo-cluster fault --slow-path 2:0:3:40mbit" "$DEMO" fault --slow-path 2:0:3:40mbit
id=$(submit path 6 "$PRE && $STEP")
w=$(wait_job "$id" 120)
is "$(drained)" "" "a fault between two nodes pinned to neither: nothing drained ($w s)"
grep -q "a fault between node2 and node3 that railyard cannot pin to either (link.path/rail0): neither drained" "$TMP/path.out"
ok $? "...and the job's output says so: $(grep -m1 'cannot pin' "$TMP/path.out" | cut -c1-160)"
grep -q "pinned to none, nothing drained; the job runs on" "$TMP/path.out"; ok $? "...and that the job runs on"
is "$(grep -c ': node[1-6]$' "$TMP/path.out")" 6 "the job's step ran on all 6"
check "demo-cluster fault --heal 2:0" "$DEMO" fault --heal 2:0

# --- railyard cannot start: a map it cannot read, a rank killed at start: nothing drained, the
# job runs with the reason in its output
id=$(submit broken 6 "$PRE --map $TMP/nonexistent.map; echo preflight-exit=\$?; RAILYARD_FABRIC_BIN=$TMP/fabric-dies $PRE --deadline 20; echo preflight-exit=\$?; $STEP")
w=$(wait_job "$id" 120)
is "$(grep -c '^preflight-exit=0$' "$TMP/broken.out")" 2 "a broken screen exits 0 both times (the job runs on; $w s)"
grep -q "cannot judge, the job runs on (nothing drained): cannot read the map $TMP/nonexistent.map" "$TMP/broken.out"
ok $? "an unreadable map: the reason is in the job's output"
grep -q "fabric: not judged" "$TMP/broken.out"
ok $? "a rank killed at start: not judged, said in the job's output: $(grep -m1 'fabric: not judged' "$TMP/broken.out" | cut -c1-160)"
is "$(drained)" "" "...and nothing drained"
is "$(grep -c ': node[1-6]$' "$TMP/broken.out")" 6 "the job's step ran on all 6"
is "$(job_field "$id" Restarts)" 0 "the job was not requeued"

# --- hostile text in the verdict: a hostlist for a node name drains nothing, a reason reaches
# scontrol as printable ASCII on one line
id=$(submit hostile 6 "RAILYARD_FABRIC_BIN=$TMP/fabric-hostile $PRE --no-node-check --no-requeue --deadline 30; echo preflight-exit=\$?")
w=$(wait_job "$id" 90)
is "$(drained)" "node5 " "a culprit named node[1-6]: not drained; node5 alone drained ($w s)"
grep -q "not a Slurm node name, not drained: node\[1-6\]" "$TMP/hostile.out"
ok $? "...and the job's output says node[1-6] is not a node name: $(grep -m1 'not a Slurm' "$TMP/hostile.out" | cut -c1-120)"
r=$(reason node5)
printf '%s' "$r" | LC_ALL=C grep -q '[^[:print:]]'
is "$? $r" "1 railyard: fabric ?]0;owned? ?? ?[31mred" "node5's reason: printable ASCII, the controls shown as ?"
LC_ALL=C grep -q "$(printf '\033')" "$TMP/hostile.out"; is $? 1 "no escape byte in the job's output"
resume node5

# --- bad options: exit 2, said
"$PRE" --deadline soon 2>"$TMP/err"; is $? 2 "--deadline soon: exit 2"
grep -q "takes a positive number, not 'soon'" "$TMP/err"; ok $? "...with the reason"
# outside an allocation: nothing to screen, never a failure
(unset SLURM_JOB_ID; "$PRE" 2>"$TMP/err"); is $? 0 "outside a job: exit 0"
grep -q "not inside a Slurm allocation" "$TMP/err"; ok $? "...said"
done_testing
