#!/bin/bash
# The check catalogue, railyard-checks(7): every check id the code knows has an entry giving its
# rule, its limits, their source, the map key that overrides them and the tests that try them;
# every test named exists and names the check; a threshold key named is one the map reads; no
# entry is for a check the code does not know. A check no rig here can reach says so ("none
# here: ...") and shows as a skip.
. "$RAILYARD_SRCDIR/tests/lib.sh"
PAGE=$(dirname "$RAILYARD")/man/man7/railyard-checks.7
[ -f "$PAGE" ] || { echo "1..1"; echo "not ok 1 - $PAGE exists (configure writes it)"; exit 1; }
ids=$("$RAILYARD" check --list-checks)
[ "$(echo "$ids" | wc -l)" -ge 50 ]; ok $? "check --list-checks lists the check ids ($(echo "$ids" | wc -l))"

# field ID LABEL: the text of an entry's field (the line after ".I LABEL" in the ".SS ID"
# section), from one reading of the page
declare -A FIELDS
while IFS=$'\t' read -r id label text; do
    FIELDS["$id|$label"]=$text
done < <(awk '
    /^\.S[SH] / { id = ($1 == ".SS" && NF == 2) ? $2 : ""; want = ""; next }
    id != "" && want != "" { print id "\t" want "\t" $0; want = ""; next }
    id != "" && /^\.I / { want = substr($0, 4); gsub(/"/, "", want) }' "$PAGE" | sed 's/\\-/-/g')
field() { printf '%s' "${FIELDS["$1|$2"]-}"; }
keys=""
for id in $ids; do
    grep -qx "\.SS $id" "$PAGE"; ok $? "$id has an entry"
    missing=""
    for label in rule limits source "map key" tests; do
        [ -n "$(field "$id" "$label")" ] || missing="$missing $label"
    done
    is "$missing" "" "$id: rule, limits, source, map key and tests given"
    tests=$(field "$id" tests)
    case $tests in
    "none here:"*) skip "$id: ${tests#none here: }" ;;
    *)
        bad="" n=0
        for t in $tests; do
            n=$((n + 1))
            [ -f "$RAILYARD_SRCDIR/$t" ] || { bad="$bad $t (no such test)"; continue; }
            grep -qF "$id" "$RAILYARD_SRCDIR/$t" || bad="$bad $t (does not name $id)"
        done
        [ "$n" -gt 0 ] && [ -z "$bad" ]; ok $? "$id: $n tests named, each there and naming it${bad:+:$bad}"
        ;;
    esac
    keys="$keys $(field "$id" "map key" | grep -o 'thresholds\.[a-z_0-9]*' | sed 's/thresholds\.//')"
done
# every check id the code writes as a literal beside its severity is one it lists
emitted=$(cd "$RAILYARD_SRCDIR" && grep -rhoE 'TOPO_SEV_(FAIL|WARN|OK),[[:space:]]*"[a-z0-9_]+(\.[a-z0-9_]+)+"' \
    --include='*.c' common topo ib fabric readers reports src top probes 2>/dev/null |
    sed -E 's/.*"([^"]+)"/\1/' | sort -u)
[ "$(echo "$emitted" | wc -l)" -ge 40 ]; ok $? "the code's literal check ids found ($(echo "$emitted" | wc -l))"
unlisted=$(for e in $emitted; do echo "$ids" | grep -qx "$e" || echo "$e"; done)
is "$unlisted" "" "every check id the code writes is listed by check --list-checks"
# entries for checks the code does not know
stale=$(grep '^\.SS ' "$PAGE" | cut -c5- | while read -r s; do echo "$ids" | grep -qx "$s" || echo "$s"; done)
is "$stale" "" "every entry is a check the code knows"
# the threshold keys named are read by the map
if have_feature yaml; then
    for k in $(echo "$keys" | tr ' ' '\n' | sort -u); do
        printf 'cluster: x\nnode_types:\n  a:\n    thresholds: {%s: 0.5}\n' "$k" >"$TMP/k.map"
        "$RAILYARD" map validate "$TMP/k.map" >/dev/null 2>"$TMP/err"
        ok $? "thresholds.$k, named in the catalogue, is a key of the map ($(cat "$TMP/err"))"
    done
else
    skip "built without libyaml: map keys not tried"
fi
done_testing
