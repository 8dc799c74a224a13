#!/bin/sh
# railyard check on captured GPU bandwidth (nvbandwidth, p2pBandwidthLatencyTest, bandwidthTest):
# healthy boxes pass, degraded ones fail naming the GPU or pair, a broken run or a box without a
# bound says so, bad input exits 2 with file:line; with the node's topology a slow GPU's finding
# names the link that caps it.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared gpu-bandwidth/dell-xe9780_b300-sxm6-x7_p2pbandwidthlatencytest.txt
G=$SHARED_FIXTURES/gpu-bandwidth
F=$RAILYARD_FIXTURES
chk() { "$RAILYARD" check --no-archive "$@" >"$TMP/out" 2>"$TMP/err"; }
fails() { grep '^FAIL' "$TMP/out" | awk '{print $2, $3}' | tr '\n' ';'; }

# every healthy capture passes
for f in nvbandwidth:tinygrad-okm-issue29_rtx5090-x8-xeon8458p_nvbandwidth-h2d-d2h-ce-extract.txt \
         nvbandwidth:nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt \
         nvbandwidth:nvbandwidth-issue50_rtx-a6000-x6-pcie-gen4_nvbandwidth-d2d-read-ce.txt \
         nvbandwidth:oci-oke_bm.gpu.gb200.4-2node_nvbandwidth-multinode-d2d-read-ce.txt \
         p2p-bandwidth:ml-engineering_h100-8gpu-nvlink4_p2pbandwidthlatencytest-unidir-p2p-enabled-extract.txt \
         p2p-bandwidth:tinygrad_tinybox-green-6x-rtx4090-p2p-patched_p2pbandwidthlatencytest-bidir-extract.txt \
         bandwidth-test:autodl_rtx2080ti-x2-pcie-gen3_bandwidthtest.txt \
         bandwidth-test:superbench_tesla-v100-pcie-32gb_bandwidthtest-h2d-shmoo-csv.txt; do
    chk "--${f%%:*}" "$G/${f#*:}"
    is "$?:$(fails)" "0:" "healthy ${f#*:}: exit 0, no failure"
done

# degraded ones fail with the pair or GPU named
chk --p2p-bandwidth "$G/dell-xe9780_b300-sxm6-x7_p2pbandwidthlatencytest.txt"
is $? 1 "B300 p2p with slow pairs: exit 1"
is "$(grep '^FAIL  gpu.p2p.bw' "$TMP/out" | awk '{print $3}' | tr '\n' ' ')" \
   "node/gpu0-gpu1 node/gpu0-gpu3 node/gpu1-gpu2 node/gpu2-gpu3 node/gpu3-gpu4 " \
   "B300 p2p: the five slow bidirectional pairs are named"
grep -q 'observed 494.3 GB/s (gpu0->gpu3, p2pBandwidthLatencyTest Bidirectional P2P=Enabled Bandwidth, .* line 93)' "$TMP/out"
ok $? "B300 p2p: the figure, the matrix and the line"
chk --p2p-bandwidth "$G/nccl-issue814_rtx4090-x6-pcie-phb-sys_p2pbandwidthlatencytest-unidir-extract.txt"
is "$?:$(grep -c '^FAIL  gpu.p2p.bw' "$TMP/out")" "1:15" "RTX 4090 x6: peer copies slower than through host: 15 pairs fail"
chk --nvbandwidth "$G/nvbandwidth-issue34_a100-sxm4-80gb-x8_nvbandwidth-d2d-read-ce-pattern-check-fail.txt"
is "$?:$(fails)" "1:gpu.copy.verify node;" "A100 x8: the failed pattern check fails gpu.copy.verify"
grep -q 'not judged: .*the run ended before its report (line 20' "$TMP/out"
ok $? "A100 x8: the assertion that ended the run is said"
chk --p2p-bandwidth "$G/autodl_rtx2080ti-x2-pcie-gen3-p2p-ns_p2pbandwidthlatencytest.txt"
is "$?:$(grep -c '^WARN  gpu.p2p.access       node/gpu0-gpu1' "$TMP/out")" "0:1" \
   "2080 Ti without peer access over PCIe: a warning, exit 0"

