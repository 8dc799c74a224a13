#!/bin/sh
# Bad input: a one-line error naming the file (and line), exit 2, no crash.
. "$RAILYARD_SRCDIR/tests/lib.sh"

one_line_exit2() { # DESCRIPTION PATTERN COMMAND...
    d=$1; pat=$2; shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
    is "$rc" 2 "$d: exit 2"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err"
    ok $? "$d: one line naming it"
    [ -s "$TMP/err" ] && sed 's/^/# /' "$TMP/err"
}

one_line_exit2 "missing hwloc XML" "cannot open $TMP/nope.xml" \
    "$RAILYARD" inventory --hwloc-xml "$TMP/nope.xml"
one_line_exit2 "missing NCCL topology" "$TMP/nope.xml" \
    "$RAILYARD" inventory --nccl-topo "$TMP/nope.xml"
one_line_exit2 "missing bundle" "cannot open $TMP/nope.tar.gz" \
    "$RAILYARD" inventory --bundle "$TMP/nope.tar.gz"
one_line_exit2 "missing sysfs root" "$TMP/nosys" \
    "$RAILYARD" inventory --sysfs-root "$TMP/nosys"
mkdir "$TMP/empty"
one_line_exit2 "empty sysfs root" "$TMP/empty: not a sysfs tree" \
    "$RAILYARD" inventory --sysfs-root "$TMP/empty"

# a sysfs value that is not a number
mkdir -p "$TMP/sys/class/infiniband/mlx5_0/ports/1"
echo "4: ACTIVE" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/state"
echo "5: LinkUp" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/phys_state"
echo "fast Gb/sec" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/rate"
one_line_exit2 "rate that is not a number" "class/infiniband/mlx5_0/ports/1/rate: line 1: 'fast Gb/sec' is not a rate" \
    "$RAILYARD" inventory --sysfs-root "$TMP/sys"
echo "400 Gb/sec (4X NDR)" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/rate"
echo "InfiniBand" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/link_layer"
echo "0xzz" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/lid"
one_line_exit2 "LID that is not a number" "ports/1/lid: line 1: '0xzz' is not a number" \
    "$RAILYARD" inventory --sysfs-root "$TMP/sys"
echo "0x12" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/lid"
echo "ACTIVE" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/state"
one_line_exit2 "port state without a number" "ports/1/state: line 1: 'ACTIVE' is not a port state" \
    "$RAILYARD" inventory --sysfs-root "$TMP/sys"
echo "4: ACTIVE" >"$TMP/sys/class/infiniband/mlx5_0/ports/1/state"
"$RAILYARD" inventory --sysfs-root "$TMP/sys" >/dev/null 2>&1; is $? 0 "the repaired tree loads"

if have_feature libxml2; then
    if [ -f "$SHARED_FIXTURES/nccl-topo/azure_ndv5-topo.xml" ]; then
        head -c 900 "$SHARED_FIXTURES/nccl-topo/azure_ndv5-topo.xml" >"$TMP/trunc-nccl.xml"
        one_line_exit2 "truncated NCCL topology" "$TMP/trunc-nccl.xml:[0-9]*: malformed XML" \
            "$RAILYARD" inventory --nccl-topo "$TMP/trunc-nccl.xml"
    else
        skip "shared fixtures absent"; skip "shared fixtures absent"
    fi
    if [ -f "$SHARED_FIXTURES/hwloc-xml/llnl-mpibind_coral-lassen.xml" ]; then
        head -c 20000 "$SHARED_FIXTURES/hwloc-xml/llnl-mpibind_coral-lassen.xml" >"$TMP/trunc-hwloc.xml"
        one_line_exit2 "truncated hwloc XML" "$TMP/trunc-hwloc.xml:[0-9]*: malformed XML" \
            "$RAILYARD" inventory --hwloc-xml "$TMP/trunc-hwloc.xml"
    else
        skip "shared fixtures absent"; skip "shared fixtures absent"
    fi
    printf '<system version="1">\n  <cpu numaid="0">\n    <pci busid="not-an-address" class="0x030200"/>\n  </cpu>\n</system>\n' >"$TMP/badbus.xml"
    one_line_exit2 "NCCL busid that is not a PCI address" "$TMP/badbus.xml:3: <pci> busid 'not-an-address'" \
        "$RAILYARD" inventory --nccl-topo "$TMP/badbus.xml"
    printf '<topology version="2.0"/>\n' >"$TMP/topo.xml"
    one_line_exit2 "hwloc XML given to --nccl-topo" "expected an NCCL topology <system>" \
        "$RAILYARD" inventory --nccl-topo "$TMP/topo.xml"
    : >"$TMP/empty.xml"
    one_line_exit2 "empty XML file" "$TMP/empty.xml" "$RAILYARD" inventory --hwloc-xml "$TMP/empty.xml"
