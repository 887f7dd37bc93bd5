#!/usr/bin/env bash
# nmt-train and nmt-decode with --device cuda, built against the CUDA emulator
# ($BIN/emu/), against the CPU build ($BIN/): on make demo's corpus (French
# number words to English ones, examples/demo/numbers.c) both log the same
# loss curve (within 1e-4 relative at every logged step; validation runs on
# the device too), and the GPU decodes the CPU's model to the CPU's output,
# beam 1 and 4, with alignments. Run by `make test-emu`.
#   tests/emu/gpu_tools.sh BIN
set -euo pipefail
source "$(dirname "$0")/demo_corpus.sh" "${1:-}"
head -40 valid.fr > valid
O=(--train-sets train.fr train.en --valid-sets valid.fr valid.en --valid-freq 20 --dim-emb 16 --dim-rnn 32
   --mini-batch 16 --learn-rate 0.01 --after-batches 60 --log-freq 10 --exponential-smoothing 0.01 -q)
"$bin/nmt-train" "${O[@]}" -m cpu.bin --metrics cpu.csv
"$bin/emu/nmt-train" "${O[@]}" -m gpu.bin --metrics gpu.csv --device cuda 2> train.err
grep -q . cpu.csv
# the loss (and validation perplexity, when logged) of every row, CPU beside GPU
paste -d, <(cut -d, -f1,4 cpu.csv) <(cut -d, -f1,4 gpu.csv) | awk -F, 'NR > 1 {
  n++; d = $2 - $4; if (d < 0) d = -d
  if ($1 != $3 || d > 1e-4 * ($2 < 0 ? -$2 : $2)) { print "step " $1 ": loss " $2 " on the CPU, " $4 " on the GPU"; bad = 1 } }
  END { if (!n) { print "no rows"; bad = 1 }; exit bad }'
for beam in 1 4; do
  "$bin/nmt-decode" -m cpu.bin -b "$beam" --alignment < valid > cpu.$beam
  "$bin/emu/nmt-decode" -m cpu.bin -b "$beam" --alignment --device cuda < valid > gpu.$beam 2> decode.err
  cmp cpu.$beam gpu.$beam || { echo "beam $beam: the GPU's translations differ"; diff cpu.$beam gpu.$beam | head; exit 1; }
done
# Out of GPU memory (the emulator's capacity NMT_EMU_MEMORY) and a device fault in the
# middle of a step (NMT_EMU_FAULT_AT): one line naming the batch, exit 3, the checkpoint
# as it was.
cp gpu.bin.ckpt before.ckpt
for fault in NMT_EMU_MEMORY=600000 NMT_EMU_FAULT_AT=600; do
  status=0
  env "$fault" "$bin/emu/nmt-train" "${O[@]}" -m gpu.bin --resume --after 80u --device cuda 2> fault.err || status=$?
  [ "$status" = 3 ] || { echo "$fault: exit $status, expected 3"; cat fault.err; exit 1; }
  grep -q '^nmt-train: step [0-9]* (epoch [0-9]*, batch [0-9]*: 16 sentences, [0-9]* target words on cuda' fault.err ||
    { echo "$fault: no line naming the batch"; cat fault.err; exit 1; }
  cmp -s gpu.bin.ckpt before.ckpt || { echo "$fault: the checkpoint changed"; exit 1; }
done
grep -q 'try a smaller --mini-batch-words' <(env NMT_EMU_MEMORY=600000 "$bin/emu/nmt-train" "${O[@]}" -m gpu.bin \
  --resume --after 80u --device cuda 2>&1) || { echo "out of GPU memory: no advice"; exit 1; }
if "$bin/emu/nmt-decode" -m cpu.bin --gemm-type int8 --device cuda < valid > /dev/null 2> int8.err; then
  echo "--gemm-type int8 with --device cuda was not refused"; exit 1
fi
grep -q 'int8 runs on the CPU only' int8.err
echo "gpu_tools: nmt-train and nmt-decode --device cuda on the emulator match the CPU"