# nothing to judge is not a pass
chk --nvbandwidth "$G/ml-engineering_dgx-station-gb300_nvbandwidth-c2c-h2d-d2h-extract.txt"
is $? 2 "one GPU, no model named, no topology: cannot judge, exit 2"
grep -q -- '-> cannot-judge' "$TMP/out"; ok $? "... the verdict says so"
"$RAILYARD" check --no-archive --reason --nvbandwidth "$G/ml-engineering_dgx-station-gb300_nvbandwidth-c2c-h2d-d2h-extract.txt" >"$TMP/out"
is "$?:$(cat "$TMP/out")" "2:railyard: cannot judge (1 part without a map entry or reference)" \
   "--reason: cannot judge, exit 2"

# with the node's topology (NCCL's XML, read with libxml2): matched by PCI address or number,
# the capping link named; a capture of other GPUs refused
if have_feature libxml2; then
    chk --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" --nvbandwidth "$F/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt"
    is "$?:$(fails)" "1:gpu.pcie.bw node/gpu4;" "HGX H100 with gpu4's uplink at Gen2: gpu4 fails, nothing else"
    grep -q 'hint: its host path is capped by the link of 0000:97:00.0 above gpu4, Gen2 x16 (8.0 GB/s' "$TMP/out"
    ok $? "... the hint names the switch uplink and its link"
    grep -q '^ok    gpu.p2p.bw' "$TMP/out" || "$RAILYARD" check --no-archive -v --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" \
        --nvbandwidth "$F/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt" | grep -q '^ok    gpu.p2p.bw *node .*56 figures judged'
    ok $? "... and the 56 NVLink pairs are judged against NV18 and pass"
    if have_feature jansson; then
        "$RAILYARD" check --no-archive --json --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" \
            --nvbandwidth "$F/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt" >"$TMP/json"
        jq -e '.verdict == "fail" and ([.findings[] | select(.severity == "fail") | .check + " " + .subject] == ["gpu.pcie.bw node/gpu4"])' "$TMP/json" >/dev/null
        ok $? "--json: the same verdict and finding"
        jq -e '.gpu_bandwidth[0] | .tool == "nvbandwidth v0.8" and .gpus == 8 and
               ([.measurements[].name] == ["host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "device_to_device_memcpy_read_ce"]) and
               ([.measurements[0].values[] | select(.gpu == 4) | .value] == [6.92]) and
               (.measurements[2].values | length) == 56' "$TMP/json" >/dev/null
        ok $? "--json: the figures judged, per test, as the capture gave them"
        if python3 -c 'import jsonschema' 2>/dev/null; then
            "$RAILYARD" check --archive "$TMP/arch" --node gpu042 --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" \
                --nvbandwidth "$F/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt" >/dev/null 2>&1
            rep=$(ls "$TMP"/arch/*/*/report.json 2>/dev/null | head -1)
            schema() { python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$1" "$RAILYARD_SRCDIR/reports/report.schema.json" 2>&1 | tail -1; }
            [ -n "$rep" ] && [ "$(jq '.gpu_bandwidth | length' "$rep")" = 1 ] && [ -z "$(schema "$rep")" ]
            ok $? "the archived report.json keeps the figures and is valid against the schema"
            jq '.gpu_bandwidth[0].measurements[0].unit = "furlongs"' "$rep" >"$TMP/bad.json"
            [ -n "$(schema "$TMP/bad.json")" ]; ok $? "...and the schema rejects a figure of another unit"
        else
            skip "python3-jsonschema is not installed"; skip "python3-jsonschema is not installed"
        fi
        if have_feature libxml2; then
            "$RAILYARD" check --archive "$TMP/arch2" --node gpu042 --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" \
                --nvbandwidth "$F/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt" >/dev/null 2>&1
            "$RAILYARD" report show latest --archive "$TMP/arch2" --format html >"$TMP/r.html" 2>"$TMP/err"
            is "$(grep -c 'class="gpu-heatmap"' "$TMP/r.html"):$(grep -c 'class="gpu-bars"' "$TMP/r.html")" "1:2" \
               "HTML: a GPU x GPU heat-map for the pair test, bars for the two host tests"
            is "$(tr -d '\n' <"$TMP/r.html" | grep -o 'fill="#c62828"> *<title>gpu[0-9]*:' | grep -o 'gpu[0-9]*' | tr '\n' ' ')" \
               "gpu4 gpu4 " "HTML: gpu4's host bars red (under half the node's median), no other"
            # the Prometheus textfile carries every figure, and passes the syntax check
            "$RAILYARD" report show latest --archive "$TMP/arch2" --format prometheus >"$TMP/r.prom" 2>"$TMP/err"
            grep -q '^railyard_gpu_bandwidth_gbytes_per_second{node="gpu042",source="nvbandwidth v0.8",test="host_to_device_memcpy_ce",gpu="4"} 6.92$' "$TMP/r.prom" &&
                is "$(grep -c '^railyard_gpu_bandwidth_gbytes_per_second{.*test="device_to_device_memcpy_read_ce".*peer=' "$TMP/r.prom")" 56 \
                   "Prometheus: gpu4's H2D figure, and the 56 pairs of the read test with their peer" ||
                ok 1 "Prometheus: gpu4's H2D figure is in the textfile: $(grep -m1 gpu_bandwidth "$TMP/r.prom")"
            "$(dirname "$RAILYARD")/tests/tools/promcheck" "$TMP/r.prom" >/dev/null
            ok $? "... and the textfile passes the syntax check"
            # the node as a picture: every bridge, GPU and NIC of the layout, the slow link named
            flat=$(tr -d '\n' <"$TMP/r.html")
            is "$(grep -c 'class="pcie-tree"' "$TMP/r.html"):$(echo "$flat" | grep -o '<rect class="gpu"' | wc -l):$(echo "$flat" | grep -o '<rect class="nic"' | wc -l):$(echo "$flat" | grep -o '<rect class="bridge"' | wc -l)" \
               "1:8:8:8" "HTML: the PCIe picture has the 8 switches, 8 GPUs and 8 NICs of the layout"
            echo "$flat" | grep -q '<rect class="bridge"[^>]*stroke="#f9a825"[^>]*> *<title>0000:97:00.0 0000:97:00.0'
            ok $? "... the switch the pcie.path warning names drawn amber"
            is "$(echo "$flat" | grep -o 'class="pcie-label"[^>]*>Gen[0-9] x[0-9]*<' | grep -c 'fill="#f9a825">Gen2 x16<')" 1 \
               "... its uplink labelled Gen2 x16, in amber"
            is "$(echo "$flat" | grep -o '<rect class="gpu"[^>]*stroke="#c62828"[^>]*> *<title>gpu[0-9]*' | grep -o 'gpu[0-9]*$' | tr '\n' ' ')" "gpu4 " \
               "... gpu4, which fails, drawn red; no other GPU"
            is "$(echo "$flat" | grep -o '>NUMA node [0-9]<' | tr '\n' ' ')" ">NUMA node 0< >NUMA node 1< " "... under its two NUMA nodes"
        else
            for i in 1 2 3 4 5 6 7 8 9; do skip "built without libxml2: no HTML"; done
        fi
    else
        skip "built without jansson"
    fi
    chk --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" --nvbandwidth "$G/nvbandwidth-issue15_rtx4090-x8-pcie_nvbandwidth-h2d-d2h-ce-extract.txt"
    is "$?:$(grep -c '^FAIL  gpu.pcie.bw' "$TMP/out"):$(cat "$TMP/err")" "1:7:" \
       "eight GPUs without addresses on a node of eight: matched by number, judged by the node's links (7 Gen5 paths fail; gpu4's path is the 8 GB/s uplink)"
    chk --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" --nvbandwidth "$G/tinygrad-okm-issue29_rtx5090-x8-xeon8458p_nvbandwidth-h2d-d2h-ce-extract.txt"
    is $? 0 "... (another such capture)"
    chk --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" --p2p-bandwidth "$G/dell-xe9780_b300-sxm6-x7_p2pbandwidthlatencytest.txt"
    is "$?:$(grep -c "p2pbandwidthlatencytest.txt:2: gpu0 (0000:1a:00.0) is not among the node's GPUs" "$TMP/err")" "2:1" \
       "a capture of another machine's GPUs: exit 2 naming file:line and the address"
    chk --nccl-topo "$F/nccl/hgx-h100-slow-uplink.xml" --p2p-bandwidth "$G/ml-engineering_gb200-nvl4-node_p2pbandwidthlatencytest-unidir-p2p-enabled-extract.txt"
    is "$?:$(grep -c "extract.txt:3: the capture measures 4 GPUs, the node has 8" "$TMP/err")" "2:1" \
       "a capture of 4 GPUs on a node of 8: exit 2 naming file:line"
    # a GB300 tray (NCCL: sm 103, a Gen5 x16 link and NVLink-C2C to the CPU) whose four GPUs all
    # copy host memory at 100 GB/s, a quarter of the station's 359: never passed against the
    # PCIe link; failed against C2C where the capture names the model, else not judged
    nvb() { # OUT [MODEL]: nvbandwidth's host-to-device copies of four GPUs at 100 GB/s
        { printf 'nvbandwidth Version: v0.8\n\n'
          [ -z "$2" ] || for i in 0 1 2 3; do printf 'Device %d: %s\n' $i "$2"; done
          printf '\nRunning host_to_device_memcpy_ce.\nmemcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n'
          printf '           0         1         2         3\n 0    100.05    100.10    100.00    100.90\n'
        } >"$1"
    }
    nvb "$TMP/gb300-named.txt" "NVIDIA GB300"
    chk --nccl-topo "$F/nccl/gb300-tray-gpu1-no-nvlink.xml" --nvbandwidth "$TMP/gb300-named.txt"
    is "$?:$(grep -c '^FAIL  gpu.pcie.bw .*0.70 x 450.0 GB/s: NVLink-C2C of a GB300' "$TMP/out")" "1:4" \
       "a GB300 tray's GPUs at 100 GB/s from the host: all four fail against C2C, not the Gen5 x16 link"
    nvb "$TMP/gb300-unnamed.txt"
    chk --nccl-topo "$F/nccl/gb300-tray-gpu1-no-nvlink.xml" --nvbandwidth "$TMP/gb300-unnamed.txt"
    is "$(grep -c '^FAIL  gpu.pcie.bw' "$TMP/out"):$(grep -c '^not judged: .*4 figures against the node.s own GPUs only' "$TMP/out")" "0:1" \
       "... with no model named: not judged (the rate of C2C unknown), never passed against PCIe"
else
    for i in $(seq 1 23); do skip "built without libxml2: no NCCL topology to match"; done
fi

# bad input: exit 2 with file:line, nothing judged
printf 'nvbandwidth Version: v0.8\nRunning host_to_device_memcpy_ce.\nmemcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n           0         1\n 0     55.1\n' >"$TMP/cut.txt"
chk --nvbandwidth "$TMP/cut.txt"
is "$?:$(grep -c "$TMP/cut.txt:5: row 0 has 1 values" "$TMP/err")" "2:1" "a cut matrix: exit 2 naming file:line"
chk --p2p-bandwidth "$G/dell-xe9780_b300-sxm6-x7_nvbandwidth-all.txt"
is "$?:$(grep -c "nvbandwidth-all.txt:1: a line that is not p2pBandwidthLatencyTest output" "$TMP/err")" "2:1" \
   "nvbandwidth output given as p2pBandwidthLatencyTest's: exit 2 naming file:line"
chk --bandwidth-test "$TMP/none.txt"
is "$?:$(grep -c "$TMP/none.txt: No such file" "$TMP/err")" "2:1" "a missing file: exit 2 naming it"
done_testing
