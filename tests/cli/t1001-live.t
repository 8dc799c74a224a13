#!/bin/sh
# `railyard inventory` on the machine running the tests.
. "$RAILYARD_SRCDIR/tests/lib.sh"

"$RAILYARD" inventory >"$TMP/out" 2>"$TMP/err"; is $? 0 "inventory on this machine exits 0"
[ ! -s "$TMP/err" ]; ok $? "nothing on stderr"
grep -q "^railyard inventory: " "$TMP/out"; ok $? "report names the host"
grep -q "sources  hwloc live, sysfs /sys" "$TMP/out"; ok $? "live sources are hwloc and /sys"
if [ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband)" ]; then
    skip "this machine has RDMA devices"
else
    grep -q "no RDMA devices" "$TMP/out"; ok $? "says 'no RDMA devices' as a fact"
fi
if ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then
    skip "this machine has an NVIDIA driver"
else
    grep -q "no NVIDIA driver" "$TMP/out"; ok $? "says 'no NVIDIA driver' as a fact"
fi
# The NVML library is taken from RAILYARD_NVML_LIBRARY: a library without NVML's entry points
# is reported as a missing driver, never as a failure.
RAILYARD_NVML_LIBRARY=libc.so.6 "$RAILYARD" inventory >"$TMP/out2"; is $? 0 "a library that is not NVML: exit 0"
grep -q "no NVIDIA driver (libc.so.6 lacks nvmlInit_v2" "$TMP/out2"; ok $? "...and the reason is given"

if have_feature jansson && command -v jq >/dev/null; then
    "$RAILYARD" inventory --json >"$TMP/j"; is $? 0 "inventory --json exits 0"
    jq -e . "$TMP/j" >/dev/null; ok $? "output is valid JSON"
    is "$(jqget .schema_version "$TMP/j")" 1 "schema_version is 1"
    is "$(jqget .command "$TMP/j")" inventory "command is inventory"
    jq -e '.gpus|type=="array"' "$TMP/j" >/dev/null && jq -e '.nics|type=="array"' "$TMP/j" >/dev/null
    ok $? "gpus and nics are arrays"
    jq -e '.netdevs|map(.name)|index("lo")!=null' "$TMP/j" >/dev/null; ok $? "the loopback interface is listed"
    jq -e '.node.pus >= 1 and (.node.numa|length) >= 1' "$TMP/j" >/dev/null; ok $? "CPUs and NUMA nodes are counted"
    if [ ! -d /sys/class/infiniband ]; then
        jq -e '.notes|index("no RDMA devices")!=null' "$TMP/j" >/dev/null; ok $? "JSON notes say no RDMA devices"
    else
        skip "this machine has RDMA devices"
    fi
else
    skip "built without jansson or jq missing: JSON not checked"
fi
done_testing
