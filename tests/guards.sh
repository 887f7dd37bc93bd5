#!/bin/bash
# Every header's include guard is its path (docs/architecture.md): lib/nn/cells/gru.h is
# guarded by NMT_NN_CELLS_GRU_H, tools/serve/conns.h by NMT_TOOLS_SERVE_CONNS_H, so a moved
# or copied header cannot keep a guard that hides another. Run by `make test`
# (tests/cli/guards.cases). Usage: tests/guards.sh [ROOT]; one line per header whose first
# #ifndef/#define pair is missing or names another path, exit 1; exit 0 when all match.
set -u
cd "${1:-$(dirname "$0")/..}" || { echo "guards.sh: cannot enter ${1:-}" >&2; exit 3; }
bad=0
while IFS= read -r f; do
  path=${f#./}; rel=${path#lib/}
  want=NMT_$(printf '%s' "$rel" | tr -c 'A-Za-z0-9' '_' | tr a-z A-Z)
  got=$(grep -m1 '^#ifndef ' "$f" | cut -d' ' -f2)
  if [ "$got" != "$want" ] || ! grep -qx "#define $want" "$f"; then
    echo "$path: include guard ${got:-missing}, expected $want" >&2; bad=1
  fi
done < <(find emu lib tools tests bench examples \( -name '*.h' -o -name '*.cuh' \) 2>/dev/null | sort)
exit $bad
