#!/bin/bash
# Archived reports (railyard-report(5)): golden JUnit/Prometheus/text renderings of two recorded
# runs (a demo-cluster railyard-fabric run with three faults, a check of a real ibstat capture),
# report.json against the documented schema, the textfile through a syntax checker, the HTML
# page in a real browser, hostile strings made inert everywhere, history and pruning, and
# damaged archives refused without losing anything.
# Regenerate the golden files with RAILYARD_UPDATE_GOLDEN=1 make check TESTS=tests/cli/t7001-report.t
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature jansson || skip_all "built without jansson: reports are JSON"
command -v jq >/dev/null || skip_all "jq is not installed"
need_shared ibstat/gpud_ibstat_azure_a100_ibpanic_missing_mlx5_8.txt
R=$RAILYARD_FIXTURES/reports
GOLDEN=$RAILYARD_FIXTURES/golden
PROMCHECK=$(dirname "$RAILYARD")/tests/tools/promcheck
SCHEMA=$RAILYARD_SRCDIR/reports/report.schema.json
unset RAILYARD_ARCHIVE
A=$TMP/archive
xml=0; have_feature libxml2 && xml=1
sqlite=0; have_feature sqlite && sqlite=1
schema_ok() { # FILE: valid against the documented schema (python3-jsonschema)
    python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$1" "$SCHEMA" 2>&1 | tail -1
}
have_schema=0; python3 -c 'import jsonschema' 2>/dev/null && have_schema=1

# --- golden renderings of the recorded runs
for run in demo-fabric ndv4-check; do
    for fmt in text prometheus junit; do
        ext=$fmt; [ $fmt = prometheus ] && ext=prom; [ $fmt = junit ] && ext=junit.xml
        [ $fmt = junit ] && [ $xml -eq 0 ] && { skip "built without libxml2: no JUnit"; continue; }
        "$RAILYARD" report show "$R/$run" --format $fmt >"$TMP/$run.$ext" 2>"$TMP/err"
        golden_cmp "$TMP/$run.$ext" "$GOLDEN/report-$run.$ext" "$run: $fmt matches the golden output"
    done
    "$RAILYARD" report show "$R/$run" --json >"$TMP/$run.json"
    cmp -s "$TMP/$run.json" "$R/$run/report.json"; ok $? "$run: --json gives report.json as archived"
    if [ $have_schema -eq 1 ]; then
        out=$(schema_ok "$R/$run/report.json"); is "$out" "" "$run: report.json is valid against the schema"
    else
        skip "python3-jsonschema is not installed"
    fi
    "$PROMCHECK" "$TMP/$run.prom" >"$TMP/pc"; ok $? "$run: the textfile passes the syntax check $(head -1 "$TMP/pc")"
done
grep -Eq '^railyard_link_bandwidth_gbps\{node="node[0-9]",rail="1",peer="node2",transport="tcp"\} 0\.28' "$TMP/demo-fabric.prom"
ok $? "the degraded rail's link is a bandwidth metric"
grep -q '^railyard_check_failures{tool="check",node="ndv4-0042",check="nic.count"} 1$' "$TMP/ndv4-check.prom"
ok $? "the missing HCA is a check failure metric"
if [ $xml -eq 1 ] && command -v xmllint >/dev/null; then
    is "$(xmllint --xpath 'count(//testcase)' "$TMP/demo-fabric.junit.xml")" \
        "$(jq '(.links | length) + (.findings | length)' "$R/demo-fabric/report.json")" \
        "JUnit: one testcase per link and per finding"
    is "$(xmllint --xpath 'count(//failure)' "$TMP/demo-fabric.junit.xml")" \
        "$(jq '([.links[] | select(.ok | not)] | length) + ([.findings[] | select(.severity == "fail")] | length)' "$R/demo-fabric/report.json")" \
        "JUnit: a failure per failed link and failed check"
else
    skip "no libxml2 or xmllint"; skip "no libxml2 or xmllint"
fi
# a schema that rejects: the validator is really at work
if [ $have_schema -eq 1 ]; then
    jq '.findings[0].severity = "bad"' "$R/ndv4-check/report.json" >"$TMP/bad-schema.json"
    out=$(schema_ok "$TMP/bad-schema.json"); [ -n "$out" ]; ok $? "a report with a bad severity fails the schema"
else
    skip "python3-jsonschema is not installed"
fi

