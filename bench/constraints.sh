#!/bin/bash
# Terminology constraints (nmt-decode --constraints) on test2016: a terminology set made by
# bench/terminology.py (per sentence, the reference words that the unconstrained beam-5
# output lacks, the rarest in the training data first; Dinu et al. 2019), then beam 5 with 1
# and 2 terms per sentence against none: the terms present (as words of the output), BLEU
# (sacreBLEU's defaults, against the raw reference) and the whole process's wall and CPU
# time, with the load average before each run.
#   CS_MODEL  a model trained 10 epochs (build/multi30k/model.bin; /work/lexbench's works)
#   CS_SRC    its BPE'd test2016 source (build/multi30k/test.bpe.fr)
#   CS_TRAIN  the training target text (../shared/data/multi30k/train.en)
#   CS_REF    the reference (../shared/data/multi30k/test_2016_flickr.en)
#   CS_OUT    a folder for the outputs (build/constraints); NMT_THREADS (2)
# Run: bash bench/constraints.sh (bin/ built).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
SHARED=${NMT_SHARED:-../shared}
M=${CS_MODEL:-build/multi30k/model.bin} SRC=${CS_SRC:-build/multi30k/test.bpe.fr}
TRAIN=${CS_TRAIN:-$SHARED/data/multi30k/train.en} REF=${CS_REF:-$SHARED/data/multi30k/test_2016_flickr.en}
OUT=${CS_OUT:-build/constraints} T=${NMT_THREADS:-2}
[ -s "$M" ] || { echo "bench/constraints.sh: no $M: skipped"; exit 0; }
mkdir -p "$OUT"
export PATH=$PWD/bin:$PATH

# run NAME [nmt-decode options]: decode SRC into OUT/NAME; prints "wall_s cpu_s load"
run() {
  local name=$1 load
  shift
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %S' -o "$OUT/$name.time" nmt-decode -m "$M" -i "$SRC" -o "$OUT/$name" -b 5 \
    --cpu-threads "$T" "$@" 2> "$OUT/$name.err" || { echo "nmt-decode failed: $(tail -n1 "$OUT/$name.err")" >&2; exit 1; }
  awk -v l="$load" '{printf "%.1f %.1f %s", $1, $2 + $3, l}' "$OUT/$name.time"
}
bleu() { nmt-bleu "$REF" -i "$1" -f json 2>/dev/null | sed -n 's/.*"score": \([0-9.]*\).*/\1/p'; }
# present TERMS OUT: "present/terms"
present() {
  paste -d '\n' "$1" "$2" | python3 -c '
import re, sys
W = re.compile(r"[^\W\d_]{2,}")
lines = sys.stdin.read().split("\n")
n = p = 0
for terms, out in zip(lines[0::2], lines[1::2]):
    have = set(W.findall(out))
    for t in filter(None, terms.split("\t")):
        n += 1; p += t in have
print("%d/%d" % (p, n))'
}

echo "| run | wall s | CPU s | load before | BLEU | terms present |"
echo "| --- | --- | --- | --- | --- | --- |"
r=$(run none) && echo "| no constraints | ${r// / | } | $(bleu "$OUT/none") | |"
for k in 1 2; do
  python3 bench/terminology.py --train "$TRAIN" --ref "$REF" --hyp "$OUT/none" --terms $k --seed 1 > "$OUT/terms$k" 2>/dev/null
  r=$(run cons$k --constraints "$OUT/terms$k") &&
    echo "| $k term(s) a line | ${r// / | } | $(bleu "$OUT/cons$k") | $(present "$OUT/terms$k" "$OUT/cons$k") |"
  echo "| (unconstrained, terms present) | | | | | $(present "$OUT/terms$k" "$OUT/none") |"
done
grep -h warning "$OUT"/cons*.err | head -3
