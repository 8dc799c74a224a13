#!/bin/bash
# bash completion (packaging/bash-completion/railyard): commands, sub-commands and options come
# from the programs' own --help, files and folders where an option takes them, nothing where it
# takes something else; railyard-fabric through the same function.
. "$RAILYARD_SRCDIR/tests/lib.sh"
BC=/usr/share/bash-completion/bash_completion
[ -r "$BC" ] || skip_all "bash-completion is not installed ($BC)"
B=$(dirname "$RAILYARD")
# c WORDS...: what completing the last word offers, one line
c() {
    bash -c '. "$1"; . "$2"; PATH=$3:$PATH; shift 3
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _railyard; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
        c "$BC" "$RAILYARD_SRCDIR/packaging/bash-completion/railyard" "$B" "$@" | sed 's/ $//'
}
is "$(c railyard ch)" "check" "a command"
is "$(c railyard "")" "$(printf '%s\n' check fabric gather history hostlist inventory map probe report top watch --help --version | sort | tr '\n' ' ' | sed 's/ $//')" \
    "every command of railyard --help, and --help --version"
is "$(c railyard check --ma)" "--map" "an option of the command"
is "$(c railyard map "")" "capture show validate" "the sub-commands of map"
is "$(c railyard report s)" "show" "a sub-command of report"
mkdir -p "$TMP/d/sub" && : >"$TMP/d/x.map"
is "$(c railyard check --map "$TMP/d/x")" "$TMP/d/x.map" "--map <file>: files"
is "$(c railyard check -m "$TMP/d/x")" "$TMP/d/x.map" "-m (the short form): files"
is "$(c railyard check --archive "$TMP/d/")" "$TMP/d/sub" "--archive <dir>: folders only"
is "$(c railyard check --timeout "")" "" "--timeout <seconds>: nothing offered"
if [ -x "$B/railyard-fabric" ]; then
    # (a sanitizer build: Open MPI's start-up leaks, and LeakSanitizer's exit loses the help)
    is "$(ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 c railyard-fabric --sched)" "--schedule" \
        "railyard-fabric: its options"
else
    skip "railyard-fabric is not built"
fi
done_testing
