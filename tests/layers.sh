#!/bin/bash
# The dependency check of lib/'s layers (docs/architecture.md), run by `make test`
# (tests/cli/layers.cases). Usage: tests/layers.sh [LIBDIR]   (default: lib)
# Every file lives in a layer folder; a quoted include names a lib/ path ("nn/tape.h")
# in the same or a lower layer, or a header of the CUDA emulator (emu/, the toolchain below lib/); no header includes itself through others (a cycle). One line per violation on
# stderr, exit 1; exit 0 when the tree keeps the rules.
set -u
lib=${1:-lib}
# Lowest first; a file's layer is the longest folder that holds it.
# The CUDA backend (nn/cuda) uses nn alone and sits above the rest so that nothing can
# include it: the tools find it at run time (nn/device.h).
layers=(base io text metrics nn nn/cells models decode comm train nn/cuda)

rank_of() { # path relative to lib → its layer's rank, or -1
  local best=-1 len=0 i
  for i in "${!layers[@]}"; do
    local l=${layers[$i]}
    if [[ $1 == "$l"/* && ${#l} -gt $len ]]; then best=$i len=${#l}; fi
  done
  echo "$best"
}

cd "$lib" || { echo "layers.sh: cannot enter $lib" >&2; exit 3; }
bad=0 edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
while IFS= read -r f; do
  f=${f#./}
  r=$(rank_of "$f")
  if ((r < 0)); then echo "lib/$f: not in a layer folder (${layers[*]})" >&2; bad=1; continue; fi
  echo "$f $f" >>"$edges"
  while IFS=: read -r line inc; do
    if [[ ! -f $inc ]]; then
      [[ -f ../emu/$inc ]] && continue
      echo "lib/$f:$line: includes \"$inc\", which is not a lib/ path (name it from lib/, e.g. \"nn/tape.h\")" >&2
      bad=1
      continue
    fi
    ri=$(rank_of "$inc")
    if ((ri > r)); then
      echo "lib/$f:$line: includes $inc from a higher layer (${layers[$r]} may use only ${layers[*]:0:$((r + 1))})" >&2
      bad=1
    fi
    echo "$inc $f" >>"$edges"
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):.*"([^"]+)".*/\1:\2/')
done < <(find . -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort)
# tsort reports a cycle as "input contains a loop" and the files on it
if ! loop=$(awk '$1 != $2' "$edges" | sort -u | tsort 2>&1 >/dev/null); then
  echo "lib/: the includes form a cycle: $(echo "$loop" | sed -n 's/^tsort: //p' | grep -v 'input contains' | tr '\n' ' ')" >&2
  bad=1
fi
exit $bad
