#!/bin/bash
# Hostile input never reaches a terminal raw: escape sequences (ESC, BEL, 8-bit CSI) and bytes
# that are not UTF-8, in the first line of every captured-input file type, in a file's name, in
# a map key, in a node name and in an ibnetdiscover NodeDescription, come out of railyard as
# \xHH on stdout and stderr, whatever the exit status.
. "$RAILYARD_SRCDIR/tests/lib.sh"
trap 'rm -rf "$TMP"' EXIT

# ESC ] 0 ; title BEL (sets the window title), ESC [ 2 J (clears the screen), 0x9b (CSI in 8-bit
# terminals), C2 9B (the same, UTF-8 encoded), and two bytes that are no UTF-8
EVIL=$(printf '\033]0;owned\007\033[2J\233H\302\233J\377\376')
# the raw bytes a terminal acts on, counted in a file
raw() { od -An -v -tx1 "$1" | tr -s ' ' '\n' | grep -Ec '^(1b|07|9b|ff|fe)$'; }
inert() { # SHOWN DESCRIPTION COMMAND...: stdout and stderr hold none of those bytes; SHOWN 1:
    # the message quotes the hostile text, with the escape written \x1b
    shown=$1 d=$2; shift 2
    "$@" >"$TMP/o" 2>&1
    n=$(raw "$TMP/o")
    is "$n" 0 "$d: nothing raw ($(head -c 160 "$TMP/o" | tr '\n' ' '))"
    if [ "$shown" = 1 ]; then
        grep -q '\\x1b' "$TMP/o"
        ok $? "$d: the escape shown as \\x1b"
    fi
}

for opt in ibstat nvlink-status nvbandwidth p2p-bandwidth bandwidth-test; do
    printf '%s\nmore\n' "$EVIL" >"$TMP/$opt.txt"
    # nvbandwidth's reader looks for its test lines and names what it did not find
    inert $([ $opt = nvbandwidth ] && echo 0 || echo 1) "--$opt, a hostile first line" \
        "$RAILYARD" inventory --$opt "$TMP/$opt.txt"
done
if have_feature libxml2; then
    printf '%s<system version="1"></system>\n' "$EVIL" >"$TMP/nccl.xml"
    inert 0 "--nccl-topo, a hostile first line" "$RAILYARD" inventory --nccl-topo "$TMP/nccl.xml"
    printf '%s<topology></topology>\n' "$EVIL" >"$TMP/hwloc.xml"
    inert 0 "--hwloc-xml, a hostile first line" "$RAILYARD" inventory --hwloc-xml "$TMP/hwloc.xml"
else
    for i in 1 2; do skip "built without libxml2"; done
fi
inert 1 "a hostile file name" "$RAILYARD" inventory --ibstat "$TMP/no-$EVIL.txt"
mkdir -p "$TMP/sys/class/infiniband/mlx5_0/ports/1"
echo "4: ACTIVE" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/state"
echo "5: LinkUp" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/phys_state"
printf '%s Gb/sec\n' "$EVIL" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/rate"
inert 1 "a hostile sysfs value" "$RAILYARD" inventory --sysfs-root "$TMP/sys"
printf 'not a bundle %s\n' "$EVIL" >"$TMP/b.tar.gz"
inert 0 "a hostile bundle" "$RAILYARD" inventory --bundle "$TMP/b.tar.gz"
if have_feature yaml; then
    printf 'cluster: x\nnode_types:\n  t:\n    nics: []\n    "%s": 1\n' "$EVIL" >"$TMP/key.map"
    inert 0 "a hostile map key" "$RAILYARD" map validate "$TMP/key.map"
    inert 1 "a hostile node name" "$RAILYARD" check --map "$RAILYARD_SRCDIR/tests/fixtures/maps/h100-ib-12hca.map" \
        --node "gpu$EVIL"
else
    for i in 1 2 3; do skip "built without libyaml"; done
fi
if [ -f "$SHARED_FIXTURES/ibnetdiscover/ibnetdiscover_junousi-ibtopotool_1.topo" ] && have_feature ibnetdisc; then
    sed "s/\"MT23108 InfiniHost Mellanox Technologies\"/\"$EVIL\"/" \
        "$SHARED_FIXTURES/ibnetdiscover/ibnetdiscover_junousi-ibtopotool_1.topo" >"$TMP/ibnd.topo"
    [ "$(raw "$TMP/ibnd.topo")" -gt 0 ]; ok $? "the dump carries the hostile NodeDescription"
    inert 0 "a hostile NodeDescription" "$RAILYARD" fabric --ibnetdiscover "$TMP/ibnd.topo" -v
    inert 0 "a hostile NodeDescription, JSON" "$RAILYARD" fabric --ibnetdiscover "$TMP/ibnd.topo" --json
else
    for i in 1 2 3; do skip "shared ibnetdiscover fixtures absent, or built without ibnetdisc"; done
fi

