# Training throughput side by side with the PyTorch peer (../shared/peers/torch_rnn_nmt.py),
# same data (Multi30k Fr→En, joint BPE 8000, made by our tools: bench/multi30k.bash) and
# config: bi-LSTM 256 per direction, emb 256, decoder 512, general attention, input feeding,
# dropout 0.3, Adam 1e-3, batch 64 sentences, clip 5, max length 80. Each runs WARMUP steps,
# then STEPS timed steps, one after the other. Also: FLOPs per target token, achieved
# GFLOP/s, and the share of the core's ceiling on the step's own GEMM shapes in the same
# run: the best rate of every GEMM the core runs (each OpenBLAS kernel it can, oneDNN,
# nmt's own choice: gemm_ceiling in bench/multi30k.bash). The peer runs on the best
# OpenBLAS kernel of them (best_kernel), so that it is not slowed by the one OpenBLAS
# picks for a core it does not know; nmt-train on the environment's (or NMT_KERNELS').
# Sourced by bench/run, or alone: bash bench/train.sh (NMT_TRAIN_STEPS, NMT_TRAIN_WARMUP,
# NMT_THREADS, NMT_PEER=0 to skip the peer, NMT_DEVICE=cuda and NMT_BATCH=N for both sides,
# NMT_KERNELS="native best" for a table per OpenBLAS kernel of nmt-train, TRAIN_REPS: runs
# of the peer, nmt-train and the ceiling in turn (the ceiling before and after nmt-train,
# the run's the mean; its engines' rates the reading after), each figure the median, 3: this VM's
# speed drifts; GEMM_SECS: seconds per shape and engine, 0.2; GEMM_READS: readings of each
# engine, its median the rate, 3; NMT_BEST_KERNEL: skips the search).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

train_bench() {
  local steps=${NMT_TRAIN_STEPS:-200} warm=${NMT_TRAIN_WARMUP:-20} th=${NMT_THREADS:-2}
  local dev=${NMT_DEVICE:-cpu} bs=${NMT_BATCH:-64}
  local d=$M30K out=$BENCH_DIR/train peer=$SHARED/peers/torch_rnn_nmt.py
  multi30k_bpe || return 1
  mkdir -p "$out"
  echo
  echo "Training, Multi30k Fr→En BPE 8000, peer config, $warm warm-up + $steps timed steps, $th threads," \
    "medians of ${TRAIN_REPS:-3} runs; nmt-train: $(cores); the peer: OpenBLAS core $NMT_BEST_KERNEL" \
    "(this core's best on the step's GEMMs); load $(cut -d' ' -f1-3 /proc/loadavg)"
  local r runs=()
  for ((r = 0; r < ${TRAIN_REPS:-3}; r++)); do runs+=("$(train_once)") || return 1; done
  # each run: peer tok/s, peer RSS, nmt tok/s, nmt RSS, the ceiling (GFLOP/s, the engine
  # that gave it, the best OpenBLAS kernel, every engine's rate), FLOPs per target token;
  # then its own shares of the ceiling and nmt / peer, whose medians the table shows (the
  # run's sides saw the same machine)
  local all
  all=$(printf '%s\n' "${runs[@]}" | awk '{f = $9 / 1e9; print $0, ($1 * f / $5), ($3 * f / $5), ($1 > 0 ? $3 / $1 : 0)}')
  runs_median() { awk -v c="$1" '{print $c}' <<<"$all" | median; } # of column $1 (not `col`: a command)
  awk -v p="$(runs_median 1)" -v pr="$(runs_median 2)" -v n="$(runs_median 3)" -v nr="$(runs_median 4)" \
    -v ce="$(awk '{print $5, $6}' <<<"$all" | median)" -v f="$(runs_median 9)" -v ps="$(runs_median 10)" \
    -v ns="$(runs_median 11)" -v up="$(runs_median 12)" 'BEGIN {
    print "| trainer | target tok/s | GFLOP/s | of ceiling | peak MiB |"
    print "| --- | --- | --- | --- | --- |"
    if (p > 0) printf "| peer (PyTorch) | %.0f | %.1f | %.0f%% | %.0f |\n", p, p * f / 1e9, 100 * ps, pr / 1024
    printf "| nmt-train | %.0f | %.1f | %.0f%% | %.0f |\n", n, n * f / 1e9, 100 * ns, nr / 1024
    split(ce, c, " ")
    printf "FLOPs per target token %.1f M; ceiling on the step shapes %.1f GFLOP/s (%s)", f / 1e6, c[1], c[2]
    if (p > 0) printf "; nmt-train / peer = %.2fx", up
    print "" }'
  awk '{gsub(/=/, " ", $8); gsub(/,/, ", ", $8)
    printf "run %d: peer %.0f, nmt-train %.0f tok/s (%.0f%% of ceiling), ceiling %.1f GFLOP/s by %s (best OpenBLAS %s; %s), nmt-train / peer %.2fx\n",
    NR, $1, $3, 100 * $11, $5, $6, $7, $8, $12}' <<<"$all"
  echo "(tok/s, GFLOP/s and the ceiling: the medians of the runs; of ceiling and nmt-train / peer: the medians of each run's own)"
}