# --- the HTML page in a real browser: rendered, no console errors, a heat-map per rail
browser() { # browser HTML PNG: screenshot, DOM in $TMP/dom, console messages in $TMP/console
    local u; u=$(mktemp -d "$TMP/chrome.XXXXXX")
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$u" --enable-logging=stderr --v=0 --window-size=1100,1500 \
        --screenshot="$2" "file://$1" >/dev/null 2>"$TMP/chrome.log"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$u" --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$TMP/dom" 2>>"$TMP/chrome.log"
    grep -a 'CONSOLE' "$TMP/chrome.log" >"$TMP/console"
}
if [ $xml -eq 1 ] && command -v chromium >/dev/null; then
    SHOT=$(dirname "$RAILYARD")/tests/report-demo-fabric.png
    "$RAILYARD" report show "$R/demo-fabric" --format html >"$TMP/demo.html"
    browser "$TMP/demo.html" "$SHOT"
    [ -s "$SHOT" ]; ok $? "the page renders: screenshot in $SHOT"
    is "$(grep -o '<svg[^>]*class="heatmap"' "$TMP/dom" | wc -l)" 2 "the browser's DOM holds a heat-map per rail"
    grep -q 'class="crossed"' "$TMP/dom"; ok $? "the miscabled port is drawn crossing"
    is "$(wc -l <"$TMP/console")" 0 "no console message$(head -c 200 "$TMP/console")"
    # the console capture is real: a page that logs an error is caught
    printf '<!DOCTYPE html><html><body><script>console.error("railyard-probe")</script></body></html>\n' >"$TMP/noisy.html"
    browser "$TMP/noisy.html" "$TMP/noisy.png"
    grep -q 'railyard-probe' "$TMP/console"; ok $? "a page that logs to the console is caught"
    for c in '<script' 'src=' 'href=' 'url(' '<link' '@import'; do
        grep -q "$c" "$TMP/demo.html"; [ $? -ne 0 ]; ok $? "self-contained: no '$c' in the page"
    done
else
    for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "no libxml2 or no chromium"; done
fi

# --- a large run (scripts/bench-report's synthetic all-pairs result, 182 nodes x 4 rails =
# 65884 links): past 65536 links the textfile and JUnit carry every port's aggregate and the
# failed links, not a series or testcase per link; report render writes all three from one parse
BIG=$TMP/big
"$RAILYARD_SRCDIR/scripts/bench-report" --nodes 182 --rails 4 --write "$BIG" >/dev/null
"$RAILYARD" report render "$BIG/run" >"$TMP/render.out" 2>"$TMP/err"
is "$? $(sed "s|$BIG/run|DIR|" "$TMP/render.out")" "0 DIR: $((1 + 2 * xml)) files rendered" "report render: the renderings of a 65884-link run"
BP=$BIG/run/metrics.prom
"$PROMCHECK" "$BP" >"$TMP/pc"; ok $? "...its textfile passes the syntax check"
! grep -q '^railyard_link_bandwidth_gbps{' "$BP"; ok $? "...no series per link past 65536 links"
is "$(grep '^railyard_link_up{' "$BP")" 'railyard_link_up{node="gpu0005",rail="3",peer="gpu0182",transport="tcp"} 0' "...but the failed link"
grep -q '^railyard_port_bandwidth_min_gbps{node="gpu0017",rail="3",transport="tcp"} 180$' "$BP"; ok $? "...the slow port's lowest link"
is "$(grep -c '^railyard_port_links{' "$BP")" 728 "...a series per port (182 x 4)"
grep -q '^railyard_port_links_failed{node="gpu0182",rail="3",transport="tcp"} 1$' "$BP"; ok $? "...the failed link counted at both ends"
if [ $xml -eq 1 ] && command -v xmllint >/dev/null; then
    is "$(xmllint --xpath 'count(//testsuite[@name="railyard-fabric ports"]/testcase)' "$BIG/run/junit.xml")" 728 "JUnit: a testcase per port"
    is "$(xmllint --xpath 'string(//testcase[@name="gpu0005/rail3"]/failure/@message)' "$BIG/run/junit.xml")" \
        "1 of 181 links failed (with gpu0182)" "JUnit: the failed port names its peer"
else skip "no libxml2 or xmllint"; skip "no libxml2 or xmllint"; fi
printf '{"tool": "railyard-fabric", "findings": [' >"$BIG/run/report.json"
"$RAILYARD" report render "$BIG/run" 2>"$TMP/err"; is $? 2 "report render of a damaged report.json: exit 2"
[ -s "$BIG/run/metrics.prom" ]; ok $? "...and the renderings it had are kept"

