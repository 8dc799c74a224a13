#!/bin/bash
# railyard check --gdr: GPUDirect RDMA readiness on sysfs/proc trees laid out as an HGX H100
# GPU/NIC pair (tests/gdr-tree.sh; the NIC is a real mlx5 capture), read through libpci as on a
# live node; lspci, where installed, reads the same trees as a cross-check. Then live on this
# machine, which has no GPU: nothing judged, the probe skipped with the reason.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared sysfs/gpud_h100_sys-class-infiniband/mlx5_0
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"
MLX=$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband/mlx5_0

tree() { # tree NAME [gdr-tree options]
    local n=$1
    shift
    "$RAILYARD_SRCDIR/tests/gdr-tree.sh" "$TMP/$n" "$MLX" "$@"
}
gdr() { # gdr NAME [check options]: check --gdr on tree NAME, JSON in $TMP/NAME.json
    local n=$1
    shift
    RAILYARD_PROC_ROOT=$TMP/$n/proc "$RAILYARD" check --gdr --sysfs-root "$TMP/$n/sys" "$@"
}
finding() { # finding NAME CHECK: "severity observed" of the first finding CHECK
    jq -r --arg c "$2" '[.findings[] | select(.check == $c)][0] | "\(.severity) \(.observed)"' "$TMP/$1.json"
}
has_libpci=0
have_feature libpci && has_libpci=1

tree ok
gdr ok --json >"$TMP/ok.json"; is $? 0 "healthy pair: exit 0"
is "$(finding ok gdr.driver)" "ok dma-buf (550.127.05, open kernel module, kernel 6.8.0-49-generic)" \
    "open kernel module on 6.8: dma-buf"
is "$(finding ok gdr.path)" "ok PIX" "GPU and NIC under one switch: PIX"
if [ $has_libpci -eq 1 ]; then
    is "$(finding ok gdr.acs)" "ok off on 2 bridges" "ACS read on both downstream ports: off"
else
    skip "built without libpci: ACS is not read"
fi
is "$(jq -r '.gdr | "\(.gpus) \(.rdma_devices) \(.peermem) \(.kernel_dmabuf) \(.probe) \(.probe_ran)"' "$TMP/ok.json")" \
    "1 1 false 1 null false" "report: 1 GPU, 1 NIC, no peermem, dma-buf kernel, no probe of a capture"

