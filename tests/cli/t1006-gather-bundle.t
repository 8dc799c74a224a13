#!/bin/sh
# gather + --bundle: a bundle replays to the same inventory as the live machine.
. "$RAILYARD_SRCDIR/tests/lib.sh"
command -v tar >/dev/null || skip_all "tar is not installed"

"$RAILYARD" gather -o "$TMP/node.tar.gz" 2>"$TMP/err"; is $? 0 "gather exits 0"
[ -s "$TMP/node.tar.gz" ]; ok $? "bundle written"
tar -tzf "$TMP/node.tar.gz" >"$TMP/list"; ok $? "bundle is a tar.gz"
grep -q "^railyard-bundle-[^/]*/railyard-bundle$" "$TMP/list"; ok $? "bundle has its marker"
grep -q "/hwloc.xml$" "$TMP/list"; ok $? "bundle has the hwloc topology"
grep -q "^railyard-bundle-[^/]*/nvml$" "$TMP/list"; ok $? "bundle has NVML's answers (its nvml record)"
grep -q "/sys/class/net/lo/mtu$" "$TMP/list"; ok $? "bundle has class/net attributes"
grep -q "/sys/bus/pci/devices/" "$TMP/list" || [ ! -d /sys/bus/pci/devices ]; ok $? "bundle has PCI attributes"

if ! have_feature libarchive; then
    "$RAILYARD" inventory --bundle "$TMP/node.tar.gz" >/dev/null 2>"$TMP/err"
    is "$? $(cat "$TMP/err")" "2 railyard: inventory: $TMP/node.tar.gz: this railyard was built without libarchive, which bundles are read with (they are checked member by member before anything is written)" \
        "built without libarchive: --bundle is refused with the reason (exit 2)"
    done_testing
    exit
fi
"$RAILYARD" inventory --bundle "$TMP/node.tar.gz" >"$TMP/b.txt" 2>"$TMP/err"; is $? 0 "inventory --bundle exits 0"
grep -q "sources  hwloc .*hwloc.xml, sysfs .*/sys, nvml (.*gathered), bundle $TMP/node.tar.gz" "$TMP/b.txt"
ok $? "sources name the bundle and what NVML said when it was gathered"
grep -q "^railyard inventory: $(hostname)$" "$TMP/b.txt"; ok $? "host name kept in the bundle"
# a private TMPDIR: other tests running at the same time unpack bundles too
mkdir "$TMP/unpack"
TMPDIR=$TMP/unpack "$RAILYARD" inventory --bundle "$TMP/node.tar.gz" >/dev/null
is "$(ls -A "$TMP/unpack" | wc -l)" 0 "the unpacked bundle is removed"

if have_feature jansson && command -v jq >/dev/null; then
    "$RAILYARD" inventory --json >"$TMP/live.json"
    "$RAILYARD" inventory --json --bundle "$TMP/node.tar.gz" >"$TMP/bundle.json"
    # NUMA memory sizes move on a VM with a memory balloon: compare the NUMA layout only
    for k in gpus nics netdevs affinity '[.node.numa[]|{os_index,pus}]' '.node.pus' '.node.cores'; do
        case $k in .*|\[*) q=$k ;; *) q=".$k" ;; esac
        is "$(jq -c "$q" "$TMP/bundle.json")" "$(jq -c "$q" "$TMP/live.json")" "bundle and live agree on $k"
    done
else
    skip "built without jansson or jq missing"
fi
"$RAILYARD" gather -o "$TMP/no/such/dir/x.tar.gz" 2>"$TMP/err"; is $? 2 "gather into a missing directory: exit 2"
[ "$(wc -l <"$TMP/err")" -eq 1 ]; ok $? "...with a one-line message"
done_testing
