#!/bin/sh
# Maps: capture, validate, show, and malformed maps (exit 2, file:line:col).
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature yaml || skip_all "built without libyaml: maps are not available"
M=$RAILYARD_SRCDIR/tests/fixtures/maps

"$RAILYARD" map validate "$M/h100-ib-12hca.map" "$M/azure-a100-9hca.map" >"$TMP/out"
is $? 0 "the shipped maps validate"
"$RAILYARD" map show "$M/h100-ib-12hca.map" >"$TMP/out"; is $? 0 "map show"
grep -q "nodes gpu\[001-064\] (64) -> hgx-h100-ib" "$TMP/out"; ok $? "show counts the hosts of a host list"

bad() { # NAME EXPECTED-MESSAGE-REGEX CONTENT: a map with CONTENT (printf escapes) is refused
    printf -- "$3" >"$TMP/$1.map"
    "$RAILYARD" map validate "$TMP/$1.map" >/dev/null 2>"$TMP/err"; rc=$?
    is "$rc" 2 "$1: exit 2"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qE -- "$2" "$TMP/err"
    ok $? "$1: one line, $2"
    sed 's/^/# /' "$TMP/err"
}

bad unclosed "$TMP/unclosed.map:[0-9]+:[0-9]+: malformed YAML" 'cluster: x\nnode_types:\n  a: {gpus: {count: 8}\n'
bad wrong-type "$TMP/wrong-type.map:4:19: count must be an integer, not 'eight'" 'cluster: x\nnode_types:\n  a:\n    gpus: {count: eight}\n'
bad unknown-key "$TMP/unknown-key.map:4:5: unknown key 'gpu' in a node type \(did you mean 'gpus'\?\)" 'cluster: x\nnode_types:\n  a:\n    gpu: {count: 8}\n'
bad unknown-top "$TMP/unknown-top.map:2:1: unknown key 'node_typs' in the map \(did you mean 'node_types'\?\)" 'cluster: x\nnode_typs:\n  a: {}\n'
bad bad-hostlist "$TMP/bad-hostlist.map:5:3: bad host list .*unexpected 'a'" 'cluster: x\nnode_types:\n  a: {}\nnodes:\n  gpu[001-00a]: a\n'
bad backwards "range 9-3 goes backwards" 'cluster: x\nnode_types:\n  a: {}\nnodes:\n  gpu[9-3]: a\n'
bad empty-rail "$TMP/empty-rail.map:8:3: rail 1 has no NIC" 'cluster: x\nnode_types:\n  a:\n    nics:\n      - {name: mlx5_0, rail: 0}\nrails:\n  0:\n  1: {switches: [leaf1]}\n'
bad undeclared-rail "NIC mlx5_1 is on rail 2, which rails: does not declare" 'cluster: x\nnode_types:\n  a:\n    nics:\n      - {name: mlx5_0, rail: 0}\n      - {name: mlx5_1, rail: 2}\nrails:\n  0:\n'
bad unknown-type "$TMP/unknown-type.map:5:9: node type 'b' is not defined" 'cluster: x\nnode_types:\n  a: {}\nnodes:\n  gpu1: b\n'
bad bad-path "path must be one of PIX" 'cluster: x\nnode_types:\n  a:\n    nics:\n      - {name: mlx5_0, path: FAR}\n'
bad nameless-nic "a NIC entry needs a name" 'cluster: x\nnode_types:\n  a:\n    nics:\n      - {rail: 0}\n'
bad bad-check-id "unknown check id 'nic.port.speed'" 'cluster: x\nnode_types:\n  a:\n    severity: {nic.port.speed: warn}\n'
bad bad-severity "must be warn, fail or ignore, not 'loud'" 'cluster: x\nnode_types:\n  a:\n    severity: {nic.port.rate: loud}\n'
bad near-gpu "near_gpu 5 but the type has 2 GPUs" 'cluster: x\nnode_types:\n  a:\n    gpus: {count: 2}\n    nics:\n      - {name: m, near_gpu: 5}\n'
bad not-a-mapping "the map must be a mapping, not a list" '- just\n- a list\n'
bad empty "empty map" ''
bad no-types "no node_types" 'cluster: x\n'
bad fabric-speed "$TMP/fabric-speed.map:4:10: speed must be SDR, DDR, QDR" 'cluster: x\nnode_types: {a: {}}\nfabric:\n  speed: GDR\n'
bad fabric-width "$TMP/fabric-width.map:4:10: width must be 1x, 2x, 4x, 8x or 12x" 'cluster: x\nnode_types: {a: {}}\nfabric:\n  width: 3x\n'
bad fabric-counter "$TMP/fabric-counter.map:5:5: 'SymbolErrors' is not a PMA error counter" 'cluster: x\nnode_types: {a: {}}\nfabric:\n  counters:\n    SymbolErrors: {total: 5}\n'
bad fabric-limit "unknown key 'rise' in a counter \(did you mean 'rising'\?\)" 'cluster: x\nnode_types: {a: {}}\nfabric:\n  counters:\n    LinkDownedCounter: {rise: 0}\n'
bad fabric-key "unknown key 'expected' in fabric \(did you mean 'expect'\?\)" 'cluster: x\nnode_types: {a: {}}\nfabric:\n  expected: a.topo\n'
bad fabric-interval "interval takes seconds" 'cluster: x\nnode_types: {a: {}}\nfabric:\n  interval: 0\n'
printf 'cluster: x\nnode_types: {a: {}}\nfabric:\n  speed: ndr\n  width: 2x\n  expect: ref.topo\n  interval: 0.5\n  counters:\n    SymbolErrorCounter: {total: 100, rising: 2}\nseverity: {port.errors: ignore, link.: warn}\n' >"$TMP/fabric.map"
"$RAILYARD" map validate "$TMP/fabric.map" >/dev/null 2>"$TMP/err"
is $? 0 "a map with every fabric key validates"
"$RAILYARD" map show "$TMP/fabric.map" | grep -qF "fabric: speed NDR width 2x expect $TMP/ref.topo interval 0.5 s 1 counter limits"
ok $? "map show: the fabric section, the reference dump resolved against the map's directory"
# every check id the tool lists can have its severity set in a map
sev=$("$RAILYARD" check --list-checks | sed 's/$/: warn/' | paste -sd, - | sed 's/,/, /g')
printf 'cluster: x\nnode_types: {a: {}}\nseverity: {%s}\n' "$sev" >"$TMP/sev.map"
"$RAILYARD" map validate "$TMP/sev.map" >/dev/null 2>"$TMP/err"
is "$?|$(cat "$TMP/err")" "0|" "a severity for every listed check id validates ($(echo "$sev" | tr ',' '\n' | wc -l) ids)"
"$RAILYARD" map validate "$TMP/none.map" 2>"$TMP/err"; is $? 2 "missing map file: exit 2"
grep -q "cannot open $TMP/none.map" "$TMP/err"; ok $? "...naming the file"

