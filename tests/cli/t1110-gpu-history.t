#!/bin/sh
# GPU figures kept over time: every archived check's figures go to the history, `railyard
# history --gpu` shows a GPU's or a pair's figures run by run, `report diff` names the figures
# that moved; a history of the version before GPU figures is brought forward without losing a
# row; bad --gpu values are refused.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature jansson || skip_all "built without jansson: reports are JSON"
have_feature sqlite || skip_all "built without SQLite: no history"
command -v jq >/dev/null || skip_all "jq is not installed"
unset RAILYARD_ARCHIVE
A=$TMP/archive
NVB=$RAILYARD_FIXTURES/gpu-bandwidth/hgx-h100-slow-uplink_nvbandwidth.txt
READ=device_to_device_memcpy_read_ce
latest() { ls -d "$A"/*/*/ | sort | tail -1; }

# run 1: as captured; run 2: the 0->1 read copy halved, gpu4's H2D up 3%
"$RAILYARD" check --archive "$A" --node gpu042 --nvbandwidth "$NVB" >/dev/null 2>&1
run1=$(jq -r .run.id "$(latest)/report.json")
awk '/^Running device_to_device_memcpy_read_ce/ {d = 1} d && $1 == "0" && $3 ~ /\./ {$3 = sprintf("%.2f", $3 / 2); d = 0}
     /^Running host_to_device_memcpy_ce/ {h = 1} h && $1 == "0" && $6 ~ /\./ {$6 = sprintf("%.2f", $6 * 1.03); h = 0} {print}' \
    "$NVB" >"$TMP/run2.txt"
sleep 1 # one second apart: runs are ordered by their start
"$RAILYARD" check --archive "$A" --node gpu042 --nvbandwidth "$TMP/run2.txt" >/dev/null 2>&1
run2=$(jq -r .run.id "$(latest)/report.json")
[ -n "$run1" ] && [ -n "$run2" ] && [ "$run1" != "$run2" ]; ok $? "two checks archived ($run1, $run2)"

v01=$(awk '/^Running device_to_device_memcpy_read_ce/ {d = 1} d && $1 == "0" && $3 ~ /\./ {print $3; exit}' "$NVB")
v10=$(awk '/^Running device_to_device_memcpy_read_ce/ {d = 1} d && $1 == "1" && $2 ~ /\./ {print $2; exit}' "$NVB")
half=$(awk -v v="$v01" 'BEGIN {printf "%.2f", v / 2}')
"$RAILYARD" history --archive "$A" --gpu 0-1 --test $READ --json >"$TMP/h.json"
is "$?:$(jq -c '[.[] | [.run, .gpu, .peer, .value]]' "$TMP/h.json")" \
   "0:[[\"$run2\",0,1,$half],[\"$run2\",1,0,$v10],[\"$run1\",0,1,$v01],[\"$run1\",1,0,$v10]]" \
   "--gpu 0-1 --test: the pair's read copies both ways, newest run first"
"$RAILYARD" history --archive "$A" --gpu 0-1 --test $READ >"$TMP/h.txt"
grep -q "^[0-9T:-]*Z *$run2 *gpu042 *$READ *gpu0->gpu1 *$(printf %.1f "$half") GB/s" "$TMP/h.txt"
ok $? "... and as text, one figure a line"
"$RAILYARD" history --archive "$A" --gpu 4 --json >"$TMP/h4.json"
is "$(jq -c '[.[] | select(.run == "'"$run1"'") | .test] | sort' "$TMP/h4.json")" \
   '["device_to_host_memcpy_ce","host_to_device_memcpy_ce"]' "--gpu 4: the GPU's own figures (host copies), no pair's"
"$RAILYARD" history --archive "$A" --gpu 0-1 --node gpu999 --json >"$TMP/h.json"
is "$(jq length "$TMP/h.json")" 0 "--node of another machine: no figure"

# report diff: the halved pair is named; the 3% move is under the threshold
"$RAILYARD" report diff "$run1" "$run2" --archive "$A" >"$TMP/diff" 2>&1
is "$?:$(grep -c '^gpu ' "$TMP/diff")" "1:1" "report diff: one GPU figure moved more than 10%, exit 1"
grep -q "^gpu      $READ gpu0->gpu1 $v01 -> $half GB/s (-50%)" "$TMP/diff"
ok $? "... the test, the pair and both figures"
"$RAILYARD" report diff "$run1" "$run2" --archive "$A" --threshold 2 >"$TMP/diff" 2>&1
grep -q "^gpu      host_to_device_memcpy_ce gpu4 .* (+3%)" "$TMP/diff"
ok $? "--threshold 2: gpu4's 3% move is named too"

# a history of version 1 gains the GPU table on the next run; its rows stay
B=$TMP/old
mkdir -p "$B"
python3 - "$B/history.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE runs(id TEXT PRIMARY KEY, tool TEXT, node TEXT, started TEXT, started_unix REAL, verdict TEXT, complete INTEGER, nfail INTEGER, nwarn INTEGER, dir TEXT);
CREATE TABLE findings(run TEXT, severity TEXT, check_id TEXT, subject TEXT, expected TEXT, observed TEXT);
CREATE TABLE links(run TEXT, rail INTEGER, src TEXT, dst TEXT, ok INTEGER, bw_gbps REAL, lat_p50_us REAL, lat_p99_us REAL);
INSERT INTO runs VALUES('20261101T000000Z-old-check-1', 'check', 'old', '2026-11-01T00:00:00Z', 1793491200, 'pass', 1, 0, 0, '/nonexistent');
PRAGMA user_version = 1;
""")
db.commit()
PY
"$RAILYARD" history --archive "$B" --gpu 0 2>"$TMP/err"
is "$?:$(grep -c 'history version 1 keeps no GPU figures' "$TMP/err")" "2:1" "version 1, not yet brought forward: --gpu says why, exit 2"
"$RAILYARD" check --archive "$B" --node gpu042 --nvbandwidth "$NVB" >/dev/null 2>&1
is "$(python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); print(d.execute("PRAGMA user_version").fetchone()[0], d.execute("SELECT count(*) FROM runs WHERE node = \"old\"").fetchone()[0], d.execute("SELECT count(*) > 0 FROM gpu_figures").fetchone()[0])' "$B/history.db")" \
   "3 1 1" "the next check brings it to version 3, keeps the old run and records the GPU figures"

# bad values
"$RAILYARD" history --archive "$A" --gpu 1-1 2>"$TMP/err"
is "$?:$(grep -c "takes a GPU (3) or a pair (0-1), not '1-1'" "$TMP/err")" "2:1" "--gpu 1-1: exit 2"
"$RAILYARD" history --archive "$A" --gpu x 2>/dev/null; is $? 2 "--gpu x: exit 2"
"$RAILYARD" history --archive "$A" --test $READ 2>"$TMP/err"
is "$?:$(grep -c -- '--test goes with --gpu' "$TMP/err")" "2:1" "--test without --gpu: exit 2"
done_testing