# One run of each, in the caller's settings: prints the figures train_bench takes medians of.
train_once() {
  local ptok=0 prss=0 psrc=0 ptgt=0
  if [ "${NMT_PEER:-1}" != 0 ]; then
    OPENBLAS_CORETYPE=$NMT_BEST_KERNEL /usr/bin/time -f '%M' -o "$out/peer.rss" /usr/bin/python3 "$peer" train --train-src "$d/train.bpe.fr" \
      --train-tgt "$d/train.bpe.en" --val-src "$d/val.bpe.fr" --val-tgt "$d/val.bpe.en" \
      --bench "$steps" --warmup "$warm" --threads "$th" --device "$dev" --batch-size "$bs" --save /dev/null >"$out/peer.log" 2>&1 ||
      { echo "peer failed: $(tail -n1 "$out/peer.log")" >&2; return 1; }
    ptok=$(sed -n 's/.* tgt_tok\/s=\([0-9.]*\).*/\1/p' "$out/peer.log")
    psrc=$(sed -n 's/.* src_tok=\([0-9]*\).*/\1/p' "$out/peer.log")
    ptgt=$(sed -n 's/.* tgt_tok=\([0-9]*\).*/\1/p' "$out/peer.log")
    prss=$(tail -n1 "$out/peer.rss")
  fi
  # The ceiling read just before and just after nmt-train, the run's the mean of the two:
  # this VM's speed drifts over minutes (nmt-train moved ±8% between runs), and a ceiling
  # read once after the run had swung each run's share 77-95%.
  local before ceiling
  before=$(gemm_ceiling "${GEMM_SECS:-0.2}" "${GEMM_SHAPES[@]}") || return 1
  rm -f "$out/m.bin" "$out/m.bin.ckpt"
  /usr/bin/time -f '%M' -o "$out/nmt.rss" nmt-train --train-sets "$d/train.bpe.fr" "$d/train.bpe.en" \
    -m "$out/m.bin" --dim-emb 256 --dim-rnn 512 --enc-type bidirectional --attention general \
    --dropout 0.3 --learn-rate 0.001 --mini-batch "$bs" --clip-norm 5 --max-length 80 \
    --cpu-threads "$th" --device "$dev" --after-batches $((warm + steps)) --log-freq "$warm" \
    --metrics "$out/metrics.csv" >"$out/nmt.log" 2>&1 ||
    { echo "nmt-train failed: $(tail -n1 "$out/nmt.log")" >&2; return 1; }
  # Throughput over the steps after the warm-up: cumulative tokens and elapsed seconds.
  local ntok
  ntok=$(awk -F, -v w="$warm" -v n=$((warm + steps)) 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["step"] == w { t0 = $c["tokens"]; e0 = $c["elapsed_s"] }
    $c["step"] == n { printf "%.1f", ($c["tokens"] - t0) / ($c["elapsed_s"] - e0) }' "$out/metrics.csv")
  # Source tokens per target token: the peer's own count, else the corpus (each side + </s>).
  local ratio
  ratio=$(awk -v s="$psrc" -v t="$ptgt" 'BEGIN { if (t > 0) printf "%.4f", s / t }')
  [ -n "$ratio" ] || ratio=$(awk 'FNR == NR { s += NF + 1; next } { t += NF + 1 }
    END { printf "%.4f", s / t }' "$d/train.bpe.fr" "$d/train.bpe.en")
  # MACs of one forward pass per target token (E emb, H decoder size, h = H/2 per encoder
  # direction, Vt target vocabulary, S mean source length, r source tokens per target):
  #   decoder LSTM with input feeding (E + 2H)·4H, attention scores + context 2·S·H,
  #   attentional vector 2H·H, output H·Vt; per source token: two directions (E + h)·4h
  #   and the general-attention keys H·H. FLOPs = 2·MACs forward, ×3 with backward
  #   (the peer README's ≈ 6 × parameters used per token).
  local vt S flop
  vt=$(sed -n 's/.*vocabularies [0-9]* \/ \([0-9]*\).*/\1/p' "$out/nmt.log")
  S=$(awk '{ s += NF + 1 } END { printf "%.2f", s / NR }' "$d/train.bpe.fr")
  flop=$(awk -v E=256 -v H=512 -v V="$vt" -v S="$S" -v r="$ratio" 'BEGIN { h = H / 2
    tgt = (E + 2 * H) * 4 * H + 2 * S * H + 2 * H * H + H * V; src = 2 * (E + h) * 4 * h + H * H
    printf "%.0f", 6 * (tgt + r * src) }')
  ceiling=$(gemm_ceiling "${GEMM_SECS:-0.2}" "${GEMM_SHAPES[@]}") || return 1
  ceiling=$(awk -v b="${before%% *}" '{ $1 = sprintf("%.1f", ($1 + b) / 2); print }' <<<"$ceiling")
  echo "$ptok $prss $ntok $(tail -n1 "$out/nmt.rss") $ceiling $flop"
}
best_kernel || return 1 2>/dev/null || exit 1 # here: once for every kernel's table
for_kernels train_bench
