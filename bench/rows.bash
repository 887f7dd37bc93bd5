# Tables of trained rows (bench/ablation.sh, bench/paper-tables), sourced. A row
# is an nmt-train configuration (a --preset plus flags) trained on Multi30k
# Fr->En (examples/multi30k's data: normalized, tokenized, cleaned, joint BPE
# 8000) with one budget, then decoded on test2016 greedy and with beam 5.
# Finished rows are cached in $ROWS_CSV with their budget, so a table can be
# completed across sessions; an unfinished row continues from its checkpoint
# (nmt-train --resume).
#
# The caller sets ROWS_DIR (work folder; ROWS_DATA, the data's, defaults to
# ROWS_DIR/data), ROWS_CSV, EPOCHS (the most epochs), ROWS_FLAGS (flags of every
# row: dims, threads), ROWS_BUDGET (the text a cached row must match) and
# optionally ROWS_VALID_FREQ (--valid-freq; default: an epoch's worth of 32-sentence batches),
# then calls rows_data once, rows_run ID PRESET [FLAGS...] per row, rows_field to
# read a cached figure and rows_put_section to write its table into a README.
. bench/lib.sh # median
BIN=${NMT_BIN:-$PWD/bin}
export PATH="$BIN:$PATH"
SHARED=${NMT_SHARED:-$PWD/../shared}

rows_data() {
  ROWS_DATA=${ROWS_DATA:-$ROWS_DIR/data}
  make -s -C examples/multi30k -j2 BIN="$BIN" WORK="$ROWS_DATA" NMT_SHARED="$SHARED" data
  ROWS_BATCHES=$(($(wc -l <"$ROWS_DATA/train.bpe.fr") / 32))
  [ -s "$ROWS_CSV" ] ||
    printf 'date\tpreset\tbudget\tparams\ttrain_tok_s\tbest_val_ppl\tbleu_greedy\tbleu_beam5\tepochs\tbest_epoch\n' >"$ROWS_CSV"
}

rows_cached() { awk -F '\t' -v p="$1" -v b="$ROWS_BUDGET" '$2 == p && $3 == b {f = 1} END {exit !f}' "$ROWS_CSV"; }

# rows_field ID COLUMN: the latest cached value for this budget (empty: not run).
rows_field() {
  awk -F '\t' -v p="$1" -v b="$ROWS_BUDGET" -v c="$2" '
    NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
    $2 == p && $3 == b {v = $col[c]} END {print v}' "$ROWS_CSV"
}

rows_bleu() { # hypothesis subwords -> detokenized -> BLEU score
  sed -E 's/(@@ )|(@@ ?$)//g' "$1" | nmt-tokenize -d -l en |
    nmt-bleu -b -q "$SHARED/data/multi30k/test_2016_flickr.en"
}