# --- link records (railyard-report(5) LINK RECORDS): the same runs with their links as records
# beside report.json read and render alike; each damage is refused naming the file, and nothing
# is lost
RJ=$TMP/rec-json RB=$TMP/rec-bin
rm -rf "$RJ" "$RB"; cp -r "$R/demo-fabric" "$RB"
"$RAILYARD" report convert "$RB" --link-records binary >"$TMP/conv" 2>"$TMP/err"
is "$? $(sed "s|$RB|DIR|" "$TMP/conv")" "0 DIR: links written as records" "report convert: the recorded run's links as records"
jq -e '(has("links") | not) and (has("latency_links") | not) and .links_file.path == "links.bin.gz" and .links_file.records == 8' \
    "$RB/report.json" >/dev/null && [ -s "$RB/links.bin.gz" ]
ok $? "...report.json names links.bin.gz and its 8 records, and holds no link"
for fmt in text junit; do
    ext=$fmt; [ $fmt = junit ] && ext=junit.xml
    [ $fmt = junit ] && [ $xml -eq 0 ] && { skip "built without libxml2: no JUnit"; continue; }
    "$RAILYARD" report show "$RB" --format $fmt >"$TMP/rb.$ext" 2>"$TMP/err"
    golden_cmp "$TMP/rb.$ext" "$GOLDEN/report-demo-fabric.$ext" "records: $fmt matches the golden output of the objects"
done
"$RAILYARD" report show "$RB" --format prometheus >"$TMP/rb.prom"
"$PROMCHECK" "$TMP/rb.prom" >"$TMP/pc"; ok $? "records: the textfile passes the syntax check"
is "$(grep -c '^railyard_link' "$TMP/rb.prom")" "$(grep -c '^railyard_link' "$GOLDEN/report-demo-fabric.prom")" \
   "records: a series per link as from the objects (figures rounded to a record's precision)"
if [ $have_schema -eq 1 ]; then
    out=$(schema_ok "$RB/report.json"); is "$out" "" "records: report.json is valid against the schema"
    jq '.links_file.path = "../x"' "$RB/report.json" >"$TMP/bad-schema.json"
    out=$(schema_ok "$TMP/bad-schema.json"); [ -n "$out" ]; ok $? "a links_file path outside the run's folder fails the schema"
else
    skip "python3-jsonschema is not installed"; skip "python3-jsonschema is not installed"
fi
# both ways and back: the records of a run written by railyard-fabric's precision are the same
cp -r "$RB" "$RJ"
"$RAILYARD" report convert "$RJ" --link-records json >/dev/null; ok $? "report convert back to objects"
jq -e '(.links | length) == 8 and (has("links_file") | not)' "$RJ/report.json" >/dev/null && [ ! -e "$RJ/links.bin.gz" ]
ok $? "...the 8 links in report.json, the records removed"
for fmt in text prometheus junit html; do
    [ $xml -eq 0 ] && { [ $fmt = junit ] || [ $fmt = html ]; } && { skip "built without libxml2"; continue; }
    "$RAILYARD" report show "$RB" --format $fmt >"$TMP/a.$fmt"; "$RAILYARD" report show "$RJ" --format $fmt >"$TMP/b.$fmt"
    cmp -s "$TMP/a.$fmt" "$TMP/b.$fmt"; ok $? "records and objects of one run: the same $fmt"
done
cp -r "$RJ" "$TMP/rec-bin2"; "$RAILYARD" report convert "$TMP/rec-bin2" --link-records binary >/dev/null
zcat "$RB/links.bin.gz" | cmp -s - <(zcat "$TMP/rec-bin2/links.bin.gz"); ok $? "...and to records again: the same records"
"$RAILYARD" report convert "$RB" --link-records binary >"$TMP/conv"; is "$? $(sed "s|$RB|DIR|" "$TMP/conv")" \
    "0 DIR: its links are records already" "report convert: records already"
"$RAILYARD" report diff --archive "$A" "$RJ" "$RB" >"$TMP/diff.out"
is "$? $(cat "$TMP/diff.out")" "0 no difference (findings, and links within 10%)" "report diff: objects and records of one run alike"
"$RAILYARD" report diff --archive "$A" "$R/demo-fabric" "$RB" --threshold 0.000001 >"$TMP/diff.out"
grep -q '^link     node1->node2/rail0 ' "$TMP/diff.out"; ok $? "report diff: links matched across encodings (rounded figures differ past 1e-6 %)"
# a latency sweep's links are kept apart in the records too: renderings unchanged, and back
RL=$TMP/rec-lat; rm -rf "$RL"; mkdir -p "$RL"
jq '.latency_links = [{"round": 3, "rail": 0, "from": "node1", "to": "node3", "ok": true, "error": null, "lat_p50_us": 12.5, "lat_p99_us": 20.25},
                      {"round": 3, "rail": 1, "from": "node2", "to": "node4", "ok": false, "error": "ping: timed out", "lat_p50_us": null, "lat_p99_us": null}]' \
    "$R/demo-fabric/report.json" >"$RL/report.json"
