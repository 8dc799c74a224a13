#!/bin/sh
# A gather bundle keeps what NVML said on the node (its "nvml" record), so that a replay judges
# the driver and the NVLinks as a check on the node did. The reference is a real H200 node: its
# live `railyard check --json` and its bundle (tests/fixtures/h200-vm/SOURCE.md) must agree
# finding for finding; the bundle gathered there before the record existed does not (the
# driver unjudged, NVLink "not judged"), and tests/gpu/replay-compare.py says so. A record of a
# driver that was gone fails gpu.driver; one of a driver that failed cannot judge (exit 2); a
# record that is not one is refused with bundle, file and line. A board of four H100 with one
# GPU's NVLinks short fails on that GPU alone.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature libarchive || skip_all "built without libarchive: bundles are not read"
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v python3 >/dev/null || skip_all "python3 is not installed"
command -v tar >/dev/null || skip_all "tar is not installed"
X=$RAILYARD_FIXTURES
CMP=$RAILYARD_SRCDIR/tests/gpu/replay-compare.py

# the H200 node, live and replayed
"$RAILYARD" check --no-archive --json --bundle "$X/bundles/h200-vm-nvml.tar.gz" >"$TMP/replay.json"
is $? 0 "the H200 node's bundle replays: exit 0, as on the node"
python3 "$CMP" "$X/h200-vm/check-live.json" "$TMP/replay.json" >"$TMP/cmp"
is "$?:$(tail -1 "$TMP/cmp")" \
    "0:replay-compare: the bundle judges as the node: 4 findings, 0 not judged, verdict pass" \
    "...and judges as the node did (gpu.driver answering, no NVLink exposed: a warning)"
"$RAILYARD" check --no-archive --bundle "$X/bundles/h200-vm-nvml.tar.gz" >"$TMP/out"
grep -q 'sources .*nvml (driver 580.159.04, gathered), bundle ' "$TMP/out"
ok $? "...the sources say NVML's answers were gathered, with the driver's version"
"$RAILYARD" check --no-archive --json --bundle "$X/bundles/h200-vm.tar.gz" >"$TMP/old.json"
python3 "$CMP" "$X/h200-vm/check-live.json" "$TMP/old.json" >"$TMP/cmp"
is "$?:$(grep -c '^only live' "$TMP/cmp"):$(grep -c '^not judged only replay' "$TMP/cmp")" "1:2:1" \
    "a bundle without the record does not judge as the node (2 findings only live, 1 not judged)"

# a bundle: the H200 node's, with another record in place of its own
mkb() { # NAME: bundle $TMP/NAME.tar.gz from $TMP/rec
    rm -rf "$TMP/b" && mkdir "$TMP/b" && tar -xzf "$X/bundles/h200-vm-nvml.tar.gz" -C "$TMP/b" &&
        cp "$TMP/rec" "$TMP/b/railyard-bundle-vm/nvml" &&
        tar -czf "$TMP/$1.tar.gz" -C "$TMP/b" railyard-bundle-vm
}
printf 'railyard-nvml 1\ndriver absent no NVIDIA driver (libnvidia-ml.so.1: cannot open shared object file: No such file or directory)\n' >"$TMP/rec"
mkb absent
"$RAILYARD" check --no-archive --bundle "$TMP/absent.tar.gz" >"$TMP/out"
is "$?:$(grep '^FAIL' "$TMP/out" | awk '{print $2, $3}')" "1:gpu.driver vm/gpu0" \
    "a driver gone when gathered: the GPU on the bus fails gpu.driver (exit 1)"
grep -q 'observed no NVIDIA driver (libnvidia-ml.so.1: cannot open' "$TMP/out"
ok $? "...with what NVML said"
"$RAILYARD" check --no-archive --reason --bundle "$TMP/absent.tar.gz" >"$TMP/out"
grep -q '^railyard: gpu.driver gpu0 no NVIDIA driver' "$TMP/out"; ok $? "...and the node reason names it ($(cat "$TMP/out"))"

printf 'railyard-nvml 1\ndriver failed nvmlInit_v2: Driver/library version mismatch\n' >"$TMP/rec"
mkb failed
"$RAILYARD" check --no-archive --bundle "$TMP/failed.tar.gz" >"$TMP/out" 2>"$TMP/err"
is $? 2 "a driver that failed when gathered: cannot judge (exit 2), as on the node"
grep -q "$TMP/failed.tar.gz: .*/nvml: the NVIDIA driver failed when the bundle was gathered: nvmlInit_v2: Driver/library version mismatch" "$TMP/err"
ok $? "...naming the bundle and what the driver said"

