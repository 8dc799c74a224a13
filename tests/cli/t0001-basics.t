#!/bin/sh
# CLI basics: help, version, unknown commands and options, exit codes.
. "$RAILYARD_SRCDIR/tests/lib.sh"

"$RAILYARD" --version >"$TMP/v"; ok $? "--version exits 0"
grep -q "^railyard [0-9]" "$TMP/v"; ok $? "--version names the version"
grep -q "^features: hwloc" "$TMP/v"; ok $? "--version lists the features"
"$RAILYARD" help >"$TMP/h"; ok $? "help exits 0"
grep -q "inventory" "$TMP/h" && grep -q "gather" "$TMP/h"; ok $? "help lists inventory and gather"
"$RAILYARD" >/dev/null 2>&1; is $? 2 "no command: exit 2"
"$RAILYARD" frobnicate 2>"$TMP/e"; is $? 2 "unknown command: exit 2"
grep -q "unknown command 'frobnicate', try 'railyard help'" "$TMP/e"; ok $? "unknown command message"
"$RAILYARD" inventory --frob 2>"$TMP/e"; is $? 2 "unknown option: exit 2"
grep -q "unknown option '--frob'" "$TMP/e"; ok $? "unknown option is named"
"$RAILYARD" inventory extra 2>"$TMP/e"; is $? 2 "unexpected operand: exit 2"
"$RAILYARD" inventory --help >"$TMP/h"; ok $? "inventory --help exits 0"
grep -q -- "--nccl-topo" "$TMP/h"; ok $? "inventory --help shows input options"
"$RAILYARD" gather 2>"$TMP/e"; is $? 2 "gather without -o: exit 2"
grep -q -- "-o <file.tar.gz> is required" "$TMP/e"; ok $? "gather says -o is required"
"$RAILYARD" inventory --nccl-topo a.xml --hwloc-xml b.xml 2>"$TMP/e"; is $? 2 "--nccl-topo with --hwloc-xml: exit 2"
"$RAILYARD" check --list-checks >"$TMP/ids"; ok $? "check --list-checks exits 0"
is "$(grep -cvE '^[a-z0-9_]+(\.[a-z0-9_]+)+$' "$TMP/ids")|$(sort -u "$TMP/ids" | wc -l | tr -d ' ')" \
   "0|$(wc -l <"$TMP/ids" | tr -d ' ')" "check --list-checks: one dotted check id a line, each once"
done_testing