jq -c .latency_links "$RL/report.json" >"$TMP/lat.before"
"$RAILYARD" report convert "$RL" --link-records binary >/dev/null
is "$(jq '.links_file.records' "$RL/report.json")" 10 "a run with a latency sweep: 8 links and 2 sweep links as records"
if [ $xml -eq 1 ]; then
    "$RAILYARD" report show "$RL" --format junit >"$TMP/rl.junit.xml"
    golden_cmp "$TMP/rl.junit.xml" "$GOLDEN/report-demo-fabric.junit.xml" "...the sweep's links are not measured links: JUnit as without them"
else skip "built without libxml2: no JUnit"; fi
"$RAILYARD" report convert "$RL" --link-records json >/dev/null
jq -c '.latency_links' "$RL/report.json" | cmp -s - "$TMP/lat.before"; ok $? "...and back: latency_links as they were"
# the large run: converted, the three renderings are byte for byte those of the objects
"$RAILYARD_SRCDIR/scripts/bench-report" --nodes 182 --rails 4 --write "$BIG" >/dev/null
"$RAILYARD" report render "$BIG/run" >/dev/null 2>&1
rm -rf "$TMP/bigrec"; cp -r "$BIG" "$TMP/bigrec"
"$RAILYARD" report convert "$TMP/bigrec/run" --link-records binary >/dev/null; ok $? "the 65884-link run converted"
"$RAILYARD" report render "$TMP/bigrec/run" >/dev/null 2>&1
for f in metrics.prom junit.xml report.html; do
    [ $xml -eq 0 ] && [ $f != metrics.prom ] && { skip "built without libxml2"; continue; }
    cmp -s "$BIG/run/$f" "$TMP/bigrec/run/$f"; ok $? "65884 links as records: the same $f"
done
is "$(( $(stat -c %s "$TMP/bigrec/run/links.bin.gz") * 8 < $(stat -c %s "$BIG/run/report.json") ))" 1 \
   "...in less than an eighth of the bytes ($(stat -c %s "$TMP/bigrec/run/links.bin.gz") against $(stat -c %s "$BIG/run/report.json"))"
# damage: each refused with the file named, exit 2, and both files left as they were
damaged() { # damaged DESCRIPTION PATTERN: report show of $D2 fails naming PATTERN, nothing changed
    local s1 s2; s1=$(md5sum "$D2/report.json" "$D2"/links.bin* 2>/dev/null)
    "$RAILYARD" report show "$D2" >/dev/null 2>"$TMP/err"; local rc=$?
    s2=$(md5sum "$D2/report.json" "$D2"/links.bin* 2>/dev/null)
    is "$rc $(grep -c -- "$2" "$TMP/err") $([ "$s1" = "$s2" ] && echo kept)" "2 1 kept" "$1: $(head -c 160 "$TMP/err")"
}
D2=$TMP/dmg
rm -rf "$D2"; cp -r "$RB" "$D2"; jq '.links_file.records = 9' "$RB/report.json" >"$D2/report.json"
damaged "more records named than the file holds" "links.bin.gz: 8 of 9 link records"
rm -rf "$D2"; cp -r "$RB" "$D2"; rm "$D2/links.bin.gz"
damaged "the records file missing" "links.bin.gz: No such file"
rm -rf "$D2"; cp -r "$RB" "$D2"; jq '.node_names = .node_names[0:2]' "$RB/report.json" >"$D2/report.json"
damaged "a record naming a node past node_names" "links.bin.gz: link record [0-9]*: node [0-9]* past the report's 2 nodes"
rm -rf "$D2"; cp -r "$RB" "$D2"; jq '.links_file.path = "../../etc/passwd"' "$RB/report.json" >"$D2/report.json"
damaged "a records path outside the run's folder" "links_file is not a file name beside the report"
rm -rf "$D2"; cp -r "$RB" "$D2"; printf 'not records at all\n' | gzip >"$D2/links.bin.gz"
damaged "a file that is not records" "not a railyard link record file"
rm -rf "$D2"; cp -r "$RB" "$D2"; jq '.links_file.version = 4' "$RB/report.json" >"$D2/report.json"
damaged "records of a later version" "links_file version 4"