# records that are not one: exit 2, the bundle, the file and the line
bad() { # LINE-NUMBER WHAT RECORD-TEXT
    printf '%b' "$3" >"$TMP/rec"
    mkb bad
    "$RAILYARD" check --no-archive --bundle "$TMP/bad.tar.gz" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    grep -q "$TMP/bad.tar.gz: .*/nvml:$1: $2" "$TMP/err"
    is "$rc:$?" "2:0" "refused at line $1: $2"
}
D='railyard-nvml 1\ndriver answering 580.159.04\n'
G='gpu 0000:00:06.0 0 0 5 16 5 16 150754820096 - NVIDIA H200'
bad 1 "not a railyard NVML record" 'railyard-nvml 2\ndriver answering 1\n'
bad 2 "the driver is answering, absent or failed, not 'maybe'" 'railyard-nvml 1\ndriver maybe 1\n'
bad 2 "the driver's version or why is missing" 'railyard-nvml 1\ndriver answering\n'
bad 3 "a second driver line" "${D}driver absent gone\n"
bad 2 "'gpu' before a 'driver answering' line" "railyard-nvml 1\n$G\ndriver answering 1\n"
bad 3 "'gpu' before a 'driver answering' line" "railyard-nvml 1\ndriver absent gone\n$G\n"
bad 3 "not a line of an NVML record: 'gpus'" "${D}gpus 0000:00:06.0\n"
bad 3 "the GPU's PCI address is not a PCI address: 'gpu0'" "${D}gpu gpu0 0 0 5 16 5 16 1 - x\n"
bad 3 "the count of NVLinks must be a whole number from -1 to 64, not '65'" "${D}gpu 0000:00:06.0 65 0 5 16 5 16 1 - x\n"
bad 3 "the count of active NVLinks must be a whole number from -1 to 64, not '1x'" "${D}gpu 0000:00:06.0 18 1x 5 16 5 16 1 - x\n"
bad 3 "the PCIe generation must be a whole number from -1 to 16, not '-2'" "${D}gpu 0000:00:06.0 0 0 -2 16 5 16 1 - x\n"
bad 3 "19 of 18 NVLinks active" "${D}gpu 0000:00:06.0 18 19 5 16 5 16 1 - x\n"
bad 3 "-1 of 18 NVLinks active" "${D}gpu 0000:00:06.0 18 -1 5 16 5 16 1 - x\n"
bad 3 "the GPU's name is missing" "${D}gpu 0000:00:06.0 0 0 5 16 5 16 1 -\n"
bad 3 "the memory in bytes must be a whole number from 0" "${D}gpu 0000:00:06.0 0 0 5 16 5 16 -1 - x\n"
bad 4 "the count of NVLinks must be a whole number from 1 to 64, not '0'" "$D$G\nnvlink 0000:00:06.0 0000:00:07.0 0\n"
bad 4 "more than the record holds: '9'" "$D$G\nnvswitch 0000:00:06.0 ffffffff:ff:ff.0 18 9\n"
bad 4 "the far end is not a PCI address: 'switch'" "$D$G\nnvswitch 0000:00:06.0 switch 18\n"
bad 4 "the far end is missing" "$D$G\nnvlink 0000:00:06.0\n"
for r in 'empty file:' 'no driver line:railyard-nvml 1\n'; do
    printf '%b' "${r#*:}" >"$TMP/rec"
    mkb none
    "$RAILYARD" check --no-archive --bundle "$TMP/none.tar.gz" >/dev/null 2>"$TMP/err"
    is "$?:$(grep -c "/nvml: ${r%%:*}\$" "$TMP/err")" "2:1" "a record with ${r%%:*}: refused (exit 2)"
done
awk 'BEGIN { printf "railyard-nvml 1\ndriver answering "; for (i = 0; i < 1100; i++) printf "9"; print "" }' >"$TMP/rec"
mkb long
"$RAILYARD" check --no-archive --bundle "$TMP/long.tar.gz" >/dev/null 2>"$TMP/err"
is "$?:$(grep -c '/nvml:2: line longer than 1022 bytes' "$TMP/err")" "2:1" "a line past 1022 bytes: refused (exit 2)"

