#!/bin/bash
# Faults injected into real captures: every healthy NCCL topology capture, NVLink status and
# ibstat or ibstatus output the project holds (its own and other projects': tests/fixtures/nccl,
# ../shared/fixtures/nccl-topo, nvlink and ibstat) is its own golden node, and
# tests/faults/inject.py writes a variant per fault class the capture can express, on a part
# drawn with the seed. NCCL: a GPU's PCIe link a generation down (gpu.pcie.gen) or at half its
# lanes (gpu.pcie.width), the same of an RDMA NIC (nic.pcie.gen, nic.pcie.width), an RDMA port at
# half its rate (nic.port.rate: NCCL lists only ports it can use, so a port whose state the
# capture does not give is judged by its rate), a GPU one NVLink short (nvlink.state). NVLink
# status: one link inactive. ibstat: an active port down (nic.port.state, nic.port.phys_state)
# or at half its rate; the same in a sysfs tree (class/infiniband). hwloc XML (links given only as GB/s): a GPU's link at half its rate is
# listed under not judged for gpu.pcie.gen, never passed; a bridge two levels or more above an
# RDMA NIC at half its rate gives pcie.path on that bridge. ibnetdiscover dumps, checked by
# railyard fabric against the healthy dump: a cable trained at 1x (link.width), one speed down
# (link.speed), unplugged at both ends (link.state: its ports Down), an HCA's cable moved to a
# free port of its switch (fabric.link.moved on the HCA's port). Checked against the healthy
# capture's map, each variant must give exactly the findings of its class's check on the faulted
# part (each RDMA device of a faulted card) and nothing else; a part the healthy capture already
# leaves unjudged is not counted again. nvbandwidth's host copies: the lowest figure of a test
# 1% below and 1% above the floor gpu.pcie.bw sets (the test's own table of the models' host
# links and the documented shares), against the golden map and against the built-in references.
# p2pBandwidthLatencyTest: a peer pair's figure 1% below and above the floor gpu.p2p.bw sets,
# its latency 1% above and below the ceiling gpu.p2p.latency sets (and nvbandwidth's latencies
# of a host and of a pair, each side of gpu.pcie.latency's and gpu.p2p.latency's ceilings);
# bandwidthTest: a host copy
# 1% below and above gpu.pcie.bw's floor; each against the golden map and the built-in
# references. A line per class: cases, caught, extra. The seeds are printed;
# RAILYARD_FAULT_SEEDS="S..." runs others (default 1 2 3; 1 in CI's sanitizer stage).
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature yaml || skip_all "built without libyaml: no maps to capture"
have_feature libxml2 || skip_all "built without libxml2: NCCL topology is not read"
have_feature jansson || skip_all "built without jansson: these checks read --json"
command -v jq >/dev/null || skip_all "jq is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
X=$RAILYARD_SRCDIR/tests/fixtures
S=$SHARED_FIXTURES
INJ=$RAILYARD_SRCDIR/tests/faults/inject.py
# the sanitizer build looks for memory errors: one seed reaches the code the other two reach
case ${RAILYARD_CI_STAGE:-} in sanitizers) default_seeds=1 ;; *) default_seeds="1 2 3" ;; esac
seeds=${RAILYARD_FAULT_SEEDS:-$default_seeds}
echo "# seeds: $seeds"

