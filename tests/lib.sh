# TAP helpers for the shell tests (sourced). Each test sets its plan with `plan N` or calls
# `done_testing` at the end; `skip_all REASON` skips the whole file with the reason shown.
: "${RAILYARD:?run through make check (RAILYARD unset)}"
: "${RAILYARD_SRCDIR:?run through make check}"
SHARED_FIXTURES=${RAILYARD_SHARED_FIXTURES:-$RAILYARD_SRCDIR/../shared/fixtures}
T_RUN=0
T_FAIL=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/railyard-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# a test stopped by a signal (a soak stopped, a timeout: TERM to its session) lets what it runs
# finish its own cleanup before its EXIT trap removes TMP: a rig whose state was removed under
# it (a fault sweep's demo cluster) left its namespaces and processes behind
# (at most RAILYARD_TEST_STOP_WAIT seconds, 15: a daemon of a session of its own, which the
# signal did not reach, is not waited for)
ry_stopped() { # STATUS
    local kids _
    for _ in $(seq 1 $((${RAILYARD_TEST_STOP_WAIT:-15} * 10))); do
        kids=
        read -r kids <"/proc/$$/task/$$/children" 2>/dev/null || true
        [ -n "$kids" ] || break
        sleep 0.1
    done
    exit "$1"
}
trap 'ry_stopped 143' TERM
trap 'ry_stopped 130' INT
# python3 behind a version manager's shim (pyenv's, asdf's: a script that picks the interpreter at
# each start, half a second of CPU) costs more than most of what the tests ask of it, and they
# start it hundreds of times: they run the interpreter the shim picks directly, found once per
# build (a link in the build's tests/.python3) and put first on PATH
case $(command -v python3 2>/dev/null) in
*/shims/python3)
    ry_py=$(dirname "$RAILYARD")/tests/.python3
    if [ ! -x "$ry_py/python3" ]; then
        ry_real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
        if [ -x "$ry_real" ] && mkdir -p "$ry_py" 2>/dev/null; then
            ln -sf "$ry_real" "$ry_py/python3.$$" && mv -f "$ry_py/python3.$$" "$ry_py/python3"
        fi
    fi
    [ -x "$ry_py/python3" ] && PATH=$ry_py:$PATH && export PATH
    ;;
esac
# the console keeps no fabric discovery between the tests' simulated fabrics unless a test
# names its own cache (railyard top --fabric-cache)
export RAILYARD_FABRIC_CACHE=none
# sim_rig NAME TOOLS...: what a SimGrid test (railyard-fabric under SMPI) needs: at the lowest
# priority beside the rigs (a simulation of hundreds of ranks holds a core; simulated time and CPU
# seconds, what it reads, do not depend on it), or at the usual one with its SMPI build on one
# core where it is CI's busy-stage load (RAILYARD_SIM_LOAD=1); CI's full stage only (its SMPI
# build is the same in every stage); railyard-fabric built, SimGrid and TOOLS installed, a
# configure script; then the simulations' lock, one at a time. Sets FABRIC.
sim_rig() {
    local name=$1 p
    shift
    FABRIC=$(dirname "$RAILYARD")/railyard-fabric
    if [ "${RAILYARD_SIM_LOAD:-}" = 1 ]; then
        export RAILYARD_SIM_JOBS=1
    else
        renice -n 19 -p $$ >/dev/null 2>&1 || true
    fi
    case ${RAILYARD_CI_STAGE:-} in
    "" | full) ;;
    *) skip_all "CI stage $RAILYARD_CI_STAGE: $name runs in CI's full stage (its SMPI build is the same in every stage)" ;;
    esac
    [ -x "$FABRIC" ] || skip_all "railyard-fabric not built (configure found no MPI)"
    for p in smpicc smpirun "$@"; do
        command -v "$p" >/dev/null || skip_all "$p is not installed (SimGrid: apt-get install libsimgrid-dev)"
    done
    [ -x "$RAILYARD_SRCDIR/configure" ] || skip_all "no configure script in $RAILYARD_SRCDIR (run ./autogen.sh)"
    rig_lock sim
}


