#!/bin/sh
# The README's Accuracy tables are the kept campaigns' own: each row (class, injected, exact, as
# other, missed, in both modes) is what scripts/fault-campaign --from-json prints again from the
# files under campaign/ for that size (64, 256 and 1024 x 8, in the README's order), and each
# campaign's scenarios all say which tree ran them.
. "$RAILYARD_SRCDIR/tests/lib.sh"
README=$RAILYARD_SRCDIR/README.md
CAMP=$RAILYARD_SRCDIR/scripts/fault-campaign
[ -f "$README" ] || skip_all "README.md not found"
[ -d "$RAILYARD_SRCDIR/campaign" ] || skip_all "no campaign/ in $RAILYARD_SRCDIR"
command -v python3 >/dev/null || skip_all "python3 is not installed (scripts/fault-campaign needs it)"

# the README's class names, in the campaign's order of classes
label() {
    case $1 in
    down) echo "port down" ;;
    degrade-50) echo "port at 50%" ;;
    degrade-85) echo "port at 85%" ;;
    other-rail) echo "cable on another rail's leaf" ;;
    other-leaf) echo "cable on another leaf of its rail" ;;
    slow-spine) echo "spine with its ports at 100 Gb/s" ;;
    neighbours) echo "neighbours at 50% (ports)" ;;
    *) echo "?$1" ;;
    esac
}

# the Accuracy section's tables, each as "label|n|n|n|n|n|n|n" rows, tables apart by a line "--"
awk '/^## /{acc = ($0 == "## Accuracy")} acc && /^\| class \|/{t=1; if (n++) print "--"; next}
     acc && t && /^\|---/{next} acc && t && /^\|/{gsub(/ *\| */, "|"); sub(/^\|/, ""); sub(/\|$/, ""); print; next}
     {t=0}' "$README" >"$TMP/readme-tables"
is "$(grep -c -- '^--$' "$TMP/readme-tables")" 2 "the README's Accuracy section has three tables"

i=0
for size in 64 256 1024; do
    i=$((i + 1))
    # table i of the README
    awk -v want="$i" '/^--$/{k++; next} k + 1 == want' "$TMP/readme-tables" >"$TMP/readme-$size"
    set -- "$RAILYARD_SRCDIR"/campaign/"${size}"x8-seed2026*.json
    if [ ! -f "$1" ]; then
        ok 1 "campaign/${size}x8-seed2026*.json: kept"
        continue
    fi
    python3 "$CAMP" --from-json "$@" >"$TMP/camp-$size" 2>&1
    ok $? "$size x 8: fault-campaign --from-json of its $# file(s) reads them"
    # the campaign's rows: both modes' blocks side by side, by class
    awk '$1 == "default" || $1 ~ /^full/ {m = $1; next}
         m && NF == 5 && $2 ~ /^[0-9]+$/ {
             if (m == "default") { order[++n] = $1; d[$1] = $2 "|" $3 "|" $4 "|" $5 }
             else f[$1] = $3 "|" $4 "|" $5 }
         END { for (k = 1; k <= n; k++) print order[k] "|" d[order[k]] "|" f[order[k]] }' \
        "$TMP/camp-$size" >"$TMP/rows-$size"
    : >"$TMP/want-$size"
    while IFS='|' read -r class rest; do
        echo "$(label "$class")|$rest" >>"$TMP/want-$size"
    done <"$TMP/rows-$size"
    [ "$(wc -l <"$TMP/want-$size")" -eq 7 ]; ok $? "$size x 8: the campaign prints the seven classes in both modes"
    if diff "$TMP/want-$size" "$TMP/readme-$size" >"$TMP/diff-$size"; then
        ok 0 "$size x 8: the README's table is the campaign's, row by row"
    else
        sed 's/^/# /' "$TMP/diff-$size"
        ok 1 "$size x 8: the README's table is the campaign's, row by row"
    fi
    # every scenario names its tree, and none is marked as run from a tree with changes
    grep -q '^campaign: source [0-9a-f]\{7,\}: ' "$TMP/camp-$size"; ok $? "$size x 8: the scenarios name the tree that ran them"
    grep -q '^campaign: source .*-dirty' "$TMP/camp-$size"; [ $? -ne 0 ]; ok $? "$size x 8: no scenario ran on a tree with changes"
done
done_testing
