#!/bin/bash
# The dependency check of the whole tree's layers (docs/architecture.md), run by `make test`
# (tests/cli/layers.cases). Usage: tests/layers.sh [ROOT]   (default: the repository root)
# Every source file (.c .h .cc .cpp .cu .cuh .def) of emu/, lib/, tools/, tests/, bench/ and
# examples/ lives in a layer folder; a quoted include names a file of its own layer, of one
# beside it never, or of a lower one; a file of lib/ names a lib/ path ("nn/tape.h") or the
# emulator's (emu/: the CUDA toolchain's headers); no path climbs with "..", and no header
# includes itself through others (a cycle). One line per violation on stderr, exit 1; exit 0
# when the tree keeps the rules.
set -u
root=${1:-$(dirname "$0")/..}
# Lowest first, one rank a line; folders on one line are beside each other: neither may
# include the other's files. A file's layer is the longest folder that holds it; tools/*
# is each tool's own folder. The CUDA backend (lib/nn/cuda) uses nn alone and sits above
# the rest of lib/ so that nothing in lib/ can include it: the tools that run on a GPU find
# it at run time (nn/device.h). lib/api, the public API (include/nmt.h), is the top of lib/:
# nothing in lib/ uses it.
ranks=(
  emu
  lib/base
  lib/io
  lib/text
  lib/metrics
  lib/nn
  lib/nn/cells
  lib/models
  lib/decode
  lib/comm
  lib/train
  lib/api
  lib/nn/cuda
  tools/common
  'tools/*'
  'tests bench examples'
)
# Where a quoted include is looked for after the including file's own folder, as the
# Makefile's -I options say (-Ilib, -Itools/common, -Itools for the fuzz harnesses, -Itests,
# -Iemu).
roots=(lib tools/common tools tests emu)

cd "$root" || { echo "layers.sh: cannot enter $root" >&2; exit 3; }
declare -A rank_of_layer
layers=()
for i in "${!ranks[@]}"; do
  for l in ${ranks[$i]}; do # tools/* expands to each tool's folder
    l=${l%/}
    [[ -d $l && -z ${rank_of_layer[$l]:-} ]] || continue
    rank_of_layer[$l]=$i
    layers+=("$l")
  done
done
# layer FILE: sets L to the file's layer ("" when none)
layer() {
  local l
  L=
  for l in "${layers[@]}"; do
    if [[ $1 == "$l"/* && ${#l} -gt ${#L} ]]; then L=$l; fi
  done
}
# below LAYER: the layers it may use, itself last
below() {
  local l out=
  for l in "${layers[@]}"; do
    if ((rank_of_layer[$l] < rank_of_layer[$1])); then out+="$l "; fi
  done
  echo "$out$1"
}
folders=()
for d in emu lib tools tests bench examples; do [[ -d $d ]] && folders+=("$d"); done
mapfile -t files < <(find "${folders[@]}" -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' \
  -o -name '*.cu' -o -name '*.cuh' -o -name '*.def' \) | sort)
bad=0 edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
declare -A file_layer
for f in "${files[@]}"; do
  layer "$f"
  file_layer[$f]=$L
  if [[ -z $L ]]; then echo "$f: not in a layer folder (${layers[*]})" >&2; bad=1; fi
  echo "$f $f" >>"$edges"
done
# every quoted include: FILE:LINE:PATH
while IFS=: read -r f line inc; do
  lf=${file_layer[$f]}
  [[ -n $lf ]] || continue
  if [[ $inc == /* || /$inc/ == */../* ]]; then
    echo "$f:$line: includes \"$inc\", a path that climbs (name it from its own folder or from ${roots[*]})" >&2
    bad=1
    continue
  fi
  t=
  if [[ $lf == lib/* ]]; then
    # a lib/ file names a lib/ path, or the emulator's headers (the CUDA toolchain's)
    for c in "lib/$inc" "emu/$inc"; do [[ -f $c ]] && { t=$c; break; }; done
    if [[ -z $t ]]; then
      echo "$f:$line: includes \"$inc\", which is not a lib/ path (name it from lib/, e.g. \"nn/tape.h\")" >&2
      bad=1
      continue
    fi
  else
    for c in "$(dirname "$f")/$inc" "${roots[@]/%//$inc}"; do [[ -f $c ]] && { t=$c; break; }; done
    if [[ -z $t ]]; then
      echo "$f:$line: includes \"$inc\", which is no file of its folder or of ${roots[*]}" >&2
      bad=1
      continue
    fi
  fi
  t=${t#./}
  lt=${file_layer[$t]:-}
  if [[ -z $lt ]]; then layer "$t"; lt=$L; fi
  if [[ -n $lt && $lt != "$lf" ]]; then
    if ((rank_of_layer[$lt] > rank_of_layer[$lf])); then
      echo "$f:$line: includes $t from a higher layer ($lf may use only $(below "$lf"))" >&2
      bad=1
    elif ((rank_of_layer[$lt] == rank_of_layer[$lf])); then
      echo "$f:$line: includes $t from $lt, a layer beside its own ($lf may use only $(below "$lf"))" >&2
      bad=1
    fi
  fi
  echo "$t $f" >>"$edges"
done < <(((${#files[@]})) && grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "${files[@]}" |
  sed -E 's/^([^:]+):([0-9]+):.*"([^"]+)".*/\1:\2:\3/')
# tsort reports a cycle as "input contains a loop" and the files on it
if ! loop=$(awk '$1 != $2' "$edges" | sort -u | tsort 2>&1 >/dev/null); then
  echo "the includes form a cycle: $(echo "$loop" | sed -n 's/^tsort: //p' | grep -v 'input contains' | tr '\n' ' ')" >&2
  bad=1
fi
exit $bad
