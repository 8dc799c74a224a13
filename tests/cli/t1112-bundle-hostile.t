#!/bin/sh
# A bundle is hostile input (it comes from another machine or a ticket): every member that could
# write or read outside the unpacked tree, a device node, a FIFO, a hard link and an oversized
# member refuse the bundle with exit 2 and one line naming the member; nothing is written
# outside, and the unpacked tree is removed. Links that stay inside, dangling ones too, are kept.
. "$RAILYARD_SRCDIR/tests/lib.sh"
have_feature libarchive || skip_all "built without libarchive: bundles are not read"
command -v python3 >/dev/null || skip_all "python3 is not installed (it writes the hostile tarballs)"

OUT=$TMP/outside
mkdir -p "$OUT" "$TMP/unpack"
# mk NAME SPEC...: $TMP/NAME.tar.gz from specs: f:PATH[:SIZE], d:PATH, l:PATH:TARGET,
# h:PATH:TARGET (hard link), c:PATH (character device), p:PATH (FIFO), m:PATH (the marker)
mk() {
    python3 - "$TMP/$1.tar.gz" "$@" <<'PY'
import io, sys, tarfile
out = sys.argv[1]
with tarfile.open(out, "w:gz", compresslevel=1, format=tarfile.GNU_FORMAT) as t:
    for spec in sys.argv[3:]:
        kind, rest = spec.split(":", 1)
        i = tarfile.TarInfo()
        if kind in ("l", "h"):
            i.name, i.linkname = rest.split(":", 1)
            i.type = tarfile.SYMTYPE if kind == "l" else tarfile.LNKTYPE
            t.addfile(i)
        elif kind == "d":
            i.name, i.type, i.mode = rest, tarfile.DIRTYPE, 0o755
            t.addfile(i)
        elif kind in ("c", "p"):
            i.name = rest
            i.type = tarfile.CHRTYPE if kind == "c" else tarfile.FIFOTYPE
            i.devmajor, i.devminor = 1, 3
            t.addfile(i)
        else:
            name, _, size = rest.partition(":")
            data = b"railyard-bundle 1\n" if kind == "m" else b"x\n"
            if size:
                data = bytes(int(size))
            i.name, i.size = name, len(data)
            t.addfile(i, io.BytesIO(data))
PY
}
B=railyard-bundle-h
# refused NAME REASON MEMBER DESCRIPTION: exit 2, one line naming the member and the reason,
# nothing outside, nothing left unpacked
refused() {
    TMPDIR=$TMP/unpack "$RAILYARD" inventory --bundle "$TMP/$1.tar.gz" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
        grep -qF "$TMP/$1.tar.gz: member '$3': $2; the bundle is not read" "$TMP/err"
    ok $? "$4: exit 2, the member and why named (exit $rc: $(head -c 300 "$TMP/err"))"
    [ -z "$(ls -A "$OUT")" ] && [ -z "$(ls -A "$TMP/unpack")" ] && [ ! -e /tmp/railyard-pwned ]
    ok $? "$4: nothing written outside, nothing left unpacked ($(ls -A "$OUT" "$TMP/unpack" | tr '\n' ' '))"
}

mk abs "m:$B/railyard-bundle" "f:$OUT/abs"
refused abs "an absolute path" "$OUT/abs" "an absolute member"
mk dotdot "m:$B/railyard-bundle" "f:$B/../../outside/dotdot"
refused dotdot "a path with '..'" "$B/../../outside/dotdot" "a member with .."
mk abslink "m:$B/railyard-bundle" "l:$B/sys:/etc"
refused abslink "a link to an absolute path (out of the bundle)" "$B/sys" "a link to /etc"
mk uplink "m:$B/railyard-bundle" "l:$B/passwd:../../../../../../../../etc/passwd"
refused uplink "a link out of the bundle" "$B/passwd" "a link climbing out"
# a link to a directory inside, then a member written through it: refused, not followed
mk through "m:$B/railyard-bundle" "d:$B/sub" "l:$B/d:sub" "f:$B/d/file"
refused through "a path through a symbolic link or a file" "$B/d/file" "a member written through a link"
# "s" stands for its own directory: s/s/../../../outside reads as a folder beside the unpacked
# tree on disk, while the same text read as names says inside: caught by resolving the link
mk chain "m:$B/railyard-bundle" "l:$B/s:." "l:$B/x:s/s/../../../outside"
refused chain "a link out of the bundle" "$B/x" "a chain of links that reads outside"
# a dangling link whose missing part climbs: what it names could appear later
mk dangling "m:$B/railyard-bundle" "l:$B/y:nowhere/../../../../../tmp/railyard-pwned"
refused dangling "a link out of the bundle" "$B/y" "a dangling link that climbs"
mk dev "m:$B/railyard-bundle" "c:$B/null"
refused dev "a device node" "$B/null" "a character device"
mk fifo "m:$B/railyard-bundle" "p:$B/fifo"
refused fifo "a FIFO" "$B/fifo" "a FIFO"
mk hard "m:$B/railyard-bundle" "h:$B/shadow:/etc/shadow"
refused hard "a hard link" "$B/shadow" "a hard link to /etc/shadow"
mk twice "m:$B/railyard-bundle" "f:$B/hostname" "l:$B/hostname:railyard-bundle"
refused twice "a name given twice" "$B/hostname" "a name given twice (a file, then a link over it)"
mk big "m:$B/railyard-bundle" "f:$B/hwloc.xml:$((64 * 1024 * 1024 + 1))"
refused big "larger than a member may be (64 MiB)" "$B/hwloc.xml" "a member of 64 MiB + 1 byte"
# a member name with an escape sequence: named, inert
ESC=$(printf '\033')
mk esc "m:$B/railyard-bundle" "c:$B/${ESC}]0;owned${ESC}\\"
TMPDIR=$TMP/unpack "$RAILYARD" inventory --bundle "$TMP/esc.tar.gz" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && ! grep -q "$ESC" "$TMP/err" && grep -qF "member '$B/\\x1b]0;owned\\x1b\\': a device node" "$TMP/err"
ok $? "a member named with an escape sequence: named with the escape shown as \\x1b (exit $rc)"

# what a capture holds: links inside, to what exists and to what was not captured (a driver)
D=$B/sys/bus/pci/devices/0000:17:00.0
mk good "m:$B/railyard-bundle" "d:$D" "f:$D/vendor" "l:$B/sys/class/net/eth0/device:../../../bus/pci/devices/0000:17:00.0" \
    "l:$D/driver:../../../../bus/pci/drivers/mlx5_core"
TMPDIR=$TMP/unpack "$RAILYARD" inventory --bundle "$TMP/good.tar.gz" >"$TMP/out" 2>"$TMP/err"
is "$? $(cat "$TMP/err")" "0 " "links inside the bundle, one dangling (a driver not captured): read (exit 0)"
is "$(ls -A "$TMP/unpack" | wc -l)" 0 "...and the unpacked tree removed"
done_testing
