# The lexical shortlist (nmt-decode --shortlist FILE FIRST BEST) against the frequency one
# (--shortlist N) and against none, on a model trained 10 epochs: examples/multi30k's
# (`make -C examples/multi30k -j2`, its folder SL_WORK, build/multi30k; skipped without it).
# The table is made by the project's own tools from the training pairs: nmt-score
# --alignment (the model's attention) and nmt-lex, cached as SL_WORK/lex.s2t. Each row
# decodes test2016 with beam 5 at batch 1 and at batch 64, float32 and int8: sentences/s
# (the whole nmt-decode process, median of SL_REPS runs, 3) and BLEU against the raw
# reference (sacreBLEU's defaults; a lexical shortlist's words depend on the batch, so each
# batch size has its BLEU). SL_ROWS: the shortlists, ';' between rows.
# Sourced by bench/run, or alone: bash bench/shortlist.sh (NMT_THREADS, 2).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

SL_WORK=${SL_WORK:-build/multi30k}
SL_ROWS=${SL_ROWS:-0;2000;3000;4000;lex 100 50;lex 50 20;lex 0 10}

# sl_args ROW: the row's --shortlist values (lex: the table).
sl_args() { [[ $1 == lex* ]] && echo "$SL_WORK/lex.s2t ${1#lex }" || echo "$1"; }

# sl_run ROW BATCH GEMM: "sents/s BLEU", the median run's speed.
sl_run() {
  local r out=$BENCH_DIR/shortlist/out runs=() t0 t1
  for ((r = 0; r < ${SL_REPS:-3}; r++)); do
    t0=$(date +%s%N)
    # shellcheck disable=SC2046 # the row's values are words
    nmt-decode -m "$SL_WORK/model.bin" -i "$SL_WORK/test.bpe.fr" -o "$out" -b 5 --mini-batch "$2" \
      --gemm-type "$3" --cpu-threads "${NMT_THREADS:-2}" --shortlist $(sl_args "$1") 2>"$out.err" ||
      { echo "nmt-decode failed: $(tail -n1 "$out.err")" >&2; return 1; }
    t1=$(date +%s%N)
    runs+=("$(awk -v a="$t0" -v b="$t1" 'END { printf "%.2f\n", NR / ((b - a) / 1e9) }' "$out")")
  done
  echo "$(printf '%s\n' "${runs[@]}" | median) $(nmt-bleu "$SHARED/data/multi30k/test_2016_flickr.en" -i "$out" \
    -f json 2>/dev/null | sed -n 's/.*"score": \([0-9.]*\).*/\1/p')"
}

shortlist_bench() {
  [ -s "$SL_WORK/model.bin" ] || { echo "bench/shortlist.sh: no $SL_WORK/model.bin (make -C examples/multi30k -j2): skipped"; return 0; }
  mkdir -p "$BENCH_DIR/shortlist"
  if [ ! -s "$SL_WORK/lex.s2t" ]; then
    nmt-score -m "$SL_WORK/model.bin" "$SL_WORK/train.bpe.fr" "$SL_WORK/train.bpe.en" --alignment \
      -o "$BENCH_DIR/shortlist/train.align" && nmt-lex "$SL_WORK/train.bpe.fr" "$SL_WORK/train.bpe.en" \
      "$BENCH_DIR/shortlist/train.align" -o "$SL_WORK/lex.s2t" || return 1
  fi
  echo
  echo "Shortlists, test2016 beam 5, $SL_WORK/model.bin, ${NMT_THREADS:-2} threads, medians of ${SL_REPS:-3};" \
    "$(cores); load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "| --shortlist | float32 b1 sent/s | BLEU | int8 b1 sent/s | BLEU | float32 b64 sent/s | BLEU | int8 b64 sent/s | BLEU |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  local row line b g
  IFS=';' read -ra rows <<<"$SL_ROWS"
  for row in "${rows[@]}"; do
    line="| $([ "$row" = 0 ] && echo none || echo "$row") |"
    for b in 1 64; do for g in float32 int8; do
      line+=" $(sl_run "$row" $b $g | awk '{ printf "%s | %s |", $1, $2 }')" || return 1
    done; done
    echo "$line"
  done
}
shortlist_bench