# capture of this machine, then check it against its own map
"$RAILYARD" map capture --node-type here --nodes "$(hostname)" -o "$TMP/here.map" 2>"$TMP/err"
is $? 0 "capture of this machine"
"$RAILYARD" map validate "$TMP/here.map" >/dev/null; is $? 0 "the captured map validates"
"$RAILYARD" check --map "$TMP/here.map" >"$TMP/out" 2>&1; is $? 0 "this machine passes its own map"
ls "$TMP"/here.map.tmp.* >/dev/null 2>&1; is $? 2 "no temporary file left behind"
"$RAILYARD" map capture --nodes 'bad[' 2>"$TMP/err"; is $? 2 "capture with a bad host list: exit 2"
if [ -f "$SHARED_FIXTURES/hwloc-xml/llnl-mpibind_coral-lassen.xml" ]; then
    "$RAILYARD" map capture --hwloc-xml "$SHARED_FIXTURES/hwloc-xml/llnl-mpibind_coral-lassen.xml" \
        --node-type lassen -o "$TMP/lassen.map"
    is $? 0 "capture of a captured hwloc topology"
    "$RAILYARD" check --map "$TMP/lassen.map" --hwloc-xml "$SHARED_FIXTURES/hwloc-xml/llnl-mpibind_coral-lassen.xml" >"$TMP/out"
    is $? 0 "lassen passes its own map (host name lassen28 from the capture)"
    grep -q "model: \"Tesla V100-SXM2-16GB\"" "$TMP/lassen.map"; ok $? "the map names the GPU model"
    grep -q 'near_gpu: 0, path: "NODE"' "$TMP/lassen.map"; ok $? "the map keeps the GPU-NIC path class"
else
    skip "shared fixtures absent"
fi
# found by fuzz_map: a fabric section given twice kept the first one's expect, never freed
printf '#,"\nfabric:\n  expect: #,"\nfabric:\n  expect: \n' >"$TMP/dupfab.yaml"
if command -v valgrind >/dev/null && ! ldd "$RAILYARD" 2>/dev/null | grep -q libasan; then
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
        "$RAILYARD" map validate "$TMP/dupfab.yaml" >/dev/null 2>"$TMP/vg"
    is $? 2 "a fabric section given twice: refused for its other faults (exit 2), nothing leaked $(grep -m1 'definitely' "$TMP/vg")"
else
    "$RAILYARD" map validate "$TMP/dupfab.yaml" >/dev/null 2>&1
    is $? 2 "a fabric section given twice: refused for its other faults (exit 2; LeakSanitizer watches this build)"
fi
# map show --get and --json: what scripts read instead of the text. Two node types on unequal
# rails (4 of 0-3; 2 of 1 and 5), and one map with no rails: section (its rails are its NICs')
cat >"$TMP/two.map" <<'EOF'
cluster: two
node_types:
  big:
    nics:
      - {name: mlx5_0, rail: 0}
      - {name: mlx5_1, rail: 1}
      - {name: mlx5_2, rail: 2}
      - {name: mlx5_3, rail: 3}
  small:
    nics:
      - {name: mlx5_0, rail: 5}
      - {name: mlx5_1, rail: 1}
      - {name: eth0}
nodes:
  a[1-3]: big
  b[07-08]: small
