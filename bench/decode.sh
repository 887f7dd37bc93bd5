# Decoding speed side by side with the PyTorch peer on test2016 (1,000 sentences,
# Multi30k Fr→En, BPE'd by bench/multi30k.bash): greedy and beam 5, batches of 64 and 1.
# Each side decodes with its own model of the peer config trained for one epoch (~450
# steps, enough for realistic output lengths; cached in bench/out/decode). Ours is timed
# as the whole nmt-decode process (model loading included); the peer times its own loop.
# GFLOP/s counts the useful forward work: per output token (</s> included) and beam row,
# the decoder step of bench/train.sh's formula, plus the encoder per source token.
# Sourced by bench/run, or alone: bash bench/decode.sh (NMT_THREADS, NMT_PEER=0 to skip
# the peer, NMT_DECODE_B1=0 to skip batch 1, NMT_SHORTLIST: the --shortlist rows, 1000,
# NMT_DEVICE=cuda: both sides decode on the GPU; NMT_KERNELS="native best": a table per
# OpenBLAS kernel of nmt-decode; DECODE_REPS: runs per figure, the median shown, 3).
# The peer decodes on this core's best OpenBLAS kernel (best_kernel in bench/multi30k.bash).
# The int8 rows (--gemm-type int8) reuse the peer's figures of the float rows.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

# decode_row WHO BEAM BATCH [SHORTLIST [GEMM_TYPE]]: prints "sents/s out_tokens", the
# median of DECODE_REPS runs (this VM's speed drifts between runs); the output goes to
# $BENCH_DIR/decode/nmt.BEAM.BATCH[.slN][.int8].out
decode_row() {
  local r runs=()
  for ((r = 0; r < ${DECODE_REPS:-3}; r++)); do runs+=("$(decode_once "$@")") || return 1; done
  printf '%s\n' "${runs[@]}" | median
}

decode_once() {
  local out=$BENCH_DIR/decode who=$1 k=$2 bs=$3 sl=${4:-0} gt=${5:-float32} th=${NMT_THREADS:-2} in=$M30K/test.bpe.fr
  if [ "$who" = peer ]; then
    OPENBLAS_CORETYPE=$NMT_BEST_KERNEL /usr/bin/python3 "$SHARED/peers/torch_rnn_nmt.py" translate --model "$out/peer.pt" --input "$in" \
      --output "$out/peer.$k.$bs.out" --beam "$k" --batch-size "$bs" --threads "$th" --device "${NMT_DEVICE:-cpu}" >"$out/peer.log" 2>&1 ||
      { echo "peer failed: $(tail -n1 "$out/peer.log")" >&2; return 1; }
    awk '{ n += NF + 1 } END { printf "%s %d\n", s, n }' s="$(sed -n 's/.* sents\/s=\([0-9.]*\).*/\1/p' "$out/peer.log")" "$out/peer.$k.$bs.out"
    return
  fi
  local t0 t1
  t0=$(date +%s%N)
  local o=$out/nmt.$k.$bs.out
  [ "$sl" = 0 ] || o=${o%.out}.sl$sl.out
  [ "$gt" = float32 ] || o=${o%.out}.$gt.out
  nmt-decode -m "$out/m.bin" -i "$in" -o "$o" -b "$k" --mini-batch "$bs" \
    --no-postprocess --cpu-threads "$th" --device "${NMT_DEVICE:-cpu}" --shortlist "$sl" --gemm-type "$gt" 2>"$out/nmt.err" ||
    { echo "nmt-decode failed: $(tail -n1 "$out/nmt.err")" >&2; return 1; }
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" '{ n += NF + 1 } END { printf "%.2f %d\n", NR / ((b - a) / 1e9), n }' "$o"
}

# BLEU of a decode_row output against test2016 (subwords joined, tokenized reference).
decode_bleu() {
  sed 's/@@ //g' "$1" | nmt-bleu "$M30K/test.tok.en" --tokenize none --force 2>/dev/null |
    sed -n 's/.*"score": \([0-9.]*\).*/\1/p'
}

# Batch 1 with a vocabulary shortlist (nmt-decode --shortlist N: the N most frequent
# target words), against the full vocabulary: speed and BLEU.
decode_shortlist_rows() {
  local out=$BENCH_DIR/decode k n sl=${NMT_SHORTLIST:-1000}
  nmt-decode --help 2>&1 | grep -q -- --shortlist || return 0
  echo
  echo "Batch 1 with --shortlist $sl (the most frequent target words), same models:"
  echo "| search | nmt-decode sent/s | BLEU | BLEU full vocabulary |"
  echo "| --- | --- | --- | --- |"
  for k in 1 5; do
    n=$(decode_row nmt "$k" 1 "$sl") || return 1
    printf "| %s | %s | %s | %s |\n" "$([ "$k" = 1 ] && echo greedy || echo "beam $k")" "${n%% *}" \
      "$(decode_bleu "$out/nmt.$k.1.sl$sl.out")" "$(decode_bleu "$out/nmt.$k.1.out")"
  done
}