plan() { echo "1..$1"; T_PLAN=$1; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# A rig this test needs is taken (a namespace, ports or a guest image a crashed run left): a skip
# on a developer's machine, a failure under CI, where a green run must have run the test
rig_taken() {
    if [ -n "${CI:-}" ]; then
        echo "1..1"
        echo "not ok 1 - $* (under CI a rig left over fails the run: remove it and run again)"
        exit 1
    fi
    skip_all "$*"
}
# rig_lock NAME: wait until no other test holds the rig NAME (tests run in parallel); held until
# the test exits. "host-rigs": the demo cluster (namespaces with fixed names), Slurm, ibsim and
# the SimGrid simulation run one at a time; "guest": the emulated guest. The wait is said in the
# log ("# rig NAME: waited N s"), apart from the test's own time
rig_lock() {
    rig_t0=$(date +%s)
    mkdir -p /run/lock 2>/dev/null
    exec 8>"/run/lock/railyard-test-$1.lock" || rig_taken "cannot open the lock of rig $1"
    flock -w 1800 8 || rig_taken "another test held rig $1 for 30 minutes"
    echo "# rig $1: waited $(($(date +%s) - rig_t0)) s"
}
# ibsim_rig [COMMAND...]: a simulated InfiniBand fabric for this test (scripts/ibsim-fabric, set
# as SIM): skips unless ibsim, opensm, timeout, libumad2sim and the commands given are there;
# keeps its state under $TMP/sim; in a sanitizer build, the simulator's preload comes before the
# ASan runtime, and two libraries that are not railyard's have known faults (tests/asan.supp,
# tests/lsan.supp)
ibsim_rig() {
    local p
    # shellcheck disable=SC2034 # (the test uses it)
    SIM=$RAILYARD_SRCDIR/scripts/ibsim-fabric
    for p in ibsim opensm timeout "$@"; do
        command -v "$p" >/dev/null || skip_all "$p is not installed (scripts/install-deps)"
    done
    ls /usr/lib/*/umad2sim/libumad2sim.so >/dev/null 2>&1 || skip_all "libumad2sim.so is not installed"
    export IBSIM_FABRIC_DIR=$TMP/sim
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:suppressions=$RAILYARD_SRCDIR/tests/asan.supp
    export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$RAILYARD_SRCDIR/tests/lsan.supp
}
# demo_rig [COMMAND...]: the demo cluster for this test (railyard-fabric on namespaces): skips
# unless railyard-fabric is built, root, JSON and the commands (beyond the rig's own) are there;
# takes the rig's lock, reaps a rig left over by a killed run, keeps the state under $TMP. Sets
# FABRIC and DEMO.
demo_rig() {
    FABRIC=$(dirname "$RAILYARD")/railyard-fabric
    DEMO=$RAILYARD_SRCDIR/scripts/demo-cluster
    [ -x "$FABRIC" ] || skip_all "railyard-fabric not built (configure found no MPI)"
    [ "$(id -u)" -eq 0 ] || skip_all "needs root for network namespaces"
    for p in ip tc unshare nsenter mpirun jq "$@"; do
        command -v "$p" >/dev/null || skip_all "$p is not installed"
    done
    have_feature jansson || skip_all "built without jansson: the run directory needs JSON"
    rig_lock host-rigs
    # a rig left over by a run that was killed (its owner gone, nothing running in it) is removed
    "$DEMO" reap 2>&1 | sed 's/^/# /'
    [ -e /run/netns/node1 ] && rig_taken "a demo cluster (or a namespace node1) is already up"
    export RAILYARD_DEMO_STATE=$TMP/demo
    # Open MPI keeps large mappings that LeakSanitizer scans for minutes at exit in a sanitizer
    # build; railyard's own code is leak-checked by the other tests
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
}
ok() { # ok COND-EXIT-STATUS DESCRIPTION
    T_RUN=$((T_RUN + 1))
    if [ "$1" -eq 0 ]; then echo "ok $T_RUN - $2"; else echo "not ok $T_RUN - $2"; T_FAIL=$((T_FAIL + 1)); fi
}
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
    d=$1; shift
    if "$@" >"$TMP/check.out" 2>&1; then ok 0 "$d"; else ok 1 "$d"; sed 's/^/# /' "$TMP/check.out" | head -20; fi
}
is() { # is GOT WANT DESCRIPTION
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "# got:  '$1'"; echo "# want: '$2'"; fi
}
skip() { T_RUN=$((T_RUN + 1)); echo "ok $T_RUN # SKIP $*"; }
done_testing() {
    [ -n "${T_PLAN:-}" ] || echo "1..$T_RUN"
    [ "$T_FAIL" -eq 0 ]
}
have_feature() { "$RAILYARD" --version | grep -q "features:.* $1\( \|$\)"; }
need_shared() { # need_shared RELPATH: skip the whole file when the shared fixtures are absent
    [ -e "$SHARED_FIXTURES/$1" ] || skip_all "shared fixture $1 not found (set RAILYARD_SHARED_FIXTURES)"
}
jqget() { jq -r "$1" "$2"; }
# fake_ib_port ROOT DEV STATE PHYS: port 1 of the RDMA device DEV in a sysfs tree under ROOT,
# laid out as the kernel lays it out: its state ("4: ACTIVE"), physical state ("5: LinkUp") and
# error counters (0 where not there yet), for railyard watch to read
fake_ib_port() {
    local d=$1/class/infiniband/$2/ports/1 c
    mkdir -p "$d/counters"
    echo "$3" >"$d/state"
    echo "$4" >"$d/phys_state"
    for c in link_downed symbol_error port_rcv_errors link_error_recovery; do
        [ -e "$d/counters/$c" ] || echo 0 >"$d/counters/$c"
    done
}
golden_cmp() { # golden_cmp GOT GOLDEN DESCRIPTION: GOT matches the recorded GOLDEN file
    # RAILYARD_UPDATE_GOLDEN=1 rewrites GOLDEN instead (reported as a skip, never as a pass: the
    # diff is to be reviewed); under CI it is refused, a run must compare
    if [ -n "${RAILYARD_UPDATE_GOLDEN:-}" ]; then
        if [ -n "${CI:-}" ]; then
            ok 1 "$3 (RAILYARD_UPDATE_GOLDEN is set under CI: nothing was compared)"
        else
            cp "$1" "$2"; skip "$3: $(basename "$2") rewritten, not compared (review the diff)"
        fi
    elif diff -u "$2" "$1" >"$TMP/golden.diff"; then
        ok 0 "$3"
    else
        ok 1 "$3"; sed 's/^/# /' "$TMP/golden.diff" | head -40
    fi
}