else
    skip "built without libxml2: XML errors come from hwloc without line numbers"
fi
echo "not a tarball" >"$TMP/bad.tar.gz"
mkdir -p "$TMP/fake/x" && tar -czf "$TMP/fake.tar.gz" -C "$TMP/fake" x
if have_feature libarchive; then
    one_line_exit2 "a bundle that is not a tar.gz" "$TMP/bad.tar.gz: not a readable tar.gz bundle" \
        "$RAILYARD" inventory --bundle "$TMP/bad.tar.gz"
    one_line_exit2 "a tar.gz that is not a bundle" "not a railyard gather bundle" \
        "$RAILYARD" inventory --bundle "$TMP/fake.tar.gz"
else
    one_line_exit2 "a bundle without libarchive: not read" "built without libarchive" \
        "$RAILYARD" inventory --bundle "$TMP/fake.tar.gz"
fi
# found by fuzzing (tests/fuzz/fuzz_hwloc_xml): hwloc 2.9 crashed loading an object with a
# cpuset but no complete_cpuset; such a file is refused with file:line before hwloc reads it
if have_feature libxml2; then
    F=$RAILYARD_FIXTURES/hwloc/hgx-h100-4gpu.xml
    awk '!d && /complete_cpuset/ {sub(/complete_cpuset/, "comPlete_cpuset"); d = 1} {print}' "$F" >"$TMP/sets.xml"
    line=$(grep -n -m1 comPlete_cpuset "$TMP/sets.xml" | cut -d: -f1)
    type=$(sed -n "${line}s/.*type=\"\([A-Za-z]*\)\".*/\1/p" "$TMP/sets.xml")
    "$RAILYARD" inventory --hwloc-xml "$TMP/sets.xml" >/dev/null 2>"$TMP/err"
    is "$? $(cat "$TMP/err")" \
        "2 railyard: inventory: $TMP/sets.xml:$line: <object type=\"$type\"> has a CPU or NUMA set but no complete_cpuset" \
        "hwloc XML with a cpuset and no complete_cpuset: refused with file:line, not given to hwloc"
else
    skip "built without libxml2: hwloc XML is given to hwloc unchecked"
fi

# a map that cannot be read, with an archive: one line naming the map (not a second one from the
# archive), and the run archived with the error, without a copy of the map (archives are JSON,
# maps YAML: a build without either says so instead)
if have_feature jansson && have_feature yaml; then
    for m in "$TMP/no-such-map.yaml" "$TMP"; do
        rm -rf "$TMP/arch"
        one_line_exit2 "check --archive, map $m" "$m" "$RAILYARD" check --archive "$TMP/arch" --map "$m"
        r=$(find "$TMP/arch" -name report.json)
        [ -n "$r" ] && grep -q '"verdict": *"error"' "$r" && grep -qF "$m" "$r" && [ ! -e "$(dirname "$r")/map.yaml" ]
        ok $? "...the run is archived with the error and no map.yaml ($r)"
    done
else
    skip "built without jansson or libyaml: no archive of a map's run"
fi
# railyard-fabric's --latency-sweep and --spread: 0 to 16 rings (0 turns the default's 2 and 1
# off), refused past either edge and when not a number, before any rank starts
FAB=$(dirname "$RAILYARD")/railyard-fabric
if [ -x "$FAB" ]; then
    for o in latency-sweep spread; do
        for v in 17 -1 2x; do
            ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$FAB" --$o "$v" >/dev/null 2>"$TMP/err"
            is "$?:$(cat "$TMP/err")" "2:railyard-fabric: --$o takes 0 to 16, not '$v'" \
               "railyard-fabric --$o $v: refused, naming the range"
        done
    done
else
    skip "railyard-fabric not built (no MPI)"
fi
done_testing