# --- leaf per port: a `railyard fabric` run (an ibnetdiscover dump of the demo cluster's rails
# as an InfiniBand fabric, node4's rail-1 HCA on a rail-0 leaf) is archived with its cabling;
# its page and the page of a railyard-fabric run in the same archive name each port's leaf and
# draw that cable crossing into rail 0's column
IB=$R/demo-ib
IBA=$TMP/ib-archive
if have_feature yaml; then
    "$RAILYARD" fabric --ibnetdiscover "$IB/fabric.topo" --map "$IB/rail.map" --archive "$IBA" \
        --prometheus "$TMP/ib.prom" >"$TMP/ib.out" 2>"$TMP/err"
    is $? 1 "railyard fabric: the HCA on another rail's leaf fails (exit 1)"
    ID=$(ls "$IBA"/*/ | grep -- '-ib-' | head -1)
    D=$(ls -d "$IBA"/*/"$ID")
    [ -n "$ID" ] && [ -f "$D/report.json" ]; ok $? "the fabric run is archived: $ID"
    jq -e '[.cabling[] | select(.subject == "node4/mlx5_1:1" and .rail == 1 and .leaf == "leaf-r0-0" and .leaf_rail == 0)] | length == 1' \
        "$D/report.json" >/dev/null; ok $? "report.json: node4/mlx5_1:1 (rail 1) is cabled to leaf-r0-0 (rail 0)"
    is "$(jq '[.cabling[] | select(.rail != null)] | length' "$D/report.json")" 8 "report.json: the leaf of all 8 HCA ports"
    is "$(jq -r '.run.tool + " " + .cluster + " " + .verdict' "$D/report.json")" "ib demo fail" "report.json: run tool ib, the map's cluster, the verdict"
    if [ $have_schema -eq 1 ]; then
        out=$(schema_ok "$D/report.json"); is "$out" "" "the fabric's report.json is valid against the schema"
        jq 'del(.cabling[0].leaf)' "$D/report.json" >"$TMP/bad-cabling.json"
        out=$(schema_ok "$TMP/bad-cabling.json"); [ -n "$out" ]; ok $? "...and one with a cabling entry without its leaf is not"
    else skip "python3-jsonschema is not installed"; skip "python3-jsonschema is not installed"; fi
    grep -q '^railyard_check_failures{tool="ib",node="node4",check="rail.cabling"} 1$' "$TMP/ib.prom"
    ok $? "the textfile counts the cabling failure against node4"
    if [ $xml -eq 1 ]; then
        grep -q '<title>node4 rail 1 is cabled to leaf-r0-0, a leaf of rail 0</title>' "$D/report.html"
        ok $? "report.html: node4's rail-1 cable drawn crossing to rail 0's leaf"
        is "$(grep -o 'class="leaf"' "$D/report.html" | wc -l)" 8 "report.html: every port named by its leaf"
        # a railyard-fabric run archived beside it takes the leaves from the fabric run
        mkdir -p "$IBA/2026-11-30/20261130T171717Z-demo-fabric-1"
        cp "$R/demo-fabric/report.json" "$IBA/2026-11-30/20261130T171717Z-demo-fabric-1/"
        "$RAILYARD" report show 20261130T171717Z-demo-fabric-1 --archive "$IBA" --format html >"$TMP/demo-ib.html"
        ok $? "report show renders the railyard-fabric run of that archive"
        grep -q "Leaf per port from the InfiniBand fabric run $ID" "$TMP/demo-ib.html"; ok $? "...naming the fabric run its leaves come from"
        grep -q '<title>node4 rail 1 is cabled to leaf-r0-0, a leaf of rail 0</title>' "$TMP/demo-ib.html"
        ok $? "...and drawing node4's rail-1 cable crossing into rail 0"
        grep -q '<title>node1 rail 1: cabled to leaf-r1-0; no finding</title>' "$TMP/demo-ib.html"; ok $? "...a healthy port under its leaf"
        grep -q 'node2 rail 1: cabled to leaf-r1-0; link.bandwidth' "$TMP/demo-ib.html"; ok $? "...the slow port red with its check"
        "$RAILYARD" report show "$R/demo-fabric" --format html | grep -q 'Leaf per port: n/a'
        ok $? "outside an archive the page says the leaves are unknown"
        if command -v chromium >/dev/null; then
            browser "$D/report.html" "$(dirname "$RAILYARD")/tests/report-demo-ib.png"
            is "$(grep -o 'class="crossed"' "$TMP/dom" | wc -l)" 1 "browser: one crossing cable in the fabric's rail diagram"
            is "$(wc -l <"$TMP/console")" 0 "browser: no console message"
        else skip "no chromium"; skip "no chromium"; fi
    else
        for i in 1 2 3 4 5 6 7 8 9 10; do skip "built without libxml2"; done
    fi
    printf 'rails: [oops\n' >"$TMP/broken.map"
    "$RAILYARD" fabric --ibnetdiscover "$IB/fabric.topo" --map "$TMP/broken.map" --archive "$IBA" >/dev/null 2>"$TMP/err"
    is $? 2 "railyard fabric with a broken map: exit 2"
    B=$(ls -d "$IBA"/*/*-ib-* | tail -1)
    is "$(jq -r '.verdict + " " + (.run.complete | tostring)' "$B/report.json")" "error true" "...archived as verdict error"
    jq -r .error "$B/report.json" | grep -q 'broken.map:[0-9]*:[0-9]*: malformed YAML'; ok $? "...with the map's error: $(jq -r .error "$B/report.json")"
else
    for i in $(seq 1 21); do skip "built without libyaml: no maps"; done
fi

# --- hostile strings: a node name and an IB NodeDescription with markup, quotes, & and ANSI
# escapes, through check, the archive and every rendering
EVIL=$(printf '<script>alert(1)</script>"&\033[31mred')
mkdir -p "$TMP/sys/class"
cp -r "$SHARED_FIXTURES/sysfs/gpud_h100_sys-class-infiniband" "$TMP/sys/class/infiniband"
chmod -R u+w "$TMP/sys"
printf '%s HCA-1\n' "$EVIL" >"$TMP/sys/class/infiniband/mlx5_0/node_desc"
"$RAILYARD" check --node "$EVIL" --sysfs-root "$TMP/sys" --archive "$A" >"$TMP/evil.txt" 2>"$TMP/err"
ok $([ $? -le 1 ]; echo $?) "check with a hostile node name runs"
! grep -q $'\033' "$TMP/evil.txt"; ok $? "terminal: no escape byte reaches the screen"
grep -q '\\x1b\[31mred' "$TMP/evil.txt"; ok $? "terminal: the escape is shown as \\x1b"
D=$(ls -d "$A"/*/*-check-* | head -1)
jq -e --arg e "$EVIL" '.node == $e' "$D/report.json" >/dev/null; ok $? "report.json keeps the name as data"
for f in report.html junit.xml metrics.prom; do
    if [ -f "$D/$f" ]; then ! grep -q $'\033' "$D/$f"; ok $? "$f: no escape byte"
    else skip "$f not rendered by this build"; fi
