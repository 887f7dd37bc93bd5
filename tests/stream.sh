#!/bin/sh
# A filter run as a coprocess must answer each line while its input stays open.
# Usage (from a CLI case): sh tests/stream.sh FIRST SECOND WANT_RE CMD [ARG...]
# FIRST goes to CMD (printf %b: \t is a tab) through a FIFO held open; one line matching WANT_RE (grep -Ex)
# must come back within 5 s, before SECOND is sent. Then the input is closed, and
# CMD must write one more line and exit 0. Uses $TMP (the case's fresh folder).
set -u
first=$1 second=$2 want=$3
shift 3
mkfifo "$TMP/in" "$TMP/out"
"$@" <"$TMP/in" >"$TMP/out" &
pid=$!
exec 3>"$TMP/in" 4<"$TMP/out"
printf '%b\n' "$first" >&3
answer=$(timeout 5 head -n 1 <&4) || echo "stream.sh: no answer to the first line within 5 s: $*" >&2
printf '%b\n' "$second" >&3
exec 3>&-
more=$(wc -l <&4)
wait $pid
rc=$?
fail=0
printf '%s\n' "$answer" | grep -Eqx -- "$want" || { echo "stream.sh: first answer '$answer' does not match '$want'" >&2; fail=1; }
[ "$more" -eq 1 ] || { echo "stream.sh: after the first answer, expected one more line, got $more" >&2; fail=1; }
[ $rc -eq 0 ] || { echo "stream.sh: $1 exited $rc" >&2; fail=1; }
exit $fail
