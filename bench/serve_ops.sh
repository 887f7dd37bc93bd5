# nmt-serve for operators (issue 31): its load and overload targets, SIGTERM's drain under
# load and the translation cache, with bench/serve.sh's model and test2016's 1,000 BPE'd
# sentences (beam 5, loopback, NMT_THREADS decoding threads: 2).
# - Load: 64 clients (bench/serve_load.c: a pthread, a kept-alive connection each, one
#   sentence a request, the next as soon as the answer is in) for SERVE_LOAD_SECS (60) s:
#   sentences/s beside nmt-decode --cpu-threads T on the same 1,000 (model loading taken
#   off), latency (mean, p50, p99), failed and wrong answers (each checked against
#   nmt-decode's), the server's RSS and threads each second from the 10th on.
# - Overload: 256 such clients against --max-queue 64: the 503s and their latency (a client
#   waits Retry-After, then sends the sentence again), the admitted answers checked.
# - At the end of both, SIGTERM while the clients go on: the requests in flight answered,
#   those after it 503 or refused, none lost; the time to exit and the exit status.
# - Cache (--cache-bytes): the first 100 sentences from a lone client, then again.
# Each rep times nmt-decode right before the server (a shared machine: both see its load);
# each figure is the median of BENCH_REPS reps (3), a ratio the median of the reps'.
# Not part of `make test`. Sourced by bench/run, or alone: bash bench/serve_ops.sh.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/serve.bash

# ops_load NAME CLIENTS ARGS...: nmt-serve ARGS under CLIENTS clients with SIGTERM at the
# end; bench/serve_load's summary and "exit S" (the server's status) in $out/NAME.
ops_load() {
  local name=$1 c=$2 rc
  shift 2
  serve_up -m "$BENCH_DIR/decode/m.bin" --bpe-input --threads "$th" "$@" || return 1
  "$out/serve_load" -c "$c" -t "$secs" -p "$SERVE_PID" -k -w "$out/$name.lat" "${SERVE_URL##*:}" \
    "$M30K/test.bpe.fr" "$BENCH_DIR/serve/want.1000" >"$out/$name" || { kill "$SERVE_PID"; return 1; }
  wait "$SERVE_PID"
  rc=$?
  echo "exit $rc" >>"$out/$name"
}

# ops_cache: "miss_ms hit_ms", a lone client's mean latency on the first 100 sentences, then on them again.
ops_cache() {
  serve_up -m "$BENCH_DIR/decode/m.bin" --bpe-input --threads "$th" --cache-bytes 67108864 || return 1
  local miss hit
  serve_reqs 100 1 "$out/lone" || { serve_down; return 1; } # (the URL is in its curl.cfg)
  miss=$(serve_run "$out/lone" 1 "$out/want.100") && hit=$(serve_run "$out/lone" 1 "$out/want.100") ||
    { serve_down; return 1; }
  serve_down || return 1
  echo "${miss##* } ${hit##* }"
}

# ops_v FILE KEY: KEY's value in a summary.
ops_v() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# ops_m NAME KEY: its median over the reps.
ops_m() { local f; for f in "$out/$1".[0-9]*; do ops_v "$f" "$2"; done | median; }

# ops_derive FILE DECODE_S: the rep's ratios appended: sentences/s against nmt-decode's,
# p99 over mean, RSS's largest move from the 10th second (%).
ops_derive() {
  awk -v d="$2" '{ x[$1] = $2 } END {
    r = x["rss_first_kb"]; dev = x["rss_max_kb"] - r; if (r - x["rss_min_kb"] > dev) dev = r - x["rss_min_kb"]
    printf "decode_per_s %.2f\nratio %.1f\np99_mean %.2f\nrss_dev_pct %.1f\n", 1000 / d,
      100 * x["answered_per_s"] * d / 1000, x["lat_p99_ms"] / x["lat_mean_ms"], 100 * dev / r }' "$1" >>"$1"
}