done
if [ $xml -eq 1 ]; then
    ! grep -q '<script>' "$D/report.html"; ok $? "HTML: the markup is escaped"
    grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;' "$D/report.html" ||
        grep -q '&lt;script&gt;alert(1)&lt;/script&gt;"&amp;' "$D/report.html"
    ok $? "HTML: shown as text"
    grep -q 'HCA-1' "$D/report.html"; ok $? "HTML: the inventory names the HCA's NodeDescription"
    if command -v xmllint >/dev/null; then
        xmllint --noout "$D/junit.xml"; ok $? "JUnit: well-formed XML"
        n=$(xmllint --xpath 'string(//testsuite/@name)' "$D/junit.xml")
        is "$n" 'railyard check <script>alert(1)</script>"&\x1b[31mred' "JUnit: the name is data (the escape shown as \\x1b)"
    else skip "xmllint missing"; skip "xmllint missing"; fi
    if command -v chromium >/dev/null; then
        browser "$D/report.html" "$TMP/evil.png"
        ! grep -qi '<script' "$TMP/dom"; ok $? "browser: no script element in the DOM"
        is "$(wc -l <"$TMP/console")" 0 "browser: nothing ran"
    else skip "no chromium"; skip "no chromium"; fi
else
    for i in 1 2 3 4 5 6 7; do skip "built without libxml2"; done
