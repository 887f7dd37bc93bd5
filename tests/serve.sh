# nmt-serve from a CLI case (sourced: `. tests/serve.sh && serve_start -m MODEL && ...`).
# serve_start ARGS: nmt-serve --port 0 ARGS in the background, its stderr in
#   $TMP/serve.err; waits (20 s at most) for the port it prints, then sets $URL.
# post PATH JSON: POST JSON to PATH with curl; prints "STATUS BODY".
# get PATH: the same for a GET.
# post_key KEY PATH BODY: post's, with Authorization: Bearer KEY.
# serve_stop: SIGTERM (unless it was sent already); waits (20 s at most) and returns the server's exit status.
# wait_metric LINE: until GET /metrics has the line LINE ("nmt_serve_busy_lanes 1"), 10 s at most.
# nbest_close FILE: standard input, an n-best list ("i ||| hyp ||| F0= s ||| s"), against FILE
#   (nmt-decode's): the same hypotheses in the same order, totals within 1e-4. The server
#   batches other sentences together than nmt-decode does, and a GEMM of another shape may
#   round the last bits of a score otherwise (OpenBLAS's Haswell kernels do).
# The server is killed when the case's shell exits, whatever happened.
serve_start() {
  : >"$TMP/serve.err"
  nmt-serve --port 0 "$@" 2>"$TMP/serve.err" &
  SERVE_PID=$!
  trap 'kill $SERVE_PID 2>/dev/null' EXIT
  i=0
  while [ $i -lt 200 ]; do
    port=$(sed -n 's/^nmt-serve: listening on http:\/\/[0-9.]*:\([0-9]*\) .*/\1/p' "$TMP/serve.err")
    [ -n "$port" ] && { URL=http://127.0.0.1:$port; return 0; }
    kill -0 $SERVE_PID 2>/dev/null || { echo "serve.sh: nmt-serve exited: $(head -n 1 "$TMP/serve.err")" >&2; return 1; }
    sleep 0.1
    i=$((i + 1))
  done
  echo "serve.sh: no port line from nmt-serve within 20 s" >&2
  return 1
}

post() {
  curl -sS --max-time 30 -o "$TMP/body" -w '%{http_code} ' -H 'Content-Type: application/json' --data-binary "$2" "$URL$1" &&
    cat "$TMP/body"
}

post_key() {
  curl -sS --max-time 30 -o "$TMP/body" -w '%{http_code} ' -H "Authorization: Bearer $1" --data-binary "$3" "$URL$2" &&
    cat "$TMP/body"
}

get() {
  curl -sS --max-time 30 -o "$TMP/body" -w '%{http_code} ' "$URL$1" && cat "$TMP/body"
}

serve_stop() {
  kill -TERM $SERVE_PID 2>/dev/null
  i=0
  while kill -0 $SERVE_PID 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
  kill -0 $SERVE_PID 2>/dev/null && { echo "serve.sh: nmt-serve still running 20 s after SIGTERM" >&2; return 1; }
  wait $SERVE_PID
}

wait_metric() {
  i=0
  while ! curl -s --max-time 5 "$URL/metrics" | grep -qxF "$1"; do
    [ $i -lt 200 ] || { echo "serve.sh: no line '$1' in /metrics within 10 s" >&2; return 1; }
    sleep 0.05
    i=$((i + 1))
  done
}

nbest_close() {
  awk -F' [|][|][|] ' -v ref="$1" '
    { if ((getline line < ref) <= 0) { print "more lines than " ref; bad = 1; exit }
      split(line, r, / [|][|][|] /)
      d = $4 - r[4]; if (d < 0) d = -d
      if ($1 != r[1] || $2 != r[2] || d > 1e-4) { print NR ": " $0 " against " line; bad = 1; exit } }
    END { if (!bad && (getline line < ref) > 0) { print "fewer lines than " ref; bad = 1 }; exit bad }'
}
