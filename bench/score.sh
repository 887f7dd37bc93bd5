# nmt-score's throughput: test2016's 1,000 BPE'd pairs (bench/multi30k.bash) scored with
# bench/decode.sh's model (the peer configuration trained one epoch, made once by
# decode_models), mini-batches of 64, NMT_THREADS BLAS threads (2). Pairs/s and target
# tokens/s (</s> counted, as the scores do), model loading taken off (a run on no pairs,
# subtracted); the median of BENCH_REPS runs (3). Not part of `make test`. Sourced by
# bench/run, or alone: bash bench/score.sh.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

score_bench() {
  local out=$BENCH_DIR/score th=${NMT_THREADS:-2} reps=${BENCH_REPS:-3} m=$BENCH_DIR/decode/m.bin r t0 t1 t2
  multi30k_bpe || return 1
  mkdir -p "$out" "$BENCH_DIR/decode"
  NMT_PEER=0 decode_models "$BENCH_DIR/decode" "$th" || return 1
  local load0 pairs toks
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  pairs=$(wc -l <"$M30K/test.bpe.en")
  toks=$(awk '{ n += NF + 1 } END { print n }' "$M30K/test.bpe.en")
  : >"$out/secs"
  for r in $(seq "$reps"); do
    t0=$(date +%s%N)
    nmt-score -m "$m" /dev/null /dev/null --cpu-threads "$th" >/dev/null || return 1
    t1=$(date +%s%N)
    nmt-score -m "$m" "$M30K/test.bpe.fr" "$M30K/test.bpe.en" --cpu-threads "$th" >"$out/scores" || return 1
    t2=$(date +%s%N)
    echo "$(((t2 - t1) - (t1 - t0)))" >>"$out/secs"
  done
  [ "$(wc -l <"$out/scores")" = "$pairs" ] || { echo "nmt-score wrote $(wc -l <"$out/scores") lines for $pairs pairs" >&2; return 1; }
  echo
  echo "nmt-score, test2016 ($pairs pairs, $toks target tokens with </s>), mini-batch 64, $th threads, $(nproc) cores;" \
    "median of $reps runs; load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  echo "| pairs/s | target tokens/s | seconds |"
  echo "| --- | --- | --- |"
  sort -n "$out/secs" | awk -v p="$pairs" -v k="$toks" '{ s[NR] = $1 / 1e9 } END { m = s[int((NR + 1) / 2)]
    printf "| %.1f | %.0f | %.2f |\n", p / m, k / m, m }'
}
score_bench