fi
# other control bytes than ESC (XML 1.0 carries none of them): the page and JUnit stay well-formed
CTRL=$(printf 'node\001\010\013\014x')
"$RAILYARD" check --node "$CTRL" --sysfs-root "$TMP/sys" --archive "$TMP/ctrl" >/dev/null 2>&1
D2=$(ls -td "$TMP"/ctrl/*/*-check-* | head -1)
if [ $xml -eq 1 ] && command -v xmllint >/dev/null; then
    xmllint --noout "$D2/junit.xml" 2>"$TMP/xl"; ok $? "JUnit: a node name with \\001 \\b \\v \\f is well-formed XML $(head -1 "$TMP/xl")"
    is "$(xmllint --xpath 'string(//testsuite/@name)' "$D2/junit.xml")" 'railyard check node\x01\x08\x0b\x0cx' \
       "JUnit: those bytes shown as \\xHH in the name"
else
    skip "built without libxml2 or no xmllint"; skip "built without libxml2 or no xmllint"
fi
# an archived report.json carries any character JSON can (\u0001, \u007f: one written by hand or
# by another tool); read again, every string is made inert before any rendering: both shown as
# \xHH, as a name given to check is
if [ $xml -eq 1 ] && command -v xmllint >/dev/null; then
    cp -r "$D2" "$TMP/ctrl-run"
    jq '.node = "node\u0001\u007fx"' "$D2/report.json" >"$TMP/ctrl-run/report.json"
    "$RAILYARD" report show "$TMP/ctrl-run" --format junit >"$TMP/ctrl.xml" 2>"$TMP/err"
    if xmllint --noout "$TMP/ctrl.xml" 2>"$TMP/xl"; then
        is "$(xmllint --xpath 'string(//testsuite/@name)' "$TMP/ctrl.xml")" 'railyard check node\x01\x7fx' \
            "report show --format junit from a report.json with \\u0001 and \\u007f in the node: both shown as \\xHH"
    else
        ok 1 "report show --format junit from a report.json with \\u0001 and \\u007f: not well-formed XML ($(head -c 200 "$TMP/xl" "$TMP/err"))"
    fi
    "$RAILYARD" report show "$TMP/ctrl-run" --format html >"$TMP/ctrl.html" 2>"$TMP/err"
    ! LC_ALL=C grep -q $'[\x01\x7f]' "$TMP/ctrl.html" && grep -qF 'node\x01\x7fx' "$TMP/ctrl.html"
    ok $? "report show --format html: neither byte in the page, both shown as \\xHH"
else
    skip "built without libxml2 or no xmllint"; skip "built without libxml2 or no xmllint"
fi
"$PROMCHECK" "$D/metrics.prom" >"$TMP/pc"; ok $? "textfile with the hostile name passes the syntax check $(head -1 "$TMP/pc")"
grep -qF 'node="<script>alert(1)</script>\"&\\x1b[31mred"' "$D/metrics.prom"; ok $? "textfile: quote escaped, the escape shown as \\x1b (its backslash escaped)"

# --- archive layout, history, prune
"$RAILYARD" check --node ndv4-0042 --ibstat "$SHARED_FIXTURES/ibstat/gpud_ibstat_azure_a100_ibpanic_missing_mlx5_8.txt" \
    --archive "$A" --prometheus "$TMP/textfile.prom" >/dev/null 2>"$TMP/err"
is $? 1 "an archived check keeps its verdict (exit 1)"
cmp -s "$TMP/textfile.prom" "$(ls -d "$A"/*/*-ndv4-0042-check-* | tail -1)/metrics.prom"
ok $? "--prometheus writes the run's metrics for the textfile collector"
ls "$A"/*/*-ndv4-0042-check-*/{report.json,cmdline,inventory.json} >/dev/null 2>&1; ok $? "the run directory holds report.json, cmdline, inventory.json"
"$RAILYARD" check --reason --node ndv4-0042 --ibstat "$SHARED_FIXTURES/ibstat/gpud_ibstat_azure_a100_ibpanic_missing_mlx5_8.txt" \
    --archive "$A" >"$TMP/reason" 2>"$TMP/err"
is "$? $(cat "$TMP/reason")" "1 railyard: nic.count mlx5_8 missing exp present" "--reason archives too, printing only the reason"
is "$(ls -d "$A"/*/*-ndv4-0042-check-* | wc -l)" 2 "...as a second run"
if [ $sqlite -eq 1 ]; then
    "$RAILYARD" history --archive "$A" --json >"$TMP/h.json"; ok $? "history lists the runs"
    is "$(jq 'length' "$TMP/h.json")" 3 "three runs recorded"
    is "$(jq -r '[.[] | select(.node == "ndv4-0042") | .fail] | join(",")' "$TMP/h.json")" "1,1" "with their failure counts"
    "$RAILYARD" history --archive "$A" --node ndv4-0042 >"$TMP/h.txt"; is "$(grep -c check "$TMP/h.txt")" 2 "--node narrows to a node"
else
    for i in 1 2 3 4; do skip "built without SQLite"; done
