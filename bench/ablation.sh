#!/usr/bin/env bash
# Paper 004's ablation (Luong-style LSTM, Multi30k Fr->En) trained here with one
# budget, one row per --preset: params, training target tokens/s, best validation
# perplexity, test2016 BLEU (detokenized, sacreBLEU's 13a) greedy and beam 5.
# Rows take long: they are cached (bench/rows.bash), so the table can be
# completed across sessions. The table goes into the "## Ablation" section of
# $ABL_README.
#
#   bench/ablation.sh                       every row not cached yet for this budget
#   EPOCHS=5 DIM_RNN=512 bench/ablation.sh luong-base luong-global   some rows, smaller
#   ABL_FLAGS='--after-batches 20' ABL_README=/tmp/t.md bench/ablation.sh   a smoke test
#   TABLE_ONLY=1 bench/ablation.sh          the table from the cached rows, no training
#
# Variables: EPOCHS (10), DIM_EMB / DIM_RNN (the presets': 300 / 1024), ABL_FLAGS
# (more nmt-train flags, part of the budget), THREADS (--cpu-threads, not part of it:
# the cores), ABL_DIR (bench/out/ablation), ABL_CSV, ABL_README, NMT_BIN.

# bench/run sources every bench/*.sh; this one runs only when run itself.
[[ ${BASH_SOURCE[0]} != "$0" ]] && return 0
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/rows.bash
EPOCHS=${EPOCHS:-10}
ROWS_DIR=${ABL_DIR:-$PWD/bench/out/ablation}
ROWS_CSV=${ABL_CSV:-$PWD/bench/ablation.csv} # committed: the cache outlives a session
ABL_README=${ABL_README:-$PWD/bench/README.md}
ABL_FLAGS=${ABL_FLAGS:-}
ROWS_FLAGS="${DIM_EMB:+--dim-emb $DIM_EMB }${DIM_RNN:+--dim-rnn $DIM_RNN }${THREADS:+--cpu-threads $THREADS }$ABL_FLAGS"
ROWS_BUDGET="$EPOCHS epochs; emb ${DIM_EMB:-300}; rnn ${DIM_RNN:-1024}${ABL_FLAGS:+; $ABL_FLAGS}"

# row preset | the paper's test BLEU (004, Table 2)
ROWS="no attention|luong-base|32.09
no attention + reverse|luong-reverse|32.10
+ dropout 0.05|luong-dropout|34.61
global attention|luong-global|40.35
global + input feeding|luong-global-feed|40.03
local-p + input feeding|luong-local-p-feed|41.94"

rows_data
while [ -z "${TABLE_ONLY:-}" ] && IFS='|' read -r label preset paper; do
  [ $# -gt 0 ] && [[ " $* " != *" $preset "* ]] && continue
  rows_run "$preset" "$preset"
done <<<"$ROWS"

table() {
  echo "## Ablation"
  echo
  echo "Paper 004's rows on Multi30k Fr→En, \`bench/ablation.sh\` with one budget ($ROWS_BUDGET;"
  echo "the presets' other settings), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) when written."
  echo "BLEU on test2016, detokenized, sacreBLEU 13a; the paper's column is its Table 2."
  echo
  echo "| row | preset | params | train tok/s | best val ppl | BLEU greedy | BLEU beam 5 | paper 004 BLEU |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  while IFS='|' read -r label preset paper; do
    if rows_cached "$preset"; then
      echo "| $label | $preset | $(rows_field "$preset" params) | $(rows_field "$preset" train_tok_s) |" \
        "$(rows_field "$preset" best_val_ppl) | $(rows_field "$preset" bleu_greedy) | $(rows_field "$preset" bleu_beam5) | $paper |"
    else
      echo "| $label | $preset | not run | | | | | $paper |"
    fi
  done <<<"$ROWS"
  echo
  echo "| paper 004's claim | figures (BLEU beam 5) | on this data |"
  echo "| --- | --- | --- |"
  rows_claim "global attention beats no attention" "a > 0" luong-global:bleu_beam5 luong-dropout:bleu_beam5
  rows_claim "local-p + input feeding ≥ global" "a >= 0" luong-local-p-feed:bleu_beam5 luong-global:bleu_beam5
  rows_claim "input feeding helps global attention" "a > 0" luong-global-feed:bleu_beam5 luong-global:bleu_beam5
  rows_claim "dropout helps" "a > 0" luong-dropout:bleu_beam5 luong-reverse:bleu_beam5
  rows_claim "reversing the source helps" "a > 0" luong-reverse:bleu_beam5 luong-base:bleu_beam5
  # shellcheck disable=SC2046 # the presets: words
  rows_other_budgets $(cut -d'|' -f2 <<<"$ROWS")
}

section=$(mktemp)
table >"$section"
cat "$section" >&2
rows_put_section "$ABL_README" "## Ablation" "$section"
rm -f "$section"