# an archived run from elsewhere: hostile strings in report.json (values and a key) come out of
# every format inert; a hostile first line is named inert
if have_feature jansson && command -v jq >/dev/null; then
    mkdir -p "$TMP/run" "$TMP/badrun"
    jq --arg e "$EVIL" '.findings[0].subject = "node2" + $e | .findings[0].observed = $e |
        .node_names[0] = "n" + $e | .extra = {("k" + $e): $e}' \
        "$RAILYARD_FIXTURES/reports/demo-fabric/report.json" >"$TMP/run/report.json"
    for f in text json junit prometheus html; do
        inert 0 "report show --format $f, hostile strings in report.json" \
            "$RAILYARD" report show "$TMP/run" --format $f
    done
    "$RAILYARD" report show "$TMP/run" --format json | jq -e --arg e "$EVIL" \
        '.findings[0].observed | test("\\\\x1b") or . == $e' >/dev/null
    ok $? "report show --format json: still JSON, the hostile string kept (as escapes)"
    printf '%s\n{}\n' "$EVIL" >"$TMP/badrun/report.json"
    inert 1 "report show, a hostile first line" "$RAILYARD" report show "$TMP/badrun"
    # found by fuzzing (fuzz_report): numbers past what an int holds, and a collective's bar of
    # -1e300 against a bound of 1e-300, are read as unknown or clamped, never converted out of
    # range (undefined behaviour: a count of -2147483648, a bar of negative width)
    mkdir -p "$TMP/bignum"
    jq '.summary.fail = 3592120000 | .summary.warn = -1e300 | .collectives = {library: "mpi",
        results: [{op: "allreduce", purpose: "phase", bytes: 1048576, rail: 0,
                   busbw_gbps: -1e300, bound_gbps: 1e-300, verdict: "ok"}]}' \
        "$RAILYARD_FIXTURES/reports/demo-fabric/report.json" >"$TMP/bignum/report.json"
    "$RAILYARD" report show "$TMP/bignum" >"$TMP/o" 2>&1
    is "$(tail -1 "$TMP/o")" "0 failed, 0 warnings -> fail" "report show: counts past an int read as unknown (0)"
    "$RAILYARD" report show "$TMP/bignum" --format html >"$TMP/o.html" 2>&1
    is "$?:$(grep -c 'class="coll-bars"' "$TMP/o.html"):$(grep -o 'width="-[0-9]*"' "$TMP/o.html" | head -1)" "0:1:" \
        "report show --format html: the collective's bar drawn, no negative width"
else
    for i in 1 2 3 4 5 6 7 8 9 10; do skip "built without jansson or jq missing"; done
fi
# a history database from elsewhere: its text shown inert, in text and JSON
if have_feature sqlite && command -v python3 >/dev/null; then
    RAILYARD_ARCHIVE= "$RAILYARD" check --archive "$TMP/arch" --node gpu042 \
        --nvbandwidth "$RAILYARD_FIXTURES/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt" >/dev/null 2>&1
    EVIL=$EVIL python3 - "$TMP/arch/history.db" <<'PY'
import os, sqlite3, sys
e = os.environ["EVIL"].encode("utf-8", "surrogateescape")
c = sqlite3.connect(sys.argv[1])
c.text_factory = bytes
for t, col in (("runs", "node"), ("runs", "verdict"), ("runs", "started"), ("gpu_figures", "name")):
    c.execute("update %s set %s = ? || %s" % (t, col, col), (e,))
c.commit()
PY
    for a in "" "--json" "--gpu 0-1" "--gpu 0-1 --json"; do
        # shellcheck disable=SC2086
        inert 1 "history $a, hostile text in history.db" "$RAILYARD" history --archive "$TMP/arch" $a
    done
else
    for i in 1 2 3 4 5 6 7 8; do skip "built without SQLite or python3 missing"; done
fi

# the health check (root, from slurmd): railyard's messages in a private scratch folder that
# goes with it, and a hostile map name never reaches its log raw; no scratch folder, no check,
# never a drain
HC=$RAILYARD_SRCDIR/scripts/railyard-healthcheck
mkdir "$TMP/scr"
RAILYARD_BIN=$RAILYARD RAILYARD_MAP="$TMP/m$EVIL" SLURMD_NODENAME=n1 TMPDIR=$TMP/scr sh "$HC" >"$TMP/hc" 2>&1
is "$? $(ls -A "$TMP/scr" | wc -l) $(raw "$TMP/hc")" "0 0 0" \
    "health check that cannot judge: exit 0, its scratch folder gone, nothing raw in its log"
grep -q 'could not judge (exit 2), not draining: .*m\\x1b' "$TMP/hc"
ok $? "...it says why, the map's name shown inert: $(head -c 200 "$TMP/hc")"
RAILYARD_BIN=$RAILYARD SLURMD_NODENAME=n1 TMPDIR=$TMP/none sh "$HC" >"$TMP/hc" 2>&1
is "$?:$(grep -c 'cannot make a scratch folder under .*/none, not checking, not draining' "$TMP/hc")" "0:1" \
    "no scratch folder: no check, exit 0, never a drain"
done_testing
