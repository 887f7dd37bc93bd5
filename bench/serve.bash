# Sourced by bench/serve.sh and bench/serve_ops.sh (not a bench of its own: bench/run
# sources only *.sh): nmt-serve started and stopped on a free port, requests sent with curl,
# nmt-decode's time and translations on the same sentences. Scratch files in $BENCH_DIR/serve.
. bench/multi30k.bash

# serve_up ARGS: nmt-serve --port 0 ARGS in the background; sets SERVE_URL and SERVE_PID.
serve_up() {
  local out=$BENCH_DIR/serve i port
  : >"$out/serve.err" # (emptied first: the background job's redirection may come late)
  nmt-serve --port 0 "$@" 2>"$out/serve.err" &
  SERVE_PID=$!
  for i in $(seq 300); do
    port=$(sed -n 's/^nmt-serve: listening on http:\/\/[0-9.]*:\([0-9]*\) .*/\1/p' "$out/serve.err")
    [ -n "$port" ] && { SERVE_URL=http://127.0.0.1:$port; return 0; }
    kill -0 "$SERVE_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "nmt-serve did not start: $(head -n 1 "$out/serve.err")" >&2
  return 1
}

serve_down() {
  kill -TERM "$SERVE_PID" && wait "$SERVE_PID"
}

# serve_reqs LINES S DIR: DIR/i.json, the first LINES test sentences S per request, and
# DIR/curl.cfg, one transfer per request that writes its latency (s).
serve_reqs() {
  local lines=$1 s=$2 dir=$3
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  head -n "$lines" "$M30K/test.bpe.fr" | jq -Rc --argjson s "$s" -n '[inputs] | _nwise($s) | {text: .}' |
    awk -v d="$dir" '{ print > (d "/" NR ".json") }'
  local n
  n=$(ls "$dir" | grep -c '\.json$')
  awk -v n="$n" -v d="$dir" -v u="$SERVE_URL/translate" 'BEGIN { for (i = 1; i <= n; i++) {
      if (i > 1) print "next"
      printf "silent\nurl = \"%s\"\ndata-binary = \"@%s/%d.json\"\noutput = \"%s/%d.out\"\nwrite-out = \"%%{time_total}\\n\"\n", u, d, i, d, i } }' \
    >"$dir/curl.cfg"
}

# serve_run DIR C WANT: the requests of DIR over C concurrent connections; prints "wall_s p50_ms
# p99_ms mean_ms" and checks that the answers are WANT (nmt-decode's).
serve_run() {
  local dir=$1 c=$2 want=$3 t0 t1
  t0=$(date +%s%N)
  curl --parallel --parallel-max "$c" --parallel-immediate -K "$dir/curl.cfg" >"$dir/lat" 2>"$dir/curl.err" ||
    { echo "curl failed: $(tail -n 1 "$dir/curl.err")" >&2; return 1; }
  t1=$(date +%s%N)
  local n
  n=$(ls "$dir" | grep -c '\.json$')
  jq -r '.translation[]' $(seq -f "$dir/%g.out" "$n") | cmp -s - "$want" ||
    { echo "nmt-serve's answers differ from nmt-decode's ($dir)" >&2; return 1; }
  sort -n "$dir/lat" | awk -v w="$(((t1 - t0) / 1000))" '{ l[NR] = $1; s += $1 } END {
    p50 = l[int((NR + 1) / 2)]; p99 = l[int(NR * 0.99 + 0.999)]
    printf "%.3f %.1f %.1f %.1f\n", w / 1e6, p50 * 1e3, p99 * 1e3, s / NR * 1e3 }'
}

# Seconds nmt-decode takes for LINES sentences (its start-up, timed on no input, taken off).
decode_secs() {
  local lines=$1 th=$2
  shift 2
  local m=$BENCH_DIR/decode/m.bin t0 t1 t2
  t0=$(date +%s%N)
  nmt-decode -m "$m" --cpu-threads "$th" "$@" </dev/null >/dev/null || return 1
  t1=$(date +%s%N)
  head -n "$lines" "$M30K/test.bpe.fr" | nmt-decode -m "$m" --cpu-threads "$th" "$@" >"$BENCH_DIR/serve/want.$lines" || return 1
  t2=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.3f\n", ((c - b) - (b - a)) / 1e9 }'
}