ends_sorted() { # "check A<->B" lines: a cable's two ends in sorted order
    awk '{ n = split($2, e, "<->"); if (n == 2 && e[2] < e[1]) $2 = e[2] "<->" e[1]; print }'
}
judge() { # MAP OPTION INPUT: the check's JSON; with OPTION --ibnetdiscover, railyard fabric's
    # against MAP, the healthy dump (--expect-fabric); with MAP -, the built-in references'
    if [ "$2" = --ibnetdiscover ]; then
        "$RAILYARD" fabric --no-archive --json --ibnetdiscover "$3" --expect-fabric "$1" 2>"$TMP/err"
    elif [ "$1" = - ]; then
        "$RAILYARD" check --no-archive --json "$2" "$3" 2>"$TMP/err"
    else
        "$RAILYARD" check --no-archive --json --map "$1" "$2" "$3" 2>"$TMP/err"
    fi
}
said() { # MAP OPTION INPUT: the findings that are not ok, "check subject" (a node's subjects
    # without the host; a cable's two ends in sorted order), and "unjudged:CHECK SUBJECT" for
    # each part listed under not judged (CHECK: the line's first word after the part), and
    # "unjudged:INPUT WHY" for what the input as a whole leaves unjudged, one a line
    judge "$@" | jq -r --arg fabric "$([ "$2" = --ibnetdiscover ] && echo 1)" --arg in "$3" '
        (.findings[] | select(.severity != "ok") |
            "\(.check) \(if $fabric == "1" then .subject else .subject | sub("^[^/]*/"; "") end)"),
        (.not_judged[]? | if startswith($in + ": ") then "unjudged:INPUT" + .[($in | length) + 1:]
            else capture("^[^/]*/(?<s>[^: ]*): (?<c>[^ :]*)") | "unjudged:\(.c) \(.s)" end)' |
        ends_sorted | sort -u
}
notok() { # MAP OPTION INPUT [BASELINE]: said, less the lines of BASELINE (what the healthy
    # capture already says), joined with ';'
    if [ -n "$4" ]; then said "$1" "$2" "$3" | comm -23 - "$4"; else said "$1" "$2" "$3"; fi | paste -sd';'
}
declare -A cases caught extra
captures=0
faults() { # OPTION CAPTURE: the capture is its own golden node; each variant of each seed
    local f=$2 b got want s file cls fnd nics gpus names=
    b=$(basename "$f" .xml)
    b=${b%.txt}
    if [ "$1" = --ibnetdiscover ]; then
        cp "$f" "$TMP/$b.map" # the healthy dump is the reference
        judge "$TMP/$b.map" "$1" "$f" | jq -r '.nodes[] | "\(.id) \(.name)"' >"$TMP/names"
        names=$TMP/names
    else
        "$RAILYARD" map capture "$1" "$f" -o "$TMP/$b.map" 2>/dev/null || { ok 1 "$b: # SKIP no map from it"; return; }
    fi
    said "$TMP/$b.map" "$1" "$f" | grep '^unjudged:' >"$TMP/base"
    got=$(notok "$TMP/$b.map" "$1" "$f" "$TMP/base")
    is "$got" "" "$b: the healthy capture passes its own map"
    said - "$1" "$f" | grep '^unjudged:' >"$TMP/base-"
    captures=$((captures + 1))
    nics=$(sed -n 's/^ *- {name: "\([^"]*\)".*/\1/p' "$TMP/$b.map" | paste -sd,)
    # the GPUs passed on a link given only as a rate (hwloc)
    gpus=$(judge "$TMP/$b.map" "$1" "$f" | jq -r '[.findings[]? | select(.check == "gpu.pcie.gen" and (.observed | endswith("(the rate only)"))) | .subject | sub("^[^/]*/"; "")] | join(",")')
    for s in $seeds; do
        rm -rf "$TMP/v" && python3 "$INJ" --seed "$s" ${nics:+--nics "$nics"} --gpus "$gpus" "$f" "$TMP/v"
        is $? 0 "$b: variants written (seed $s: $(wc -l <"$TMP/v/index") classes)"
        while read -r file cls fnd; do
            m=$TMP/$b.map base=$TMP/base
            case $cls in *-ref-*) m=- base=$TMP/base- ;; esac # against the built-in references
            got=$(notok "$m" "$1" "$TMP/v/$file" "$base")
            want=$(echo "$fnd" | tr ',@' '\n ' | names "$names" |
                ends_sorted | sort | paste -sd';')
            cases[$cls]=$((${cases[$cls]:-0} + 1))
            case ";$got;" in *";${want%%;*};"*) caught[$cls]=$((${caught[$cls]:-0} + 1)) ;; esac
            [ "$got" = "$want" ] || extra[$cls]=$((${extra[$cls]:-0} + 1))
            is "$got" "$want" "$b seed $s, $cls: exactly $want"
        done <"$TMP/v/index"
    done
}
names() { # [FILE of "ID NAME" lines]: the fabric's node ids in stdin's subjects as railyard names them
    if [ -z "$1" ]; then cat; return; fi
    awk 'NR == FNR { n[$1] = $2; next }
        { k = split($2, e, "<->"); s = ""
          for (i = 1; i <= k; i++) { p = e[i]; c = index(p, ":"); id = substr(p, 1, c - 1)
              if (id in n) p = n[id] substr(p, c); s = s (i > 1 ? "<->" : "") p }
          $2 = s; print }' "$1" -
}
for f in "$X"/nccl/hgx-b200-fabric.xml "$X"/nccl/hgx-h200-nvswitch.xml "$X"/nccl/nic-shapes.xml \
    "$S"/nccl-topo/*-topo*.xml; do
    [ -f "$f" ] && faults --nccl-topo "$f"
done
for f in "$X"/h200-vm/nvbandwidth.txt "$S"/gpu-bandwidth/*nvbandwidth*.txt; do
    case $f in # faulty nodes: a pattern check failed, a GPU's copies capped, a test aborted
        *b300-sxm6*all* | *pattern-check* | *waived* | *multinode*) continue ;;
    esac
    [ -f "$f" ] && faults --nvbandwidth "$f"
done
# p2pBandwidthLatencyTest: the Dell B300 node's capture is of a faulty node (its bidirectional
# P2P=Enabled figures of GPUs 0-3 are half the others', its host-staged latencies 2.3 ms): its
# healthy matrices are its capture here (the only one whose GPUs have peer latencies)
for f in "$S"/gpu-bandwidth/*_p2pbandwidthlatencytest*.txt; do
    [ -f "$f" ] || continue
    case $f in
    # not healthy nodes: GPUs that cannot reach each other (gpu.p2p.access), peer copies at half
    # the rate of copies through host memory (the fault NCCL issue 814 is about)
    *p2p-ns* | *connectivity* | *nccl-issue814*) continue ;;
    *dell-xe9780_b300*)
        awk '/^(Bidirectional P2P=Enabled Bandwidth|P2P=Disabled Latency) Matrix/ { skip = 1; next }
            skip && /^[A-Z]/ { skip = 0 } !skip' "$f" >"$TMP/dell-xe9780_b300-healthy-matrices.txt"
        f=$TMP/dell-xe9780_b300-healthy-matrices.txt ;;
    esac
    faults --p2p-bandwidth "$f"
done
for f in "$S"/gpu-bandwidth/*_bandwidthtest*.txt; do
    [ -f "$f" ] && faults --bandwidth-test "$f"
done
# the Dell B300 node's nvbandwidth run is of a faulty node (a copy's data differed, a GPU's
# copies capped): its latency tests, healthy, are its capture here (the only nvbandwidth latencies)
f=$S/gpu-bandwidth/dell-xe9780_b300-sxm6-x7_nvbandwidth-all.txt
if [ -f "$f" ]; then
    awk '/^Running / { keep = /^Running (host_device|device_to_device)_latency_sm\./ } NR < 7 || keep' "$f" \
        >"$TMP/dell-xe9780_b300-nvbandwidth-latencies.txt"
    faults --nvbandwidth "$TMP/dell-xe9780_b300-nvbandwidth-latencies.txt"
fi
for d in "$S"/sysfs/*_sys-class-infiniband; do # /sys/class/infiniband captures, each under a root
    [ -d "$d" ] || continue
    r=$TMP/roots/$(basename "$d" _sys-class-infiniband)
    mkdir -p "$r/class" && cp -r "$d" "$r/class/infiniband" && faults --sysfs-root "$r"
done
for f in "$X"/hwloc/*.xml "$S"/hwloc-xml/*.xml; do
    [ -f "$f" ] && faults --hwloc-xml "$f"
done
for f in "$S"/ibnetdiscover/ibnetdiscover_*.topo "$S"/ibnetdiscover/psmn_x5_X5.topofile.txt; do
    [ -f "$f" ] && faults --ibnetdiscover "$f"
done
for f in "$S"/nvlink/azurenhc_good_nvlink_status.txt "$S"/nvlink/gpud_nvidia-smi_nvlink_status_a100x8.txt; do
    [ -f "$f" ] && faults --nvlink-status "$f"
done
for f in "$S"/ibstat/*; do
    case $f in *missing_mlx5_8*) continue ;; esac # a faulty node: an HCA gone
    [ -f "$f" ] && faults --ibstat "$f"
done
[ "$captures" -ge 5 ]; ok $? "at least five captures faulted ($captures)"
for cls in gpu-gen gpu-width nic-gen nic-width port-rate nvlink port-down gpu-rate bridge link-width \
    link-speed link-down link-moved h2d-map-below h2d-map-above h2d-ref-below h2d-ref-above \
    p2p-map-below p2p-map-above p2p-ref-below p2p-ref-above lat-map-above lat-map-below lat-ref-above \
    lat-ref-below pcielat-map-above pcielat-map-below pcielat-ref-above pcielat-ref-below \
    bwtest-map-below bwtest-map-above bwtest-ref-below bwtest-ref-above; do
    [ "${cases[$cls]:-0}" -gt 0 ]; ok $? "class $cls has cases"
    echo "# class $cls: cases ${cases[$cls]:-0}, caught ${caught[$cls]:-0}, extra or wrong ${extra[$cls]:-0}"
done
done_testing
