# Sourced by the tests that run on the demo cluster under Slurm (scripts/demo-cluster up --slurm)
# after tests/lib.sh: skips without what the rig needs, takes the rig's lock, removes a rig left
# over by a killed run, and gives:
#   demo_map FLOOR_GBPS >FILE   the cluster's map: two 400G RoCE rails per node (mlx5_0 and
#                               mlx5_3 of a real H100 capture, which the node checks read), their
#                               netdevs rail0/rail1, the goodput floor FLOOR_GBPS
#   demo_up NODES               6-or-so nodes x 2 rails at 200 Mbit/s with Slurm; ok or not ok
#   sl CMD...                   a Slurm client command from the head namespace
#   reason NODE, drained        a node's reason; the drained nodes, sorted, space-separated
FABRIC=$(dirname "$RAILYARD")/railyard-fabric
DEMO=$RAILYARD_SRCDIR/scripts/demo-cluster
[ -x "$FABRIC" ] || skip_all "railyard-fabric not built (configure found no MPI)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for network namespaces and slurmd"
for p in ip tc unshare nsenter flock slurmctld slurmd munged sbatch srun scontrol mpirun jq; do
    command -v $p >/dev/null || skip_all "$p is not installed (Debian: slurm-wlm, munge, openmpi-bin, jq)"
done
have_feature yaml || skip_all "built without libyaml: no maps"
need_shared ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt
# Open MPI keeps large mappings that LeakSanitizer scans for minutes at exit
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
rig_lock host-rigs
"$DEMO" reap 2>&1 | sed 's/^/# /'
[ -e /run/netns/node1 ] && rig_taken "a demo cluster (or a namespace node1) is already up"
export RAILYARD_DEMO_STATE=$TMP/demo
trap '"$DEMO" down >/dev/null 2>&1; rm -rf "$TMP"' EXIT
chmod 755 "$TMP" # munged wants every folder above its socket searchable by all
IBSTAT_OK=$SHARED_FIXTURES/ibstat/gpud_ibstat_h100_roce_12hca_all_active.txt

demo_map() {
    cat <<MAP
cluster: railyard-demo
node_types:
  demo-node:
    nics:
      - {name: mlx5_0, netdev: rail0, rail: 0, link_layer: Ethernet, rate_gbps: 400}
      - {name: mlx5_3, netdev: rail1, rail: 1, link_layer: Ethernet, rate_gbps: 400}
    thresholds: {rail_bw_gbps: $1}
nodes:
  node[1-6]: demo-node
rails:
  0: {switches: [rail0-switch]}
  1: {switches: [rail1-switch]}
MAP
}
sl() { "$DEMO" exec -- "$@"; }
reason() { sl scontrol show node "$1" 2>/dev/null | sed -n 's/^ *Reason=\(.*\) \[.*/\1/p'; }
drained() { sl sinfo -h -N -t drain,draining,drained -o '%N' 2>/dev/null | sort -u | tr '\n' ' '; }
demo_up() {
    local rc
    DEMO_QUIET=1 "$DEMO" up --nodes "$1" --rails 2 --rate 200mbit --slurm >"$TMP/up.log" 2>&1
    rc=$?
    ok $rc "a Slurm cluster of $1 nodes x 2 rails is up (slurmctld, a slurmd per node, munged)"
    if [ $rc -ne 0 ]; then
        sed 's/^/# /' "$TMP/up.log"
        done_testing
        exit 1
    fi
    if ! sl srun --mpi=list 2>&1 | grep -q pmix; then
        skip "Slurm has no PMIx plugin (srun --mpi=list): $(sl srun --mpi=list 2>&1 | tr '\n' ' ')"
        done_testing
        exit 0
    fi
}