fi
"$RAILYARD" report diff --archive "$A" "$(ls -d "$A"/*/*-ndv4-0042-check-* | head -1)" "$D" >"$TMP/diff.out"
is $? 1 "report diff: differences exit 1"
grep -q '^cleared  fail nic.count' "$TMP/diff.out"; ok $? "the first run's failure is cleared in the other"
"$RAILYARD" report prune --archive "$A" --keep 1 >"$TMP/prune"; is "$(cat "$TMP/prune")" "2 runs removed" "prune --keep 1"
is "$(ls -d "$A"/*/*-check-* | wc -l)" 1 "one run left"
if [ $sqlite -eq 1 ]; then
    is "$("$RAILYARD" history --archive "$A" --json | jq length)" 1 "history forgets the pruned runs"
else skip "built without SQLite"; fi

# --- a check that cannot judge, and one cut short by its deadline, are archived as such
printf 'cluster: [unclosed\n' >"$TMP/broken.map"
"$RAILYARD" check --map "$TMP/broken.map" --node n9 --archive "$TMP/a2" --ibstat \
    "$SHARED_FIXTURES/ibstat/gpud_ibstat_azure_a100_ibpanic_missing_mlx5_8.txt" >/dev/null 2>&1
is $? 2 "a broken map: exit 2"
rep=$(ls "$TMP"/a2/*/*-n9-check-*/report.json 2>/dev/null | head -1)
jq -e '.verdict == "error" and (.error | test("broken.map:")) and .run.complete == true' "$rep" >/dev/null 2>&1
ok $? "...archived with verdict error and the message"
mkfifo "$TMP/never"
"$RAILYARD" check --node n8 --timeout 2 --ibstat "$TMP/never" --archive "$TMP/a2" >/dev/null 2>"$TMP/err"
is $? 2 "an input that never comes: the deadline, exit 2"
rep=$(ls "$TMP"/a2/*/*-n8-check-*/report.json 2>/dev/null | head -1)
jq -e '.verdict == "error" and .run.complete == false and .run.finished == null' "$rep" >/dev/null 2>&1
ok $? "...a valid partial report, marked incomplete"
if [ $have_schema -eq 1 ]; then
    out=$(schema_ok "$rep"); is "$out" "" "...valid against the schema"
else skip "python3-jsonschema is not installed"; fi
if [ $sqlite -eq 1 ]; then
    is "$("$RAILYARD" history --archive "$TMP/a2" --node n8 --json | jq -r '.[0].complete')" false \
        "...and a history row, incomplete"
else skip "built without SQLite"; fi

# --- damaged archives: a clear error, exit 2, nothing lost
LAST=$(ls -d "$A"/*/*-check-* | tail -1)
cp "$LAST/report.json" "$TMP/saved.json"
printf '{"schema_version": 1, "tool": "railyard", "findings": [' >"$LAST/report.json"
"$RAILYARD" report show "$LAST" 2>"$TMP/err"; rc=$?
is $rc 2 "a truncated report.json: exit 2"
grep -q "report.json:1:[0-9]*: not JSON" "$TMP/err"; ok $? "...naming the file and position: $(cat "$TMP/err")"
[ -f "$LAST/report.json" ]; ok $? "...and the file is still there"
echo '{"hello": 1}' >"$LAST/report.json"
"$RAILYARD" report show "$LAST" -f junit 2>"$TMP/err"; is $? 2 "JSON that is not a report: exit 2"
grep -q 'not a railyard report' "$TMP/err"; ok $? "...saying so"
cp "$TMP/saved.json" "$LAST/report.json"
if [ $sqlite -eq 1 ]; then
    head -c 4096 /dev/urandom >"$A/history.db"
    sum=$(md5sum <"$A/history.db")
    "$RAILYARD" history --archive "$A" 2>"$TMP/err"; rc=$?
    is $rc 2 "a damaged history.db: exit 2"
    grep -q 'history.db: file is not a database' "$TMP/err"; ok $? "...with the reason: $(cat "$TMP/err")"
    "$RAILYARD" check --node ndv4-0042 --ibstat "$SHARED_FIXTURES/ibstat/gpud_ibstat_azure_a100_ibpanic_missing_mlx5_8.txt" \
        --archive "$A" >/dev/null 2>"$TMP/err"
    is $? 1 "a check archiving next to it keeps its verdict"
    grep -q 'the verdict stands' "$TMP/err"; ok $? "...and says what it could not record"
    is "$(md5sum <"$A/history.db")" "$sum" "the damaged history.db is left as it was"
else
    for i in 1 2 3 4 5; do skip "built without SQLite"; done
fi
"$RAILYARD" report show nosuchrun --archive "$A" 2>"$TMP/err"; is $? 2 "an unknown run: exit 2"
done_testing
