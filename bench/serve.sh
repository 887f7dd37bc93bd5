# nmt-serve under load, beside nmt-decode on the same sentences and model: test2016's 1,000
# BPE'd sentences (bench/multi30k.bash) and bench/decode.sh's model (the peer config trained
# one epoch, made once by decode_models), beam 5, on loopback.
# - Load: C concurrent clients (one curl process, --parallel-max C, keep-alive connections)
#   send the 1,000 sentences once, S per request: requests/s, sentences/s, p50/p99 latency.
#   Beside it nmt-decode --cpu-threads T on the same 1,000 (its model loading taken off).
# - A lone client: the first 100 sentences one request after the other; its median and mean
#   latency beside batch-1 nmt-decode's mean time per sentence (--mini-batch 1 --maxi-batch
#   1: each sentence decoded alone with every thread, model loading taken off).
# Each rep times nmt-decode and the server one after the other (the machine is shared: both
# see the same load); each figure is the median of BENCH_REPS reps (3), the ratios the
# median of the reps' ratios. Not part of `make test`. Sourced by
# bench/run, or alone: bash bench/serve.sh (NMT_THREADS: 2; SERVE_CLIENTS: 16;
# SERVE_SENTS: "1 8", the sentences per request of each load row).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/serve.bash

serve_bench() {
  local out=$BENCH_DIR/serve th=${NMT_THREADS:-2} c=${SERVE_CLIENTS:-16} reps=${BENCH_REPS:-3} s r d row
  multi30k_bpe || return 1
  mkdir -p "$out" "$BENCH_DIR/decode"
  NMT_PEER=0 decode_models "$BENCH_DIR/decode" "$th" || return 1
  local load0
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  serve_up -m "$BENCH_DIR/decode/m.bin" --bpe-input --threads "$th" || return 1
  serve_reqs 100 1 "$out/lone" || { serve_down; return 1; }
  for s in ${SERVE_SENTS:-1 8}; do serve_reqs 1000 "$s" "$out/load.$s" || { serve_down; return 1; }; done
  # Each rep runs nmt-decode and the server one after the other, so both see the same load:
  # out/rows holds "rep kind nmt-decode_s wall_s p50 p99 mean" lines.
  : >"$out/rows"
  for r in $(seq "$reps"); do
    d=$(decode_secs 1000 "$th") || { serve_down; return 1; }
    for s in ${SERVE_SENTS:-1 8}; do
      row=$(serve_run "$out/load.$s" "$c" "$out/want.1000") || { serve_down; return 1; }
      echo "$r load.$s $d $row" >>"$out/rows"
    done
    d=$(decode_secs 100 "$th" --mini-batch 1 --maxi-batch 1) || { serve_down; return 1; }
    row=$(serve_run "$out/lone" 1 "$out/want.100") || { serve_down; return 1; }
    echo "$r lone $d $row" >>"$out/rows"
  done
  serve_down || { echo "nmt-serve did not exit 0 on SIGTERM" >&2; return 1; }
  echo
  echo "nmt-serve on loopback, test2016 (1,000 BPE'd sentences), beam 5, $th decoding threads, $(nproc) cores;" \
    "medians of $reps reps; load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (a shared machine)"
  echo "| clients | sentences/request | requests | req/s | sent/s | p50 ms | p99 ms | nmt-decode sent/s | serve/decode |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for s in ${SERVE_SENTS:-1 8}; do
    awk -v k="load.$s" -v c="$c" -v s="$s" -v n="$(ls "$out/load.$s" | grep -c '\.json$')" '
      function med(a, m,  i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return a[int((m + 1) / 2)] }
      $2 == k { m++; d[m] = 1000 / $3; v[m] = 1000 / $4; p50[m] = $5; p99[m] = $6; q[m] = d[m] ? v[m] / d[m] : 0 }
      END { sv = med(v, m); printf "| %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f%% |\n",
        c, s, n, sv * n / 1000, sv, med(p50, m), med(p99, m), med(d, m), 100 * med(q, m) }' "$out/rows"
  done
  echo
  echo "A lone client, the first 100 sentences one request after the other, against batch-1 nmt-decode" \
    "(each sentence alone, every thread on it):"
  echo "| nmt-serve p50 ms | nmt-serve mean ms | nmt-decode batch 1 ms/sentence | serve/decode (means) |"
  echo "| --- | --- | --- | --- |"
  awk '
    function med(a, m,  i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int((m + 1) / 2)] }
    $2 == "lone" { m++; d[m] = $3 * 10; p50[m] = $5; mean[m] = $7; q[m] = $7 / ($3 * 10) }
    END { printf "| %.1f | %.1f | %.1f | %.2f |\n", med(p50, m), med(mean, m), med(d, m), med(q, m) }' "$out/rows"
}
serve_bench
