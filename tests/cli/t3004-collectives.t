#!/bin/bash
# The collective phase on the demo cluster, MPI's traffic on the rails (--mpi-rails): each
# collective per rail and over all ranks, bus bandwidth by nccl-tests' formulas against the ring
# bound of the same run's links; a healthy cluster reaches it, a degraded rail port is found by
# halving the node set and named (collective.busbw node3/rail0). The NCCL path needs a GPU.
. "$RAILYARD_SRCDIR/tests/lib.sh"
demo_rig
cleanup() {
    "$DEMO" down >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT

fabric() { # status in $rc, results in $TMP/run/results.json, the text in $TMP/out
    rm -rf "$TMP/run"
    "$DEMO" run --mpi-rails -- "$FABRIC" --map "${MAP:-$TMP/demo.map}" -d 1 --coll-duration 1 \
        -o "$TMP/run" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
R=$TMP/run/results.json
q() { jq -r "$1" "$R"; }
fails() { q '[.findings[] | select(.severity == "fail") | "\(.check) \(.subject)"] | join(";")'; }

# bad options: refused before anything runs (a rank alone, no cluster needed)
"$FABRIC" --collectives allreduce,bcast >/dev/null 2>"$TMP/e1"
is "$?:$(grep -c "unknown collective 'bcast'" "$TMP/e1")" "2:1" "--collectives bcast: refused, naming the word"
"$FABRIC" --collectives allreduce --coll-size 100 >/dev/null 2>"$TMP/e1"
is "$?:$(grep -c "'100' is not a size from 1K to 16G" "$TMP/e1")" "2:1" "--coll-size 100: refused"
"$FABRIC" --collectives allreduce --coll-lib cuda >/dev/null 2>"$TMP/e1"
is "$?:$(grep -c "coll-lib takes auto, mpi or nccl" "$TMP/e1")" "2:1" "--coll-lib cuda: refused"
"$FABRIC" --collectives allreduce --coll-groups nodes >/dev/null 2>"$TMP/e1"
is "$?:$(grep -c "coll-groups takes rails, all or rails,all" "$TMP/e1")" "2:1" "--coll-groups nodes: refused"

DEMO_QUIET=1 "$DEMO" up --nodes 4 --rails 2 --rate 100mbit >"$TMP/up.log" 2>&1
ok $? "demo cluster 4 x 2 at 100 Mbit/s up" || sed 's/^/# /' "$TMP/up.log"
"$DEMO" map >"$TMP/demo.map"

# healthy
fabric --collectives allreduce,allgather,alltoall --coll-size 512K,2M --archive "$TMP/arch"
is "$rc $(fails)" "0 " "healthy: exit 0, no failure"
is "$(q '[.collectives.results[] | select(.purpose == "phase")] | length')" "18" \
    "3 collectives x 2 sizes x (2 rails + all ranks) timed"
is "$(q '.collectives.library')" "mpi" "MPI on host memory: no GPU here"
q '.collectives.note' | grep -q 'not NCCL: node1 rail 0: '
ok $? "...and it says why not NCCL: $(q '.collectives.note')"
jq -e '[.collectives.bounds[] | .bound_gbps > 0.08 and .bound_gbps <= 0.1 and .slowest_link_gbps <= .bound_gbps] | length == 2 and all' "$R" >/dev/null
ok $? "each rail's bound from its links, near 100 Mbit/s: $(q '[.collectives.bounds[] | .bound_gbps] | @csv')"
jq -e '[.collectives.results[] | select(.op == "allreduce" and .purpose == "phase" and .rail != null and .bytes == 2097152) | .ratio >= 0.7 and .verdict == "ok"] | length == 2 and all' "$R" >/dev/null
ok $? "allreduce 2 MiB reaches 70% of the bound on each rail: $(q '[.collectives.results[] | select(.op == "allreduce" and .purpose == "phase" and .bytes == 2097152) | .ratio] | @csv')"
jq -e '[.collectives.results[] | ((if .op == "allreduce" then 2 else 1 end) * (.ranks - 1) / .ranks) as $f |
       (.busbw_gbps - .algbw_gbps * $f | fabs) < 0.001 * .busbw_gbps and
       (.algbw_gbps - .bytes * 8 / .time_us / 1000 | fabs) < 0.01 * .algbw_gbps] | all' "$R" >/dev/null
ok $? "bus bandwidth = algorithm bandwidth x nccl-tests' factor, algorithm bandwidth = bytes / time"
is "$(q '[.collectives.results[] | select(.rail == null) | .ranks] | unique | @csv')" "8" "the all-ranks group has every rank"
is "$(q '[.findings[] | select(.check == "collective.busbw" and .severity == "ok") | .subject] | unique | @csv')" '"rail0","rail1"' \
    "allreduce judged ok on each rail"
is "$(q '[.findings[] | select(.check == "collective.busbw" and .subject == "all ranks")] | length')" "0" \
    "the all-ranks group is reported, not judged"
grep -Eq '^  allreduce +rail0 +4 +2 MiB +[0-9.]+ Gb/s +[0-9.]+ Gb/s +[0-9]+% +ok$' "$TMP/out"
ok $? "the text has the collectives' table"
if python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
        "$R" "$RAILYARD_SRCDIR/reports/report.schema.json" >"$TMP/schema" 2>&1
    ok $? "the results validate against report.schema.json" || sed 's/^/# /' "$TMP/schema" | tail -3
else
    skip "python3-jsonschema is not installed"
fi

# a map's ratio: shares only
sed 's/^  demo-node:/  demo-node:\n    thresholds:\n      collective_busbw_ratio_min: 1.5/' "$TMP/demo.map" >"$TMP/bad.map"
"$RAILYARD" map validate "$TMP/bad.map" >"$TMP/bad" 2>&1
is "$?:$(grep -c 'bad.map:[0-9]*:[0-9]*: collective_busbw_ratio_min is a share' "$TMP/bad")" "2:1" \
    "collective_busbw_ratio_min 1.5: refused with the file and line"

# node3's port on rail 0 at a quarter of the rate: found by halving, named
"$DEMO" fault --degrade 3:0:25mbit >/dev/null 2>&1
ok $? "node3's rail-0 port degraded to 25 Mbit/s"
fabric --collectives allreduce --coll-size 2M --coll-groups rails --culprits "$TMP/culprits" \
    --archive "$TMP/arch"
is "$rc $(q '[.findings[] | select(.severity == "fail" and .check == "collective.busbw") | .subject] | join(";")')" "1 node3/rail0" \
    "degraded port: exit 1, collective.busbw names node3/rail0 and nothing else"
q '.findings[] | select(.check == "collective.busbw" and .subject == "node3/rail0") | .observed' |
    grep -Eq '^allreduce 2 MiB over 2 ranks: .* beside node[124] \(proven good\), against .*; the rail.s 4 nodes: allreduce 2 MiB over 4 ranks: .*\(([0-9]|[1-5][0-9])% of the bound\)$'
ok $? "...with its figure beside a good node and the rail's: $(q '.findings[] | select(.check == "collective.busbw" and .subject == "node3/rail0") | .observed')"
is "$(q '[.collectives.results[] | select(.rail == 0) | .purpose] | join(",")')" "phase,confirm,half,half,pair,pair" \
    "rail 0: the phase, its repeat, two halves side by side, each suspect beside a good node"
is "$(q '[.collectives.results[] | select(.purpose == "pair") | .suspect] | @csv')" '"node3","node4"' \
    "...the slower half was node3 and node4, each then tested beside a good node"
is "$(q '[.findings[] | select(.check == "collective.busbw" and .subject == "rail1") | .severity] | @csv')" '"ok"' \
    "rail 1 passes beside it"
grep -q '^drain node3 \([a-z][a-z_.]*\) railyard: fabric \1 ' "$TMP/culprits"
ok $? "--culprits drains node3, the check id its own field and the first word of the reason: $(grep '^drain' "$TMP/culprits" | head -2 | tr '\n' ' ')"
"$DEMO" fault --heal 3:0 >/dev/null 2>&1

# archived: the report keeps the collectives, the page draws a bar per rail, the history a trend
rep=$(ls -d "$TMP"/arch/*/*-fabric-* 2>/dev/null | tail -1)
[ -n "$rep" ] && jq -e '[.collectives.results[] | select(.purpose == "pair")] | length == 2' "$rep/report.json" >/dev/null
ok $? "the archived report keeps the collectives and their localization"
if have_feature libxml2; then
    "$RAILYARD" report show "$rep" --format html >"$TMP/page.html"
    grep -Eq '<title>rail 0: [0-9.e-]+ Gb/s bus bandwidth, short</title>' "$TMP/page.html" &&
        grep -Eq '<title>rail 1: [0-9.e-]+ Gb/s bus bandwidth, ok</title>' "$TMP/page.html" &&
        grep -q '<h3>Localization</h3>' "$TMP/page.html"
    ok $? "the page: a bar per rail (achieved against the bound) and the localization's steps"
else
    skip "built without libxml2: no HTML page"
fi
if have_feature sqlite; then
    "$RAILYARD" history --archive "$TMP/arch" --collective allreduce --rail 0 --json >"$TMP/hist" 2>"$TMP/err"
    is "$(jq -r '[.[] | select(.bytes == 2097152) | .verdict] | join(",")' "$TMP/hist")" "short,ok" \
        "history --collective allreduce --rail 0: the degraded run, then the healthy one"
    jq -e '[.[] | .bound_gbps > 0 and .busbw_gbps > 0 and .rail == 0 and .ranks == 4] | all' "$TMP/hist" >/dev/null
    ok $? "...each with its bus bandwidth and bound"
    "$RAILYARD" history --archive "$TMP/arch" --collective bcast >/dev/null 2>"$TMP/err"
    is "$?:$(grep -c "collective takes one of allreduce" "$TMP/err")" "2:1" "history --collective bcast: refused"
else
    skip "built without SQLite: no history"
    skip "built without SQLite: no history"
    skip "built without SQLite: no history"
fi

# --coll-lib nccl without a GPU: the phase does not run, and says why
sed 's/^  demo-node:/  demo-node:\n    thresholds:\n      collective_busbw_ratio_min: 0.5/' "$TMP/demo.map" >"$TMP/half.map"
MAP=$TMP/half.map fabric --collectives allreduce --coll-size 1M --coll-lib nccl
is "$rc $(q '.collectives.library') $(q '.collectives.results | length') $(q '.collectives.ratio_min')" "0 null 0 0.5" \
    "--coll-lib nccl without a GPU: the links judged, no collective run (the map's ratio 0.5 read)"
q '.not_judged[]' | grep -q '^collectives: not run: --coll-lib nccl, but node1 rail 0: '
ok $? "...named as not judged: $(q '.not_judged[]' | grep collectives)"

# the NCCL path itself: one rank's all-reduce on GPU memory (railyard-fabric needs two nodes, and
# NCCL 2.28 refuses two ranks on one GPU); where NCCL or a GPU cannot load, it says why: a skip
NCCL1=$(dirname "$RAILYARD")/tests/tools/nccl_one
if [ ! -x "$NCCL1" ]; then
    skip "tests/tools/nccl_one not built (make check builds it)"
else
    "$NCCL1" $((16 << 20)) >"$TMP/nccl" 2>&1
    nrc=$?
    if [ $nrc -eq 77 ]; then
        skip "the NCCL all-reduce: $(head -1 "$TMP/nccl")"
    else
        grep -Eq '^NCCL [0-9]+ allreduce 16777216 bytes, 1 rank on GPU 0: [0-9.]+ us per iteration' "$TMP/nccl"
        ok $((nrc + $?)) "NCCL all-reduce on one GPU: $(head -1 "$TMP/nccl")"
    fi
fi
done_testing
