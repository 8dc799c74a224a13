#!/bin/bash
# railyard fabric on saved ibnetdiscover output from real clusters: the PSMN X5 QDR cluster
# (DDR HCAs on purpose), the ibnetdiscover man page example (one ISL trained at 1x), and bad
# input (truncated, garbage, asymmetric cables, a bad node-name map): exit 2 naming FILE:LINE.
. "$RAILYARD_SRCDIR/tests/lib.sh"
need_shared ibnetdiscover/psmn_x5_X5.topofile.txt
D=$SHARED_FIXTURES/ibnetdiscover
PSMN=$D/psmn_x5_X5.topofile.txt
NAMES=$D/psmn_x5_X5.map.txt
MAP=$RAILYARD_SRCDIR/tests/fixtures/maps/psmn-x5.map
fab() { "$RAILYARD" fabric "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }
fails() { grep -E '^(FAIL|WARN)' "$TMP/out" | awk '{print $2, $3}' | sort; }

fab --ibnetdiscover "$PSMN"
is $rc 0 "psmn X5 loads and passes with the built-in references"
grep -q '11 switches, 89 HCAs, 159 cables' "$TMP/out"; ok $? "psmn: 11 switches, 89 HCAs, 159 cables"
is "$(fails)" "" "psmn: its 23 DDR HCA links are not flagged without an expectation"
grep -q "note: 23 HCA links run below the fabric's QDR (23 at DDR)" "$TMP/out"
ok $? "psmn: a note says 23 HCA links run at DDR and why they are not judged"

if have_feature yaml; then
    fab --ibnetdiscover "$PSMN" --map "$MAP" --node-name-map "$NAMES"
    is $rc 0 "psmn with its map: the DDR hosts are judged against their DDR NICs: pass"
    is "$(fails)" "" "psmn with its map: no finding"
    grep -q "note: 2 HCA links run below the fabric's QDR (2 at DDR)" "$TMP/out"
    ok $? "psmn with its map: only the 2 HCAs the name map does not name stay unjudged"
    sed 's/: x5-ddr$/: x5-qdr/' "$MAP" >"$TMP/qdr.map"
    fab --ibnetdiscover "$PSMN" --map "$TMP/qdr.map" --node-name-map "$NAMES"
    is $rc 1 "psmn with a map that wants QDR everywhere: exit 1"
    is "$(fails | grep -c '^link.speed ')" 21 "21 named DDR hosts fail link.speed"
    grep -q '^FAIL  link.speed  *r422node1:1<->S-0008f10500200b50:28 expected QDR, observed DDR' "$TMP/out"
    ok $? "the finding names the host and the switch port of the cable"
    fab --ibnetdiscover "$PSMN" --map "$MAP" --node-name-map "$NAMES" --json
    jq -e '.links | map(.ends[].node) | index("r422node1") != null' "$TMP/out" >/dev/null
    ok $? "the node-name map names the HCAs in the JSON links"
else
    for i in 1 2 3 4 5 6 7; do skip "built without libyaml: no maps"; done
fi

fab --ibnetdiscover "$D/ibnetdiscover_junousi-ibtopotool_1.topo"
is $rc 1 "man page example: exit 1"
grep -q '^FAIL  link.width  *S-0008f10400410015:1<->S-005442ba00003080:10 expected 4x, observed 1x' "$TMP/out"
ok $? "the ISL trained at 1xSDR is found, both ends named"
for f in ibnetdiscover_junousi-ibtopotool_2.topo ibnetdiscover_junousi-ibtopotool_4.topo; do
    fab --ibnetdiscover "$D/$f"
    is $rc 0 "$f loads and passes"
done

# a reference dump: the dump against itself is clean; one HCA unplugged is named
fab --ibnetdiscover "$PSMN" --expect-fabric "$PSMN"
is "$rc $(fails)" "0 " "psmn against itself as the reference: no finding"
awk '/^Ca/ && /H-003048c749cd0000/ {skip = 1} /^$/ {skip = 0} !skip' "$PSMN" |
    grep -v '"H-003048c749cd0000"\[1\]' >"$TMP/unplugged.topo"
fab --ibnetdiscover "$TMP/unplugged.topo" --expect-fabric "$PSMN"
is $rc 1 "an HCA gone from the fabric: exit 1"
is "$(fails)" "link.state H-003048c749cd0000:1<->S-0008f10500200b50:4" \
   "the unplugged HCA's cable is named, the switch port it left is Down"
# a cable moved to another port
sed -e 's/^\[4\]\(\t"H-003048c749cd0000"\)/[25]\1/' \
    -e 's/\("S-0008f10500200b50"\)\[4\]\(.*lid 72\)/\1[25]\2/' "$PSMN" >"$TMP/moved.topo"
fab --ibnetdiscover "$TMP/moved.topo" --expect-fabric "$PSMN"
is "$rc $(fails)" "1 fabric.link.moved H-003048c749cd0000:1" "a cable moved to another switch port is named"

# bad input: exit 2, FILE:LINE, nothing half-judged
head -n 400 "$PSMN" >"$TMP/trunc.topo"
fab --ibnetdiscover "$TMP/trunc.topo"
is $rc 2 "truncated dump: exit 2"
grep -q "trunc.topo:[0-9]*: .*truncated" "$TMP/err"; ok $? "truncated dump: the message names file and line ($(head -c 150 "$TMP/err"))"
sed '200a this is not ibnetdiscover output' "$PSMN" >"$TMP/garbage.topo"
fab --ibnetdiscover "$TMP/garbage.topo"
is $rc 2 "a garbage line: exit 2"
grep -q "garbage.topo:201: cannot parse this line" "$TMP/err"; ok $? "a garbage line: FILE:LINE named"
sed 's/^\[4\]\(\t"H-003048c749cd0000"\)\[1\]/[4]\1[2]/' "$PSMN" >"$TMP/asym.topo"
fab --ibnetdiscover "$TMP/asym.topo"
is $rc 2 "a cable whose two ends disagree: exit 2"
grep -q "asym.topo:[0-9]*: " "$TMP/err"; ok $? "asymmetric cable: FILE:LINE named ($(head -c 150 "$TMP/err"))"
fab --ibnetdiscover "$D/azure_sharp_cmd_topology_yosoyjay-ib-topo.txt"
is $rc 2 "a Slurm topology.conf (sharp_cmd output) is not ibnetdiscover output: exit 2"
grep -q "azure_sharp_cmd_topology_yosoyjay-ib-topo.txt:7: cannot parse this line: 'SwitchName=ibsw1" "$TMP/err"
ok $? "... naming the first line it cannot read"
printf '\0\1\2binary' >"$TMP/bin.topo"
fab --ibnetdiscover "$TMP/bin.topo"
is $rc 2 "binary file: exit 2"
: >"$TMP/empty.topo"
fab --ibnetdiscover "$TMP/empty.topo"
is $rc 2 "empty file: exit 2"
grep -q "not ibnetdiscover output" "$TMP/err"; ok $? "empty file: says it is not ibnetdiscover output"
fab --ibnetdiscover "$TMP/does-not-exist"
is $rc 2 "missing file: exit 2"
printf '0x0002c90300080e84 "r510gluster1"\nnot-a-guid name\n' >"$TMP/bad.names"
fab --ibnetdiscover "$PSMN" --node-name-map "$TMP/bad.names"
is $rc 2 "a bad node-name map: exit 2"
grep -q "bad.names:2: expected a GUID and a name" "$TMP/err"; ok $? "a bad node-name map: FILE:LINE named"

if have_feature jansson; then
    fab --ibnetdiscover "$PSMN" --json
    jq -e '.schema_version == 1 and .switches == 11 and .hcas == 89 and (.links | length) == 159
           and .verdict == "pass" and (.links[0].ends | length) == 2' "$TMP/out" >/dev/null
    ok $? "JSON: schema version, counts, 159 links with both ends"
else
    skip "built without jansson"
fi

# live discovery where there is no fabric: a clear error, exit 2, no hang
if have_feature ibnetdisc; then
    timeout 60 "$RAILYARD" fabric --timeout 20 >"$TMP/out" 2>"$TMP/err"
    is $? 2 "live discovery without an HCA (no ibsim preloaded): exit 2, no hang"
else
    timeout 60 "$RAILYARD" fabric >"$TMP/out" 2>"$TMP/err"
    is $? 2 "built without libibnetdisc: live discovery exits 2"
    grep -q "built without libibnetdisc" "$TMP/err"; ok $? "... and says so"
fi
# 12x and 8x links (XDR fabrics, chassis trunks): widths of two digits read whole
if have_feature jansson && command -v jq >/dev/null; then
    for w in 12 8; do
        sed "s/4xSDR/${w}xSDR/g" "$D/ibnetdiscover_junousi-ibtopotool_1.topo" >"$TMP/w$w.topo"
        "$RAILYARD" fabric --no-archive --json --ibnetdiscover "$TMP/w$w.topo" >"$TMP/w.json" 2>&1
        is "$(jq -r '[.. | objects | select(has("width")) | .width] | group_by(.) | map("\(length)x\(.[0])") | join(",")' $TMP/w.json)" \
           "2x1,5x$w" "the man page example at ${w}x: 5 links ${w}x, the two 1x ends of the degraded ISL"
    done
else
    skip "built without jansson or no jq"; skip "built without jansson or no jq"
fi
# ibnetdiscover's own errors mixed into the dump (ibnetdiscover > f 2>&1), as seen in the wild:
# the rest is judged, the DR paths that failed are named; a line that is neither is an error
{ echo 'src/query_smp.c:228; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out'
  awk 'BEGIN{RS="";ORS="\n\n"} !/Ca\t1 "H-003048c707b60000"/' "$PSMN"
  echo 'ibwarn: [3402] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,2,3)'; } >"$TMP/err.topo"
last=$(wc -l <"$TMP/err.topo")
if have_feature jansson && command -v jq >/dev/null; then
    "$RAILYARD" fabric --no-archive --json --ibnetdiscover "$TMP/err.topo" >"$TMP/f.json" 2>"$TMP/err"
    rc=$?
    is "$rc|$(jq -r '[.findings[]|select(.check=="fabric.discovery.incomplete")|.severity]|join(",")' $TMP/f.json)" "0|warn" \
       "a dump beginning with ibnetdiscover's own error, an HCA not discovered: judged, with a warning (was refused)"
    is "$(jq -r '.findings[]|select(.check=="fabric.discovery.incomplete")|.observed' $TMP/f.json)" \
       "2 discovery errors: line 1: DR path 0,1,1,31: Connection timed out; line $last: DR path 0,1,2,3: mad_rpc: _do_madrpc failed" \
       "... naming each line, the DR path that failed and why"
else
    "$RAILYARD" fabric --no-archive --ibnetdiscover "$TMP/err.topo" >"$TMP/f.txt" 2>"$TMP/err"
    is "$?|$(grep -c '^WARN  fabric.discovery.incomplete' "$TMP/f.txt")" "0|1" \
       "a dump beginning with ibnetdiscover's own error: judged, with a warning"
    skip "built without jansson or no jq: the finding's text is read from --json"
fi
{ cat "$TMP/err.topo"; echo 'this is not ibnetdiscover output'; } >"$TMP/err2.topo"
"$RAILYARD" fabric --no-archive --ibnetdiscover "$TMP/err2.topo" >/dev/null 2>"$TMP/err"
is "$?|$(cat $TMP/err)" "2|railyard: fabric: $TMP/err2.topo:$((last + 1)): cannot parse this line: 'this is not ibnetdiscover output'" \
   "a line that is neither: still an error with FILE:LINE"
awk 'BEGIN{RS="";ORS="\n\n"} !/Ca\t1 "H-003048c707b60000"/' "$PSMN" >"$TMP/cut.topo"
"$RAILYARD" fabric --no-archive --ibnetdiscover "$TMP/cut.topo" >/dev/null 2>&1
is "$?" 2 "the same missing HCA without a discovery error: still refused as a truncated file"
printf 'ibwarn: [1] \033[2Jfake; \033]0;x\007 (DR path slid 0; dlid 0; 0,1)\n' | cat - "$PSMN" >"$TMP/esc.topo"
"$RAILYARD" fabric --no-archive --ibnetdiscover "$TMP/esc.topo" >"$TMP/out" 2>&1
! grep -q "$(printf '\033')" "$TMP/out"; ok $? "control characters of a discovery line never reach the terminal"
"$RAILYARD" fabric --sysfs-root /tmp >/dev/null 2>&1
is $? 2 "node input options are refused by railyard fabric"
done_testing