ops_tables() {
  echo
  echo "nmt-serve for operators: loopback, test2016 (1,000 BPE'd sentences), beam 5, $th decoding threads, $(nproc)" \
    "cores, ${secs} s a run; medians of $reps reps; load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  echo "| clients | options | sent/s | nmt-decode sent/s | serve/decode | mean ms | p50 ms | p99 ms | p99/mean | failed | wrong | RSS MB (10th s → end) | RSS moved | threads (10th s → end; min–max) |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  echo "| 64 | --max-connections 128 | $(ops_m load answered_per_s) | $(ops_m load decode_per_s) | $(ops_m load ratio)% | $(ops_m load lat_mean_ms) |" \
    "$(ops_m load lat_p50_ms) | $(ops_m load lat_p99_ms) | $(ops_m load p99_mean) | $(ops_m load failed) | $(ops_m load wrong) |" \
    "$(($(ops_m load rss_first_kb) / 1024)) → $(($(ops_m load rss_last_kb) / 1024)) | ±$(ops_m load rss_dev_pct)% |" \
    "$(ops_m load threads_first) → $(ops_m load threads_last); $(ops_m load threads_min)–$(ops_m load threads_max) |"
  echo
  echo "| clients | options | answered/s | 503s | 503 p50 ms | 503 p99 ms | 503 max ms | admitted p99 ms | failed | wrong | RSS MB (10th s → end) | RSS moved | threads (10th s → end; min–max) |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  echo "| 256 | --max-queue 64 --max-connections 320 | $(ops_m over answered_per_s) | $(ops_m over busy_503) | $(ops_m over lat503_p50_ms) |" \
    "$(ops_m over lat503_p99_ms) | $(ops_m over lat503_max_ms) | $(ops_m over lat_p99_ms) | $(ops_m over failed) | $(ops_m over wrong) |" \
    "$(($(ops_m over rss_first_kb) / 1024)) → $(($(ops_m over rss_last_kb) / 1024)) | ±$(ops_m over rss_dev_pct)% |" \
    "$(ops_m over threads_first) → $(ops_m over threads_last); $(ops_m over threads_min)–$(ops_m over threads_max) |"
  echo
  echo "SIGTERM at the end of each run, the clients still sending (each rep's figures: min–max):"
  echo "| run | in flight at SIGTERM, answered right | lost (no answer) | sent after it: 503 / refused | exit s | exit status |"
  echo "| --- | --- | --- | --- | --- | --- |"
  local k
  for k in load over; do
    echo "| $k | $(ops_range "$k" inflight_right) | $(ops_range "$k" inflight_failed) |" \
      "$(ops_range "$k" term_503) / $(ops_range "$k" term_refused) | $(ops_range "$k" term_exit_s) | $(ops_range "$k" exit) |"
  done
  echo
  echo "| cache miss mean ms | cache hit mean ms | miss/hit |"
  echo "| --- | --- | --- |"
  echo "| $(ops_m cache miss) | $(ops_m cache hit) | $(ops_m cache ratio) |"
}

# ops_range NAME KEY: "min–max" of KEY over the reps (one value when they agree).
ops_range() {
  local f
  for f in "$out/$1".[0-9]*; do ops_v "$f" "$2"; done | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { print (a == b ? a : a "–" b) }'
}

serve_ops_bench() {
  local out=$BENCH_DIR/serve_ops th=${NMT_THREADS:-2} reps=${BENCH_REPS:-3} secs=${SERVE_LOAD_SECS:-60} r d c load0
  multi30k_bpe || return 1
  mkdir -p "$out" "$BENCH_DIR/serve" "$BENCH_DIR/decode" && rm -f "$out"/*.[0-9]*
  NMT_PEER=0 decode_models "$BENCH_DIR/decode" "$th" || return 1
  cc -O2 -Wall -pthread -o "$out/serve_load" bench/serve_load.c || return 1
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  for r in $(seq "$reps"); do
    d=$(decode_secs 1000 "$th") && head -n 100 "$BENCH_DIR/serve/want.1000" >"$out/want.100" || return 1
    ops_load "load.$r" 64 --max-connections 128 && ops_derive "$out/load.$r" "$d" || return 1
    ops_load "over.$r" 256 --max-queue 64 --max-connections 320 && ops_derive "$out/over.$r" "$d" || return 1
    c=$(ops_cache) || return 1
    echo "$c" | awk '{ printf "miss %.1f\nhit %.2f\nratio %.0f\n", $1, $2, $1 / $2 }' >"$out/cache.$r"
  done
  ops_tables
}
serve_ops_bench