rails:
  0: {switches: [leaf0, leaf0b]}
  1: {switches: [leaf1]}
  2: {switches: []}
  3: {switches: [leaf3]}
  5: {switches: [leaf5]}
EOF
sed '/^rails:/,$d' "$TMP/two.map" >"$TMP/norails.map"
get() { "$RAILYARD" map show --get "$@" 2>"$TMP/err" | tr '\n' ' '; }
is "$(get rails "$TMP/two.map")" "5 " "--get rails: the rails of every node type"
is "$(get rails "$TMP/norails.map")" "5 " "--get rails: a map without rails: counts its NICs' rails"
is "$(get rails "$M/h100-ib-12hca.map")" "8 " "--get rails: the shipped map's 8 (a front-end port on none)"
is "$(get rail-ids "$TMP/two.map")" "0 1 2 3 5 " "--get rail-ids: ascending, each once"
printf 'node_types:\n  t:\n    nics:\n      - {name: a, rail: 1023}\n      - {name: b, rail: 0}\nnodes:\n  n1: t\n' >"$TMP/edge.map"
is "$(get rail-ids "$TMP/edge.map")" "0 1023 " "--get rail-ids: the first and the last rail id a map takes"
is "$(get node-types "$TMP/two.map")" "big small " "--get node-types"
is "$(get cluster "$TMP/two.map")" "two " "--get cluster"
is "$(get hosts "$TMP/two.map")" "a1 a2 a3 b07 b08 " "--get hosts: every host of nodes:, in order"
is "$(get rails "$TMP/two.map" "$M/h100-ib-12hca.map")" "5 8 " "--get: a value for each map, in order"
"$RAILYARD" map show --get ports "$TMP/two.map" >"$TMP/out" 2>"$TMP/err"
is "$? $(wc -c <"$TMP/out")" "2 0" "--get of an unknown key: exit 2, nothing printed"
grep -q "takes rails, rail-ids, node-types, cluster or hosts, not 'ports'" "$TMP/err"
ok $? "... saying which keys it takes"
"$RAILYARD" map show --get rails "$TMP/none.map" >"$TMP/out" 2>"$TMP/err"
is "$? $(wc -c <"$TMP/out")" "2 0" "--get of a map that is not there: exit 2, no value"
"$RAILYARD" map validate --get rails "$TMP/two.map" >/dev/null 2>&1
is $? 2 "--get is map show's, not validate's"
if have_feature jansson; then
    "$RAILYARD" map show --json "$TMP/two.map" >"$TMP/two.json"; is $? 0 "map show --json"
    is "$(jq -c '[.schema_version, .tool, .command, .cluster, .rail_count]' "$TMP/two.json")" \
        '[1,"railyard","map show","two",5]' "map show --json: schema, tool, command, cluster, rail count"
    is "$(jq -c '.rails' "$TMP/two.json")" \
        '[{"id":0,"switches":["leaf0","leaf0b"]},{"id":1,"switches":["leaf1"]},{"id":2,"switches":[]},{"id":3,"switches":["leaf3"]},{"id":5,"switches":["leaf5"]}]' \
        "map show --json: each rail with its switches"
    is "$(jq -c '[.node_types[] | [.name, .rail_count, .rails, .nic_count]]' "$TMP/two.json")" \
        '[["big",4,[0,1,2,3],4],["small",2,[1,5],3]]' "map show --json: each node type's own rails"
    "$RAILYARD" map show --json "$TMP/norails.map" >"$TMP/nr.json"
    is "$(jq -c '[.rail_count, [.rails[].id], ([.rails[].switches | length] | add)]' "$TMP/nr.json")" \
        '[5,[0,1,2,3,5],0]' "map show --json without rails:: the NICs' rails, no switches"
    "$RAILYARD" map show "$TMP/two.map" | head -1 | grep -q ", 2 node types, 5 rails$"
    ok $? "map show's text says the same count"
    "$RAILYARD" map validate --json "$TMP/two.map" "$M/h100-ib-12hca.map" >"$TMP/v.json"
    is $? 0 "map validate --json of two maps"
    is "$(jq -c '[.command, .verdict, .node_type_count, .rail_count, .host_count]' "$TMP/v.json" | tr '\n' ' ')" \
        '["map validate","ok",2,5,5] ["map validate","ok",1,8,64] ' \
        "map validate --json: a document for each map, with what it holds"
    printf 'cluster: x\nnode_types:\n  t:\n    nics:\n      - {name: a, rail: 2}\nnodes:\n  n1: u\n' >"$TMP/badtype.map"
    "$RAILYARD" map validate --json "$TMP/two.map" "$TMP/badtype.map" >"$TMP/v2.json" 2>/dev/null
    is "$? $(jq -r '.verdict' "$TMP/v2.json" | tr '\n' ' ')" "2 ok error " \
        "map validate --json: a bad map among good ones: exit 2, its document says error"
    jq -r 'select(.verdict == "error") | .error' "$TMP/v2.json" | grep -q "badtype.map:7:.*node type 'u' is not defined"
    ok $? "... with the file and line"
else
    skip "built without jansson: no --json"
fi
done_testing