# int8 weights (nmt-decode --gemm-type int8), alone and with the shortlist: speed
# against the peer's rows above (PEER: "greedy/64 greedy/1 beam5/64 beam5/1" sent/s) and BLEU.
decode_int8_rows() {
  local out=$BENCH_DIR/decode sl=${NMT_SHORTLIST:-1000} k bs s n p i=0
  local -a peer
  read -r -a peer <<<"$1"
  echo
  echo "int8 weights (--gemm-type int8), same models; speed-up against the peer rows above:"
  echo "| search | batch | shortlist | nmt-decode sent/s | speed-up | BLEU | BLEU float32 |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for k in 1 5; do
    for bs in 64 1; do
      p=${peer[$i]:--}
      i=$((i + 1))
      [ "$bs" = 1 ] && [ "${NMT_DECODE_B1:-1}" = 0 ] && continue
      for s in 0 $([ "$bs" = 1 ] && echo "$sl"); do
        n=$(decode_row nmt "$k" "$bs" "$s" int8) || return 1
        local f=$out/nmt.$k.$bs
        [ "$s" = 0 ] || f=$f.sl$s
        printf "| %s | %d | %s | %s | %s | %s | %s |\n" "$([ "$k" = 1 ] && echo greedy || echo "beam $k")" \
          "$bs" "$([ "$s" = 0 ] && echo - || echo "$s")" "${n%% *}" \
          "$(awk -v a="$p" -v b="${n%% *}" 'BEGIN { print (a + 0 > 0 ? sprintf("%.1fx", b / a) : "-") }')" \
          "$(decode_bleu "$f.int8.out")" "$(decode_bleu "$f.out")"
      done
    done
  done
}

decode_bench() {
  local out=$BENCH_DIR/decode th=${NMT_THREADS:-2}
  multi30k_bpe || return 1
  mkdir -p "$out"
  decode_models "$out" "$th" || return 1
  echo
  echo "Decoding test2016 (1,000 sentences), peer config models trained one epoch, $th threads;" \
    "nmt-decode: $(cores); the peer: OpenBLAS core ${NMT_BEST_KERNEL:--}; load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "| search | batch | peer sent/s | nmt-decode sent/s | speed-up | nmt out tokens | nmt GFLOP/s |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  local vt src k bs p n peers=""
  vt=$(sed -n 's/.*vocabularies [0-9]* \/ \([0-9]*\).*/\1/p' "$out/train.log")
  src=$(awk '{ n += NF + 1 } END { print n }' "$M30K/test.bpe.fr")
  for k in 1 5; do
    for bs in 64 1; do
      [ "$bs" = 1 ] && [ "${NMT_DECODE_B1:-1}" = 0 ] && { peers="$peers -"; continue; }
      p="- 0"
      [ "${NMT_PEER:-1}" = 0 ] || p=$(decode_row peer "$k" "$bs") || return 1
      peers="$peers ${p%% *}"
      n=$(decode_row nmt "$k" "$bs") || return 1
      awk -v p="$p" -v n="$n" -v k="$k" -v bs="$bs" -v V="$vt" -v src="$src" 'BEGIN {
        split(p, a, " "); split(n, b, " "); E = 256; H = 512; h = H / 2; S = src / 1000
        tok = 2 * ((E + 2 * H) * 4 * H + 2 * S * H + 2 * H * H + H * V)
        enc = 2 * (2 * (E + h) * 4 * h + H * H)
        gf = (b[2] * k * tok + src * enc) / (1000 / b[1]) / 1e9
        up = a[1] + 0 > 0 ? sprintf("%.1fx", b[1] / a[1]) : "-"
        printf "| %s | %d | %s | %.1f | %s | %d | %.1f |\n", (k == 1 ? "greedy" : "beam " k), bs, a[1],
          b[1], up, b[2], gf }'
    done
  done
  [ "${NMT_DECODE_B1:-1}" = 0 ] || decode_shortlist_rows
  decode_int8_rows "$peers"
}
[ "${NMT_PEER:-1}" = 0 ] || best_kernel || return 1 2>/dev/null || exit 1
for_kernels decode_bench
