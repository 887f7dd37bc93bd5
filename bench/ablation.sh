#!/usr/bin/env bash
# Paper 004's ablation (Luong-style LSTM, Multi30k Fr->En) trained here with one
# budget, one row per --preset: params, training target tokens/s, best validation
# perplexity, test2016 BLEU (detokenized, sacreBLEU's 13a) greedy and beam 5.
# Rows take hours: each finished row is cached in $ABL_CSV with its budget, an
# unfinished one continues from its checkpoint (nmt-train --resume), so the table
# can be completed across sessions. The table goes into the "Ablation" section
# of $ABL_README.
#
#   bench/ablation.sh                       every row not cached yet for this budget
#   EPOCHS=5 DIM_RNN=512 bench/ablation.sh luong-base luong-global   some rows, smaller
#   ABL_FLAGS='--after-batches 20' ABL_README=/tmp/t.md bench/ablation.sh   a smoke test
#
# Variables: EPOCHS (10), DIM_EMB / DIM_RNN (the presets': 300 / 1024), ABL_FLAGS
# (more nmt-train flags), ABL_DIR (bench/out/ablation), ABL_CSV, ABL_README, NMT_BIN.

# bench/run sources every bench/*.sh; this one runs only when run itself.
[[ ${BASH_SOURCE[0]} != "$0" ]] && return 0
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${NMT_BIN:-$PWD/bin}
export PATH="$BIN:$PATH"
SHARED=${NMT_SHARED:-$PWD/../shared}
EPOCHS=${EPOCHS:-10}
ABL_DIR=${ABL_DIR:-$PWD/bench/out/ablation}
ABL_CSV=${ABL_CSV:-$PWD/bench/out/ablation.csv}
ABL_README=${ABL_README:-$PWD/bench/README.md}
ABL_FLAGS=${ABL_FLAGS:-}
dims=()
[ -n "${DIM_EMB:-}" ] && dims+=(--dim-emb "$DIM_EMB")
[ -n "${DIM_RNN:-}" ] && dims+=(--dim-rnn "$DIM_RNN")
# The budget a cached row must match to count.
budget="$EPOCHS epochs; emb ${DIM_EMB:-300}; rnn ${DIM_RNN:-1024}${ABL_FLAGS:+; $ABL_FLAGS}"

# row preset | the paper's test BLEU (004, Table 2)
ROWS="no attention|luong-base|32.09
no attention + reverse|luong-reverse|32.10
+ dropout 0.05|luong-dropout|34.61
global attention|luong-global|40.35
global + input feeding|luong-global-feed|40.03
local-p + input feeding|luong-local-p-feed|41.94"

data=$ABL_DIR/data
# The data of examples/multi30k: normalized, tokenized, cleaned, joint BPE 8000.
make -s -C examples/multi30k -j2 BIN="$BIN" WORK="$data" NMT_SHARED="$SHARED" \
  data
batches_per_epoch=$(($(wc -l <"$data/train.bpe.fr") / 32))

cached() { [ -s "$ABL_CSV" ] && awk -F '\t' -v p="$1" -v b="$budget" '$2 == p && $3 == b {f = 1} END {exit !f}' "$ABL_CSV"; }

bleu() { # hypothesis subwords -> detokenized -> BLEU score
  sed -E 's/(@@ )|(@@ ?$)//g' "$1" | nmt-tokenize -d -l en | nmt-bleu -b -q "$SHARED/data/multi30k/test_2016_flickr.en"
}

train_row() {
  local preset=$1 d=$ABL_DIR/$1
  mkdir -p "$d"
  # shellcheck disable=SC2086 # ABL_FLAGS: words
  nmt-train --preset "$preset" "${dims[@]}" --train-sets "$data"/train.bpe.{fr,en} \
    --valid-sets "$data"/val.bpe.{fr,en} -m "$d/model.bin" --after-epochs "$EPOCHS" \
    --valid-freq "$batches_per_epoch" --max-length 80 --metrics "$d/metrics.csv" --resume $ABL_FLAGS \
    2>>"$d/train.log" # the log gives the parameter count and validation perplexities
  nmt-decode -m "$d/model.bin" -b 1 --no-postprocess -i "$data/test.bpe.fr" -o "$d/greedy.bpe"
  nmt-decode -m "$d/model.bin" -b 5 --no-postprocess -i "$data/test.bpe.fr" -o "$d/beam.bpe"
  local params toks ppl
  params=$(grep -o '[0-9]* parameters' "$d/train.log" | tail -1 | cut -d' ' -f1)
  toks=$(awk -F, 'NR > 1 {print $8}' "$d/metrics.csv" | sort -g | awk '{a[NR] = $1} END {printf "%.0f", a[int((NR + 1) / 2)]}')
  ppl=$(grep -o 'valid step [0-9]*: ppl [0-9.]*' "$d/train.log" | awk '{print $5}' | sort -g | head -1)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$preset" "$budget" "$params" "$toks" "$ppl" \
    "$(bleu "$d/greedy.bpe")" "$(bleu "$d/beam.bpe")" >>"$ABL_CSV"
}

[ -s "$ABL_CSV" ] || printf 'date\tpreset\tbudget\tparams\ttrain_tok_s\tbest_val_ppl\tbleu_greedy\tbleu_beam5\n' >"$ABL_CSV"
while IFS='|' read -r label preset paper; do
  [ $# -gt 0 ] && [[ " $* " != *" $preset "* ]] && continue
  if cached "$preset"; then echo "ablation: $preset cached" >&2; continue; fi
  echo "ablation: training $preset ($budget)" >&2
  train_row "$preset"
done <<<"$ROWS"

# The table: the latest cached figures of each row for this budget.
table() {
  echo "## Ablation"
  echo
  echo "Paper 004's rows on Multi30k Fr→En, \`bench/ablation.sh\` with one budget ($budget;"
  echo "the presets' other settings), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) when written."
  echo "BLEU on test2016, detokenized, sacreBLEU 13a; the paper's column is its Table 2."
  echo
  echo "| row | preset | params | train tok/s | best val ppl | BLEU greedy | BLEU beam 5 | paper 004 BLEU |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  while IFS='|' read -r label preset paper; do
    awk -F '\t' -v l="$label" -v p="$preset" -v b="$budget" -v pp="$paper" '
      $2 == p && $3 == b {r = sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |", l, p, $4, $5, $6, $7, $8, pp)}
      END {print r ? r : sprintf("| %s | %s | not run | | | | | %s |", l, p, pp)}' "$ABL_CSV"
  done <<<"$ROWS"
}

# Replace the section (up to the next "## " heading) or append it.
new=$(mktemp)
table >"$new.section"
cat "$new.section" >&2
if [ -f "$ABL_README" ] && grep -q '^## Ablation' "$ABL_README"; then
  awk -v f="$new.section" '
    /^## Ablation/ {while ((getline l < f) > 0) print l; skip = 1; next}
    skip && /^## / {skip = 0; print ""}
    !skip' "$ABL_README" >"$new"
else
  { [ -f "$ABL_README" ] && cat "$ABL_README" && echo; cat "$new.section"; } >"$new"
fi
cat "$new" >"$ABL_README"
rm -f "$new" "$new.section"
