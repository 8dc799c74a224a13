#!/bin/sh
# The layers hold: no file includes a header from a folder above its own (tests/layers), every
# folder with C code is a layer, each layer's main header says what it is, and the README's
# "Layout" section lists the layers in their order. The checker is shown to catch a breach.
. "$RAILYARD_SRCDIR/tests/lib.sh"
CHECK=$RAILYARD_SRCDIR/scripts/check-layers
layers=$(sed 's/#.*//' "$RAILYARD_SRCDIR/tests/layers" | awk 'NF && $1 != "limit" {print $1}')

# the tree as it is
"$CHECK" "$RAILYARD_SRCDIR" >"$TMP/out" 2>&1
ok $? "no file includes from a layer above its own"
sed 's/^/# /' "$TMP/out" | head -20
[ ! -s "$TMP/out" ]; ok $? "the checker says nothing of a sound tree"

# each layer: a folder, and one header that opens with what the layer is ("/* topo/: ...")
for d in $layers; do
    n=$(cd "$RAILYARD_SRCDIR" && find "$d" -name '*.h' -exec grep -l "^/\* $d/: " {} + 2>/dev/null | wc -l)
    is "$n" 1 "$d/ has one main header that says what the layer is"
done

# the README's Layout section: the same folders, in the same order
awk '/^## Layout/{f=1;next} /^## /{f=0} f && /^- `[a-z]*\/`/' "$RAILYARD_SRCDIR/README.md" |
    sed 's/^- `\([a-z]*\)\/`.*/\1/' >"$TMP/readme"
echo "$layers" >"$TMP/order"
diff -u "$TMP/order" "$TMP/readme" >"$TMP/d"
ok $? "README's Layout lists tests/layers in order"
sed 's/^/# /' "$TMP/d" | head -20

# the checker catches breaches: a copy of the tree, broken three ways
T=$TMP/tree
mkdir -p "$T/tests"
cp "$RAILYARD_SRCDIR/tests/layers" "$T/tests/"
for d in $layers; do cp -r "$RAILYARD_SRCDIR/$d" "$T/"; done
"$CHECK" "$T" >"$TMP/c0" 2>&1
ok $? "the copy passes before it is broken"

# 1. a low layer includes a high one
cp "$T/common/error.h" "$TMP/error.h"
sed -i '/^#define RAILYARD_COMMON_ERROR_H/a #include "top/top.h"' "$T/common/error.h"
"$CHECK" "$T" >"$TMP/c1" 2>&1
is "$?" 1 "common/ including top/ fails the check"
grep -q '^common/error.h:[0-9]*: includes "top/top.h": layer top/ is above common/' "$TMP/c1"
ok $? "the breach is named by file, line and layers"
sed 's/^/# /' "$TMP/c1" | head -5
cp "$TMP/error.h" "$T/common/error.h"

# 2. the model includes a reader (one step up)
sed -i '/^#define RAILYARD_TOPO_MODEL_H/a #include "readers/hwloc.h"' "$T/topo/model.h"
"$CHECK" "$T" >"$TMP/c2" 2>&1
is "$?" 1 "topo/ including readers/ fails the check"
grep -q '^topo/model.h:[0-9]*: includes "readers/hwloc.h"' "$TMP/c2"; ok $? "... named"
cp "$RAILYARD_SRCDIR/topo/model.h" "$T/topo/model.h"

# 3. product code includes a test header; 4. a folder of C code outside the layers
sed -i '1i #include "tests/tap/tap.h"' "$T/fabric/host.c"
mkdir -p "$T/gpu" && echo 'int gpu_probe;' >"$T/gpu/probe.c"
"$CHECK" "$T" >"$TMP/c3" 2>&1
is "$?" 1 "a test header in fabric/ and an unlisted gpu/ fail the check"
grep -q '^fabric/host.c:1: includes "tests/tap/tap.h": tests/ is not a layer' "$TMP/c3"; ok $? "... the test header named"
grep -q '^gpu/: holds C code but is not a layer' "$TMP/c3"; ok $? "... the folder named"

# an equal layer and a lower one stay allowed (the check is not "no includes at all")
cp "$RAILYARD_SRCDIR/fabric/host.c" "$T/fabric/host.c"; rm -r "$T/gpu"
sed -i '/^#define RAILYARD_TOP_TOP_H/a #include "common/error.h"\n#include "top/source.h"' "$T/top/top.h"
"$CHECK" "$T" >"$TMP/c4" 2>&1
ok $? "includes from the same or a lower layer pass"

