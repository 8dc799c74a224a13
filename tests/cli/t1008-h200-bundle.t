#!/bin/sh
# A bundle written by `railyard gather` on a GPU node (one NVIDIA H200, 10de:2335, in a
# Firecracker VM with driver 580): it replays, and check --gdr reads it as a capture. Its GPU is
# newer than Debian 12's pci.ids: the name lookup that misses used to crash in libpci (message
# handlers unset).
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"
have_feature libarchive || skip_all "built without libarchive: bundles are not read"
B=$RAILYARD_FIXTURES/bundles/h200-vm.tar.gz

"$RAILYARD" inventory --bundle "$B" --json >"$TMP/inv.json" 2>"$TMP/err"
is $? 0 "the H200 bundle replays (exit 0)"
is "$(jq -r '.gpus | length' "$TMP/inv.json")" 1 "one GPU"
is "$(jq -r '.gpus[0] | "\(.pci) \(.vendor) Gen\(.pcie.cur_gen) x\(.pcie.cur_width)"' "$TMP/inv.json")" \
    "0000:00:06.0 NVIDIA Gen5 x16" "at 0000:00:06.0, NVIDIA, PCIe Gen5 x16"
jq -r '.gpus[0].model' "$TMP/inv.json" | grep -Eq '^(null|.*H200.*)$'
ok $? "model from the PCI ID database, or unknown ($(jq -r '.gpus[0].model' "$TMP/inv.json"))"
is "$(jq -r '.nics | length' "$TMP/inv.json")" 0 "no RDMA device on that node"
"$RAILYARD" inventory --bundle "$B" >/dev/null 2>&1
is $? 0 "text output too"

"$RAILYARD" check --gdr --bundle "$B" --json >"$TMP/gdr.json"
is $? 0 "check --gdr on the bundle: exit 0"
is "$(jq -r '.gdr | "\(.gpus) \(.rdma_devices) \(.peermem) \(.probe_ran) \(.not_judged)"' "$TMP/gdr.json")" \
    "1 0 null false GPUDirect RDMA not judged: no RDMA device" \
    "1 GPU, no NIC: not judged; no module list in a bundle; no probe of a capture"
done_testing
