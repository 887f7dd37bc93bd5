# SIGTERM under load, for a CLI case (sourced after tests/serve.sh, with serve.setup's $FIX):
# drain_under_load CLIENTS: nmt-serve (one decoding thread) under CLIENTS clients, each on one
# kept-alive connection (a curl, --fail-early) sending its line of $FIX/copy again and again,
# and 4 requests of $FIX/copy ten times (4000 lines); SIGTERM once over 4000 sentences are
# queued and every client has had an answer. Prints the server's exit status, whether the
# large requests came back whole (nmt-decode's $FIX/copy.want), and how each client's
# requests ended: each answer right, then at most one 503 (a request sent as the drain
# began), then its next connection refused (curl exit 7).
drain_under_load() {
  local n=$1 i big="" small="" rcs="" p
  for i in 1 2 3 4 5 6 7 8 9 10; do cat "$FIX/copy"; done | jq -Rn '{text: [inputs]}' >"$TMP/big.json" || return 1
  for i in 1 2 3 4 5 6 7 8 9 10; do cat "$FIX/copy.want"; done >"$TMP/big.want"
  serve_start -m "$FIX/c" --bpe-input --threads 1 --mini-batch 8 --drain-timeout 300 || return 1
  for i in 1 2 3 4; do
    curl -sS --max-time 300 -o "$TMP/big.$i" --data-binary @"$TMP/big.json" "$URL/translate" &
    big="$big $!"
  done
  for i in $(seq "$n"); do
    sed -n "${i}p" "$FIX/copy" | jq -Rc '{text: .}' >"$TMP/small.$i.json"
    curl -s --fail-early --max-time 300 -w '%{http_code}\n' --data-binary @"$TMP/small.$i.json" \
      "$URL/translate?[1-1000000]" >"$TMP/small.$i.out" &
    small="$small $!"
  done
  for i in $(seq 600); do
    p=$(for f in "$TMP"/small.*.out; do [ -s "$f" ] || echo "$f"; done) # a client not yet answered
    [ -z "$p" ] && curl -s --max-time 5 "$URL/metrics" |
      awk '$1 == "nmt_serve_queued_sentences" && $2 > 4000 { ok = 1 } END { exit !ok }' && break
    sleep 0.05
  done
  serve_stop
  echo "server exit $?"
  i=0
  for p in $big; do
    i=$((i + 1))
    wait "$p" && jq -r '.translation[]' "$TMP/big.$i" | cmp -s - "$TMP/big.want" && echo "large request $i: answered whole" ||
      echo "large request $i: $(head -c 200 "$TMP/big.$i")"
  done
  for p in $small; do
    wait "$p"
    rcs="$rcs $?"
  done
  i=0
  for p in $rcs; do
    i=$((i + 1))
    drain_client "$i" "$p"
  done | sort | uniq -c | sed 's/^ *//'
}

# drain_client I EXIT: how client I's requests ended (its curl's EXIT), one line. Its output is
# each answer's body line then its status line, the refused connection's status (000) alone.
drain_client() {
  local want
  want=$(sed -n "${1}p" "$FIX/copy.want" | jq -Rc '{translation: .}')
  awk -v want="$want" -v rc="$2" '
    /^[0-9][0-9][0-9]$/ { codes = codes $0 " "; if ($0 == "200" && body != want) bad = "a wrong answer: " body; body = ""; next }
    { body = $0 }
    END {
      if (!bad && codes !~ /^(200 )+(503 )?000 $/) bad = "statuses ..." substr(codes, length(codes) - 30)
      # 7: its next connection refused. A request sent on its kept-alive connection as the
      # drain closed it was read, unanswered (serve_conns_linger), and curl retried it there
      if (!bad && rc != 7) bad = "curl exit " rc " after ..." substr(codes, length(codes) - 30)
      print "client: " (bad ? bad : "answers right, then refused") }' "$TMP/small.$1.out"
}
