#!/bin/sh
# Golden outputs of `railyard inventory` (text and JSON) on real captures.
# Regenerate with: RAILYARD_UPDATE_GOLDEN=1 make check TESTS=tests/cli/t1007-golden.t
# and review the diff of tests/fixtures/golden/ like code.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared nccl-topo/azure_ndv5-topo.xml
for f in libxml2 jansson libpci; do
    have_feature $f || skip_all "golden outputs are recorded with $f; this build lacks it"
done
command -v jq >/dev/null || skip_all "jq is not installed"
GOLDEN=$RAILYARD_SRCDIR/tests/fixtures/golden

mkdir -p "$TMP/h100/class"
cp -r "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" "$TMP/h100/class/infiniband"

golden() { # NAME ARGS...: compare text and JSON output with the recorded ones
    name=$1; shift
    "$RAILYARD" inventory "$@" 2>&1 | sed -e "s#$SHARED_FIXTURES#FIXTURES#g" -e "s#$TMP#TMP#g" >"$TMP/$name.txt"
    "$RAILYARD" inventory --json "$@" 2>&1 | jq 'del(.version, .build)' |
        sed -e "s#$SHARED_FIXTURES#FIXTURES#g" -e "s#$TMP#TMP#g" >"$TMP/$name.json"
    for ext in txt json; do
        golden_cmp "$TMP/$name.$ext" "$GOLDEN/$name.$ext" "$name.$ext matches the golden output"
    done
}
golden nccl-azure-ndv5 --nccl-topo "$SHARED_FIXTURES/nccl-topo/azure_ndv5-topo.xml"
golden nccl-aws-p4d --nccl-topo "$SHARED_FIXTURES/nccl-topo/aws_p4d-24xl-topo.xml"
golden hwloc-lassen --hwloc-xml "$SHARED_FIXTURES/hwloc-xml/llnl-mpibind_coral-lassen.xml"
golden sysfs-h100 --sysfs-root "$TMP/h100"
done_testing