cp "$RAILYARD_SRCDIR/top/top.h" "$T/top/top.h"

# an entry point past 500 lines, one past the limit tests/layers keeps for it, a limit exactly
# met, and a product script that writes JSON by hand
yes '/* more */' | head -n $((501 - $(wc -l <"$T/src/cmd/cmd_map.c"))) >>"$T/src/cmd/cmd_map.c"
echo '/* one more */' >>"$T/src/cmd/cmd_top.c"
mkdir -p "$T/scripts"
printf '#!/bin/sh\necho ok\nprintf '"'"'{"node": "%%s"}\\n'"'"' "$h"\n' >"$T/scripts/railyard-x"
printf '#!/bin/sh\necho "  \\"schema_version\\": 1,"\n' >"$T/scripts/railyard-y"
printf '#!/bin/sh\nprintf "%%s\\n" "$x" # {"not": "json"} in a comment\n' >"$T/scripts/railyard-z"
"$CHECK" "$T" >"$TMP/c6" 2>&1
is "$?" 1 "an entry point grown past its limit and scripts writing JSON fail the check"
sed 's/^/# /' "$TMP/c6" | head -8
grep -q '^src/cmd/cmd_map.c: 501 lines, past its limit of 500' "$TMP/c6"; ok $? "... 501 lines of 500 named"
grep -q "^src/cmd/cmd_top.c: [0-9]* lines, past its limit of $(awk '$2 == "src/cmd/cmd_top.c" {print $3}' "$T/tests/layers")" "$TMP/c6"
ok $? "... one line past a ratchet named"
grep -q '^scripts/railyard-x:3: writes JSON by hand' "$TMP/c6"; ok $? "... a JSON object printed by a script named"
grep -q '^scripts/railyard-y:2: writes JSON by hand' "$TMP/c6"; ok $? "... a schema_version field named"
grep -q 'railyard-z' "$TMP/c6"; is $? 1 "... a brace in a comment is not JSON"
sed -i '$d' "$T/src/cmd/cmd_map.c"; sed -i '$d' "$T/src/cmd/cmd_top.c"; rm -r "$T/scripts"
"$CHECK" "$T" >"$TMP/c7" 2>&1
ok $? "500 lines, and a ratchet met exactly, pass"

# MPI is fabric/'s alone: an entry point that includes <mpi.h>, a report that calls MPI, each
# named; a call in fabric/, a comment line and identifiers that hold MPI_ pass
printf '#include <stdio.h>\n#  include <mpi.h>\n' >"$T/src/cmd/x_mpi.c"
printf 'void f(void)\n{\n    MPI_Isend (0, 0, 0, 0, 0, 0, 0);\n}\n' >"$T/reports/x_mpi.c"
printf '/* MPI_Init( waits */\nint fabric_mpi_min(void);\nint RY_MPI_Barrier(void);\n' >"$T/top/x_mpi.c"
printf 'void g(void)\n{\n    MPI_Barrier(0);\n}\n' >"$T/fabric/x_mpi.c"
"$CHECK" "$T" >"$TMP/c8" 2>&1
is "$?" 1 "MPI outside fabric/ fails the check"
sed 's/^/# /' "$TMP/c8" | head -8
grep -q '^src/cmd/x_mpi.c:2: MPI outside fabric/' "$TMP/c8"; ok $? "... an entry point that includes <mpi.h> named"
grep -q '^reports/x_mpi.c:3: MPI outside fabric/' "$TMP/c8"; ok $? "... a call in reports/ named"
grep -q 'top/x_mpi.c\|fabric/x_mpi.c' "$TMP/c8"; is $? 1 "... a comment, other identifiers and fabric/'s own call are not"
[ "$(wc -l <"$TMP/c8")" -eq 2 ]; ok $? "... two lines, nothing else"
rm "$T/src/cmd/x_mpi.c" "$T/reports/x_mpi.c" "$T/top/x_mpi.c" "$T/fabric/x_mpi.c"
"$CHECK" "$T" >"$TMP/c9" 2>&1
ok $? "... and without them the tree passes again"

# no layer order: the tool cannot judge (2), never a pass
rm "$T/tests/layers"
"$CHECK" "$T" >"$TMP/c5" 2>&1
is "$?" 2 "without tests/layers the checker exits 2"
done_testing
