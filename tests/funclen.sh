#!/bin/bash
# The length of every function body in the tree (issue 29: none of 80 lines or more).
# Usage: tests/funclen.sh [-n LIMIT] [-a] [ROOT [DIR...]]   (default: 80, the repository
# root, lib and tools). A function's length runs from the line of its name to the line of
# its closing brace, as ctags counts it. One line per function of LIMIT lines or more,
# "LINES FILE:LINE NAME", longest first, on stderr, exit 1; exit 0 when there is none.
# -a prints every function's length on stdout instead (and exits 0).
# An awk over the brace structure, not a parser: comments, strings, character literals
# and preprocessor lines are blanked first; a brace at file level opens a function when
# the text since the last declaration has a parenthesis and no "=" (an initializer);
# the braces of extern "C", a namespace, struct, union, enum or class are looked through
# (a C++ member function is a function).
set -u
limit=80 all=0
while getopts n:a o; do
  case $o in n) limit=$OPTARG ;; a) all=1 ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
root=${1:-$(dirname "$0")/..}
[ $# -gt 0 ] && shift
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(lib tools)
cd "$root" || { echo "funclen.sh: cannot enter $root" >&2; exit 3; }

files=$(find "${dirs[@]}" -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' \
  -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' \) | sort)
[ -n "$files" ] || { echo "funclen.sh: no source under ${dirs[*]}" >&2; exit 3; }

# shellcheck disable=SC2086
lengths=$(awk '
FNR == 1 { depth = 0; incomment = 0; cont = 0; stmt = ""; nameline = 0; pdepth = 0; fn = "" }
{
  line = $0
  # a preprocessor line and its continuations hold no function
  if (cont || line ~ /^[ \t]*#/) { cont = (line ~ /\\$/); next }
  out = ""; n = length(line); i = 1
  while (i <= n) {
    c = substr(line, i, 1); c2 = substr(line, i, 2)
    if (incomment) {
      if (c2 == "*/") { incomment = 0; i += 2 } else i++
      continue
    }
    if (c2 == "/*") { incomment = 1; i += 2; out = out " "; continue }
    if (c2 == "//") break
    if (c == "\"" || c == "\x27") {          # a string or a character literal
      q = c; i++
      while (i <= n && substr(line, i, 1) != q) i += (substr(line, i, 1) == "\\") ? 2 : 1
      i++; out = out q q; continue
    }
    out = out c; i++
  }
  n = length(out)
  for (i = 1; i <= n; i++) {
    c = substr(out, i, 1)
    if (depth == 0) {
      if (c == ";" ) { stmt = ""; nameline = 0; pdepth = 0; continue }
      # the name is the identifier before the last parenthesis at the outer level (the
      # parameters; attributes and macros come before), or inside "(*" (a function
      # that returns a pointer to an array or a function)
      if (c == "(") {
        if (pdepth == 0 || (pdepth == 1 && ptr)) {
          if (pdepth == 0) ptr = (substr(out, i + 1, 1) == "*")
          nameline = FNR
          name = stmt; sub(/[ \t*]+$/, "", name); sub(/.*[^A-Za-z0-9_:~]/, "", name)
        }
        pdepth++
      }
      if (c == ")" && pdepth > 0) pdepth--
      if (c == "{") {
        if (stmt ~ /(extern[ \t]*""|(namespace|struct|union|enum|class)[ \t]*[A-Za-z0-9_]*)[ \t]*(:[^()]*)?$/) {
          stmt = ""; nameline = 0; pdepth = 0; continue
        }
        depth = 1
        fn = (nameline && stmt !~ /=/) ? name : ""
        start = nameline; stmt = ""; nameline = 0; pdepth = 0
        continue
      }
      if (c == "}") { stmt = ""; nameline = 0; pdepth = 0; continue }  # the end of one of those
      stmt = stmt c
      continue
    }
    if (c == "{") depth++
    else if (c == "}" && --depth == 0) {
      if (fn != "") printf "%d %s:%d %s\n", FNR - start + 1, FILENAME, start, fn
      fn = ""
    }
  }
  if (depth == 0) stmt = stmt " "
}' $files | sort -k1,1nr -k2,2)

if [ "$all" = 1 ]; then
  printf '%s\n' "$lengths"
  exit 0
fi
long=$(printf '%s\n' "$lengths" | awk -v l="$limit" '$1 >= l')
[ -z "$long" ] && exit 0
printf '%s\n' "$long" | sed "s/^/funclen.sh: /; s/\$/ (the limit: under $limit lines)/" >&2
exit 1