# four H100 on the bus (sysfs only), NVML's record: 18 of 18 NVLinks to the switches on three
# GPUs, 16 on the third; then two pairs wired directly, one of them short
board() { # ACTIVE-PER-GPU...: bundle $TMP/board.tar.gz
    rm -rf "$TMP/h" && mkdir -p "$TMP/h/railyard-bundle-n1" && cd "$TMP/h/railyard-bundle-n1" || return 1
    printf 'railyard-bundle 1\nrailyard 0.1.0\nhost n1\ndate 2026-12-04T00:00:00Z\n' >railyard-bundle
    echo n1 >hostname
    printf 'railyard-nvml 1\ndriver answering 580.95.05\n' >nvml
    i=1
    for a in "$@"; do
        d=sys/bus/pci/devices/0000:0$i:00.0
        mkdir -p "$d"
        echo 0x030200 >"$d/class"; echo 0x10de >"$d/vendor"; echo 0x2330 >"$d/device"
        echo 0 >"$d/numa_node"
        for k in current max; do echo "32.0 GT/s PCIe" >"$d/${k}_link_speed"; echo 16 >"$d/${k}_link_width"; done
        echo "gpu 0000:0$i:00.0 18 $a 5 16 5 16 85520809984 - NVIDIA H100 80GB HBM3" >>nvml
        i=$((i + 1))
    done
    cat >>nvml
    cd "$TMP" && tar -czf "$TMP/board.tar.gz" -C "$TMP/h" railyard-bundle-n1
}
printf 'nvswitch 0000:0%d:00.0 0000:a0:00.0 %d\n' 1 18 2 18 3 16 4 18 | board 18 18 16 18
"$RAILYARD" check --no-archive --bundle "$TMP/board.tar.gz" >"$TMP/out"
is "$?:$(grep '^FAIL' "$TMP/out" | awk '{print $2, $3}' | tr '\n' ';')" "1:nvlink.state n1/gpu2;" \
    "four H100, the third with 16 of 18 NVLinks: it alone fails nvlink.state (exit 1)"
grep -q 'nvlink.state .*n1/gpu2 .*expected 18 active, observed 16 active' "$TMP/out"; ok $? "...18 expected, 16 observed"
printf 'nvswitch 0000:0%d:00.0 0000:a0:00.0 18\n' 1 2 3 4 | board 18 18 18 18
"$RAILYARD" check --no-archive --bundle "$TMP/board.tar.gz" >"$TMP/out"
is "$?:$(grep -c '^FAIL' "$TMP/out")" "0:0" "the same board with every NVLink up passes"
"$RAILYARD" inventory --json --bundle "$TMP/board.tar.gz" >"$TMP/inv.json"
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s:%s/%s:%s" % (g["pci"], g["nvlink"]["active"], g["nvlink"]["links"], g["memory_bytes"]) for g in d["gpus"]))' "$TMP/inv.json")" \
    "0000:01:00.0:18/18:85520809984 0000:02:00.0:18/18:85520809984 0000:03:00.0:18/18:85520809984 0000:04:00.0:18/18:85520809984" \
    "...each GPU with its links and memory from the record"
printf 'nvlink 0000:01:00.0 0000:02:00.0 18\nnvlink 0000:03:00.0 0000:04:00.0 12\n' | board 18 18 12 12
"$RAILYARD" inventory --bundle "$TMP/board.tar.gz" >"$TMP/out"
grep -q '^  GPU0   X       NV18 ' "$TMP/out" && grep -q '^  GPU2   .*X       NV12' "$TMP/out"
ok $? "two pairs wired directly: NV18 and NV12 in the GPU matrix"
"$RAILYARD" check --no-archive --bundle "$TMP/board.tar.gz" >"$TMP/out"
is "$?:$(grep '^FAIL  nvlink.state' "$TMP/out" | awk '{print $3}' | tr '\n' ' ')" "1:n1/gpu2 n1/gpu3 " \
    "...the short pair's two GPUs fail nvlink.state, the full pair passes"

# gather on this machine writes the record: NVML pointed at a library that is not there
RAILYARD_NVML_LIBRARY=$TMP/no-such-libnvidia-ml.so.1 "$RAILYARD" gather -o "$TMP/here.tar.gz"
is $? 0 "gather without an NVIDIA driver: exit 0"
tar -xzf "$TMP/here.tar.gz" -O --wildcards '*/nvml' >"$TMP/nvml" 2>/dev/null
is "$(head -1 "$TMP/nvml"):$(sed -n 2p "$TMP/nvml" | cut -d' ' -f1-2)" "railyard-nvml 1:driver absent" \
    "...its bundle records the driver absent"
grep -q "no-such-libnvidia-ml.so.1" "$TMP/nvml"; ok $? "...with what NVML's loader said"
done_testing