# rows_run ID PRESET [FLAGS...]: train, decode and cache row ID unless cached.
rows_run() {
  local id=$1 preset=$2 d=$ROWS_DIR/$1
  shift 2
  if rows_cached "$id"; then echo "rows: $id cached" >&2; return 0; fi
  echo "rows: training $id ($ROWS_BUDGET)" >&2
  mkdir -p "$d"
  # shellcheck disable=SC2086 # ROWS_FLAGS: words
  nmt-train --preset "$preset" "$@" $ROWS_FLAGS --train-sets "$ROWS_DATA"/train.bpe.{fr,en} \
    --valid-sets "$ROWS_DATA"/val.bpe.{fr,en} -m "$d/model.bin" --after-epochs "$EPOCHS" \
    --valid-freq "${ROWS_VALID_FREQ:-$ROWS_BATCHES}" --max-length 80 --metrics "$d/metrics.csv" --resume \
    2>>"$d/train.log" || { echo "rows: $id failed: $(tail -n1 "$d/train.log")" >&2; return 1; }
  nmt-decode -m "$d/model.bin" -b 1 --no-postprocess -i "$ROWS_DATA/test.bpe.fr" -o "$d/greedy.bpe"
  nmt-decode -m "$d/model.bin" -b 5 --no-postprocess -i "$ROWS_DATA/test.bpe.fr" -o "$d/beam.bpe"
  local params toks ppl ep
  params=$(grep -o '[0-9]* parameters' "$d/train.log" | tail -1 | cut -d' ' -f1)
  toks=$(awk -F, 'NR > 1 && $8 != "" {printf "%.0f\n", $8}' "$d/metrics.csv" | median) # validation rows have none
  ppl=$(grep -o 'valid step [0-9]*: ppl [0-9.]*' "$d/train.log" | awk '{print $5}' | sort -g | head -1)
  # the epochs trained, and the epoch of the trainer's last "(best …, saved)" validation:
  # metrics.csv's 4 decimals can tie where the trainer saw an improvement
  local best
  best=$(grep -o 'valid step [0-9]*: .*(best' "$d/train.log" | tail -1 | awk '{print $3}' | tr -d :)
  ep=$(awk -F, -v s="$best" 'NR > 1 {if ($2 > n) n = $2; if ($1 == s && $11 != "") be = $2}
    END {printf "%d\t%s", n, be}' "$d/metrics.csv")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$id" "$ROWS_BUDGET" "$params" "$toks" "$ppl" \
    "$(rows_bleu "$d/greedy.bpe")" "$(rows_bleu "$d/beam.bpe")" "$ep" >>"$ROWS_CSV"
}

# rows_other_budgets ID...: the rows among ID... cached at other budgets than
# ROWS_BUDGET, a line each with their beam-5 BLEU at every budget (this one
# first): how a comparison moves with training. Nothing when there are none.
rows_other_budgets() {
  awk -F '\t' -v cur="$ROWS_BUDGET" -v ids="$*" -v csv="$(basename "$ROWS_CSV")" '
    NR > 1 {
      v[$3 SUBSEP $2] = $8
      if ($3 != cur) {other[$2] = 1; if (!($3 in seen)) {seen[$3] = 1; bud[++nb] = $3}}
    }
    END {
      n = split(ids, id, " ")
      for (i = 1; i <= n; i++) if (id[i] in other) any = 1
      if (!any) exit
      printf "\nRows also cached at other budgets in `bench/%s` (BLEU beam 5):\n\n| row | %s |", csv, cur
      for (j = 1; j <= nb; j++) printf " %s |", bud[j]
      printf "\n| --- | --- |"; for (j = 1; j <= nb; j++) printf " --- |"; printf "\n"
      for (i = 1; i <= n; i++) {
        if (!(id[i] in other)) continue
        k = cur SUBSEP id[i]; printf "| %s | %s |", id[i], (k in v ? v[k] : "-")
        for (j = 1; j <= nb; j++) {k = bud[j] SUBSEP id[i]; printf " %s |", (k in v ? v[k] : "-")}
        printf "\n"
      }
    }' "$ROWS_CSV"
}

# rows_put_section README HEADING SECTION_FILE: replace the section that starts
# with the line HEADING (up to the next "## " heading), or append it.
rows_put_section() {
  local readme=$1 heading=$2 section=$3 new
  new=$(mktemp)
  if [ -f "$readme" ] && grep -qxF "$heading" "$readme"; then
    awk -v f="$section" -v h="$heading" '
      $0 == h {while ((getline l < f) > 0) print l; skip = 1; next}
      skip && /^## / {skip = 0; print ""}
      !skip' "$readme" >"$new"
  else
    { [ -f "$readme" ] && cat "$readme" && echo; cat "$section"; } >"$new"
  fi
  cat "$new" >"$readme"
  rm -f "$new"
}

# rows_claim TEXT CONDITION ID:COLUMN ID:COLUMN: a table row saying whether the first
# figure beats the second ("a > 0": by more than 0, "a >= -1": by at least -1), or that
# a row is not run yet.
rows_claim() {
  local text=$1 cond=$2 vals=() id
  shift 2
  for id in "$@"; do
    local v
    v=$(rows_field "${id%%:*}" "${id#*:}")
    vals+=("${v:-NA}")
  done
  local verdict
  verdict=$(printf '%s\n' "${vals[@]}" | awk -v c="$cond" '
    {v[NR] = $1; if ($1 == "NA") miss = 1}
    END {
      if (miss) {print "not run yet"; exit}
      split(c, p, " "); op = p[2]; d = p[3] + 0
      a = v[1]; b = v[2]
      ok = op == ">" ? a > b + d : op == ">=" ? a >= b + d : 0
      print ok ? "holds" : "does not hold"
    }')
  echo "| $text | $(IFS=/; echo "${vals[*]}") | $verdict |"
}