tree acs --acs 0x1d
gdr acs --json >"$TMP/acs.json"; rc=$?
if [ $has_libpci -eq 1 ]; then
    is $rc 1 "ACS P2P redirect on the switch ports: exit 1"
    is "$(finding acs gdr.acs)" \
        "fail ACS P2P redirect on 0000:17:00.0 (ReqRedir CmpltRedir), 0000:17:01.0 (ReqRedir CmpltRedir)" \
        "both downstream ports named, with the redirect bits"
    is "$(jq -r '[.findings[] | select(.check == "gdr.acs")][0].subject' "$TMP/acs.json")" "node/gpu0<->mlx5_0" \
        "the subject is the GPU/NIC pair"
    gdr acs --reason >"$TMP/reason"
    grep -q '^railyard: gdr.acs gpu0<->mlx5_0 ACS P2P redirect on 0000:17:00.0' "$TMP/reason"
    ok $? "--reason names the pair and the bridge: $(cat "$TMP/reason")"
    if command -v lspci >/dev/null; then
        lspci -A linux-sysfs -O "sysfs.path=$TMP/acs/sys/bus/pci" -vvv -s 17:00.0 2>/dev/null | grep -q 'ACSCtl:.*ReqRedir+ CmpltRedir+'
        ok $? "lspci reads the same tree: ACSCtl ReqRedir+ CmpltRedir+"
    else
        skip "lspci (pciutils) is not installed"
    fi
    # egress control alone also diverts P2P
    tree egress --acs 0x20
    gdr egress --json >"$TMP/egress.json"
    is "$(finding egress gdr.acs)" \
        "fail ACS P2P redirect on 0000:17:00.0 (EgressCtrl), 0000:17:01.0 (EgressCtrl)" "egress control is named"
    # source validation and translation blocking do not divert P2P
    tree sv --acs 0x03
    gdr sv --json >"$TMP/sv.json"; is $? 0 "source validation + translation blocking: exit 0"
    # an unprivileged view of config space: 64 bytes, no extended capabilities
    tree user
    for f in "$TMP"/user/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/*/config; do truncate -s 64 "$f"; done
    gdr user --json >"$TMP/user.json"; is $? 0 "extended config space unreadable: no finding, exit 0"
    jq -r '.gdr.not_judged' "$TMP/user.json" | grep -q 'ACS not judged: 0000:17:00.0: extended configuration space unreadable (run as root)'
    ok $? "...and the reason is given: $(jq -r .gdr.not_judged "$TMP/user.json")"
else
    for i in 1 2 3 4 5 6 7 8; do skip "built without libpci: ACS is not read"; done
fi
tree nocap --no-acs-cap
gdr nocap --json >"$TMP/nocap.json"; is $? 0 "a switch without ACS: exit 0"
is "$(jq '[.findings[] | select(.check == "gdr.acs")] | length' "$TMP/nocap.json")" 0 "...and no gdr.acs finding"

tree prop --proprietary
gdr prop --json >"$TMP/prop.json"; is $? 1 "proprietary module, no nvidia-peermem: exit 1"
is "$(finding prop gdr.driver)" "fail no nvidia-peermem; dma-buf: proprietary kernel module" \
    "gdr.driver names what is missing"
jq -r '[.findings[] | select(.check == "gdr.driver")][0].hint' "$TMP/prop.json" | grep -q 'modprobe nvidia-peermem'
ok $? "...with the remedy"
tree peer --proprietary --peermem
gdr peer --json >"$TMP/peer.json"; is $? 0 "proprietary module with nvidia-peermem: exit 0"
is "$(finding peer gdr.driver)" "ok nvidia-peermem loaded" "peer memory"
tree old --kernel 5.4.0-150-generic
gdr old --json >"$TMP/old.json"
is "$(finding old gdr.driver)" "fail no nvidia-peermem; dma-buf: kernel older than 5.12" \
    "open module on a 5.4 kernel: no dma-buf import"
tree nodrv --no-driver
gdr nodrv --json >"$TMP/nodrv.json"
is "$(finding nodrv gdr.driver)" "fail the NVIDIA kernel driver is not loaded" "no NVIDIA module"
tree phb --phb
gdr phb --json >"$TMP/phb.json"; is $? 0 "GPU and NIC under two root ports: a warning, exit 0"
is "$(finding phb gdr.path)" "warn PHB" "gdr.path PHB is a warning"
is "$(jq '[.findings[] | select(.check == "gdr.acs")] | length' "$TMP/phb.json")" 0 \
    "no ACS judgement where P2P crosses the host bridge anyway"
# no /proc in a capture: the driver flavour is unknown, not guessed from this machine
"$RAILYARD" check --gdr --sysfs-root "$TMP/ok/sys" --json >"$TMP/noproc.json"
is "$(finding noproc gdr.driver)" "fail no nvidia-peermem; dma-buf: driver flavour unknown" \
    "a capture without /proc: flavour unknown"
# a map can lower the severity
cat >"$TMP/m.yaml" <<'MAP'
cluster: t
severity: {gdr.acs: warn}
node_types:
  h: {nics: [{name: mlx5_0}]}
MAP
if have_feature yaml && [ $has_libpci -eq 1 ]; then
    gdr acs --map "$TMP/m.yaml" --json >"$TMP/acsw.json"; is $? 0 "severity gdr.acs: warn in the map: exit 0"
    is "$(finding acsw gdr.acs | cut -d' ' -f1)" warn "...as a warning"
else
    skip "needs libyaml and libpci"; skip "needs libyaml and libpci"
fi

# live, on this machine (no GPU here): nothing judged, the probe says why
"$RAILYARD" check --gdr --json >"$TMP/live.json"; rc=$?
is $rc 2 "live check --gdr without a GPU or NIC: nothing judged, exit 2 (cannot judge)"
jq -r '.gdr.not_judged' "$TMP/live.json" | grep -q '^GPUDirect RDMA not judged: no NVIDIA GPU'
ok $? "live: not judged, with the reason ($(jq -r .gdr.not_judged "$TMP/live.json"))"
jq -r '.gdr.probe' "$TMP/live.json" | grep -q '^skipped: '
ok $? "live: the GPU probe is skipped with the reason ($(jq -r .gdr.probe "$TMP/live.json"))"
"$RAILYARD" check --gdr >"$TMP/live.txt"
grep -q '^  gdr      probe: skipped' "$TMP/live.txt"; ok $? "text output shows the probe line"
done_testing
