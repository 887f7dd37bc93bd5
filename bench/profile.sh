#!/usr/bin/env bash
# Where a training step and a decoding step spend their time: perf samples of nmt-train
# (peer config, Multi30k BPE, PROFILE_STEPS steps, 2 threads) and of nmt-decode (test2016,
# beam 5, batch 64, on that model), grouped into the categories of issue 16, under the
# native OpenBLAS kernel and under OPENBLAS_CORETYPE=Haswell. Not part of `make bench`
# (perf is needed): bash bench/profile.sh  (PROFILE_STEPS, default 60)
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
. bench/multi30k.bash
multi30k_bpe || exit 1
command -v perf >/dev/null || { echo "profile.sh: needs perf"; exit 1; }
out=$BENCH_DIR/profile
mkdir -p "$out"
d=$M30K steps=${PROFILE_STEPS:-60}

# perf's per-symbol self time → category shares (percent of all samples)
categorize() {
  perf report -i "$1" --no-children --sort symbol --stdio 2>/dev/null | awk '
    /^ +[0-9.]+%/ {
      p = $1; sub(/%/, "", p); s = $3
      c = "other"
      if (s ~ /^sgemm_(small_)?kernel|^sgemv|^sdot|^saxpy|^block[0-9]|^nn_pgemm_avx2|^panel|^qpanel|^qquarter/) c = "GEMM (compute)"
      else if (s ~ /copy_|omatcopy|pack_cols|pack_rows|pgemm_pack/) c = "GEMM (packing, transposes)"
      else if (s ~ /lstm_cell|lstm_peep|gru_cell|atr_cell|rhn_cell|vsigmoid|vtanh|sigmoid|tanh|bias_|axpby|mul_|scale_|dropout|wscan|highway|layernorm/) c = "cell pointwise"
      else if (s ~ /attn/) c = "attention (non-GEMM)"
      else if (s ~ /xent|softmax|vexp_sum|vmax|log_softmax/) c = "softmax, cross-entropy"
      else if (s ~ /adam|sumsq|scale_part|clip/) c = "Adam, norm, clipping"
      else if (s ~ /sum_part/) c = "summing workers gradients"
      else if (s ~ /memmove|memcpy|memset|clear_page|concat|gather|embed|copy_rows|keep_rows|input_rows|store_rows/) c = "copies, zeroing, page faults"
      else if (s ~ /blas_thread|sched_yield|futex|__schedule|pthread|spin/) c = "thread waits"
      else if (s ~ /search|offer|advance|topk|heap/) c = "beam search"
      t[c] += p
    }
    END { for (c in t) printf "%s\t%.1f\n", c, t[c] }' | sort -t"$(printf '\t')" -k2 -rn
}

run() { # KERNEL LABEL CMD...
  local k=$1 label=$2
  shift 2
  local env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
  [ "$k" = Haswell ] && env=(env OPENBLAS_CORETYPE=Haswell)
  "${env[@]}" perf record -F 999 -g -o "$out/$label.$k.data" "$@" >/dev/null 2>&1 || return 1
  categorize "$out/$label.$k.data" > "$out/$label.$k.tsv"
}

for k in ${PROFILE_KERNELS:-native Haswell}; do
  run "$k" train nmt-train --train-sets "$d/train.bpe.fr" "$d/train.bpe.en" -m "$out/m.bin" --overwrite -q \
    --dim-emb 256 --dim-rnn 512 --enc-type bidirectional --attention general --dropout 0.3 --learn-rate 0.001 \
    --mini-batch 64 --clip-norm 5 --max-length 80 --cpu-threads 2 --after-batches "$steps" || exit 1
  run "$k" decode nmt-decode -m "$out/m.bin" -i "$d/test.bpe.fr" -o "$out/test.out" -b 5 --mini-batch 64 \
    --cpu-threads 2 --no-postprocess || exit 1
done
echo "Share of perf samples (self time), $steps training steps and test2016 beam 5 batch 64; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| category | train native | train Haswell | decode native | decode Haswell |"
echo "| --- | --- | --- | --- | --- |"
# the categories in the order of the first table's shares, then any the others add
{ cut -f1 "$out/train.native.tsv" 2>/dev/null; cut -f1 "$out"/*.tsv; } | awk '!seen[$0]++' | while IFS= read -r c; do
  row="| $c"
  for f in train.native train.Haswell decode.native decode.Haswell; do
    v=$(awk -F'\t' -v c="$c" '$1 == c {print $2}' "$out/$f.tsv")
    row="$row | ${v:-0.0}%"
  done
  echo "$row |"
done
