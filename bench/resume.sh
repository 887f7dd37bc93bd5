# kill -9 in the middle of training, then --resume: the final model must be byte-identical
# to an uninterrupted run (issue 3, target 5) at the peer's full size on Multi30k, with the
# data-parallel workers, validation and checkpoints every VALID steps. Sourced by bench/run,
# or alone: bash bench/resume.sh (NMT_RESUME_STEPS, NMT_RESUME_KILLS).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

resume_bench() {
  local steps=${NMT_RESUME_STEPS:-150} kills=${NMT_RESUME_KILLS:-3} valid=40 d=$M30K out=$BENCH_DIR/resume
  multi30k_bpe || return 1
  mkdir -p "$out"
  rm -f "$out"/{a,b}.bin "$out"/{a,b}.bin.ckpt
  # The validation set trimmed to 200 pairs: validation and checkpoints every $valid steps.
  head -200 "$d/val.bpe.fr" >"$out/val.fr"
  head -200 "$d/val.bpe.en" >"$out/val.en"
  train() { # MODEL: the same run, resumed when a checkpoint exists
    nmt-train --preset peer --train-sets "$d/train.bpe.fr" "$d/train.bpe.en" --valid-sets "$out/val.fr" \
      "$out/val.en" -m "$1" --after-batches "$steps" --valid-freq "$valid" --resume -q
  }
  local t0 t1 whole i
  t0=$(date +%s.%N)
  train "$out/a.bin" || return 1
  t1=$(date +%s.%N)
  whole=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
  # Kill the second run at spread-out moments, then let the last attempt finish.
  for ((i = 1; i <= kills; i++)); do
    train "$out/b.bin" &
    sleep "$(awk -v w="$whole" -v i="$i" -v k="$kills" 'BEGIN { printf "%.1f", w * i / (k + 1) / 1.5 }')"
    kill -9 $! 2>/dev/null
    wait $! 2>/dev/null
  done
  train "$out/b.bin" || return 1
  echo
  echo "Resume after kill -9, peer config on Multi30k, $steps steps, validation + checkpoint every $valid:"
  # (the checkpoints differ only in their elapsed-time field)
  if cmp -s "$out/a.bin" "$out/b.bin"; then
    echo "killed $kills times and resumed: the model is byte-identical to the uninterrupted run's (${whole} s)"
  else
    echo "RESUME MISMATCH: $out/a.bin and $out/b.bin differ"
    return 1
  fi
}
resume_bench
