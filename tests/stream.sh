#!/bin/sh
# A filter run as a coprocess must answer each line while its input stays open.
# Usage (from a CLI case): sh tests/stream.sh FIRST SECOND WANT_RE CMD [ARG...]
# FIRST goes to CMD (printf %b: \t is a tab) through a FIFO held open; one line
# matching WANT_RE (grep -Ex) must come back within 5 s, before SECOND is sent.
# Then the input is closed, and CMD must write one more line and exit 0.
# Works in a new folder under $TMP (the case's), so a case may call it often.
set -u
first=$1 second=$2 want=$3
shift 3
dir=$(mktemp -d "$TMP/stream.XXXXXX") || exit 3
mkfifo "$dir/in" "$dir/out"
"$@" <"$dir/in" >"$dir/out" &
pid=$!
exec 3>"$dir/in" 4<"$dir/out"
printf '%b\n' "$first" >&3
timeout 5 head -n 1 <&4 >"$dir/answer"
printf '%b\n' "$second" >&3
exec 3>&-
more=$(wc -l <&4)
wait $pid
rc=$?
fail=0
if [ "$(wc -l <"$dir/answer")" -ne 1 ]; then
  echo "stream.sh: no answer to the first line within 5 s: $*" >&2; fail=1
elif ! grep -Eqx -- "$want" "$dir/answer"; then
  echo "stream.sh: first answer '$(cat "$dir/answer")' does not match '$want': $*" >&2; fail=1
fi
[ "$more" -eq 1 ] || { echo "stream.sh: after the first answer, expected one more line, got $more: $*" >&2; fail=1; }
[ $rc -eq 0 ] || { echo "stream.sh: exit $rc: $*" >&2; fail=1; }
exit $fail
