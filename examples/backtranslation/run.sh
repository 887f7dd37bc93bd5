#!/usr/bin/env bash
# Back-translation (Sennrich et al. 2016, with sampling as Edunov et al. 2018): target-side
# text that has no source beside it becomes training pairs. A reverse model (English to
# French) trained on the parallel pairs translates the monolingual English by sampling
# (nmt-decode --output-sampling: varied, as real sources are, where beam search gives the
# same bland source again and again); the forward model (French to English) then trains on
# the parallel pairs (repeated to weigh about as much) and these synthetic ones together,
# beside a baseline on the parallel pairs alone, as many steps each (docs/decode.md has
# the figures). The corpus is the demo's (examples/demo/numbers.c): numbers in French and
# English words, the test numbers never seen in training.
#   examples/backtranslation/run.sh WORKDIR     the nmt-* tools must be in PATH
# BT_FAST=1: a few seconds with tiny models, only to see that every step runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: run.sh WORKDIR}
mkdir -p "$work"
cd "$work"
start=$SECONDS

if [ "${BT_FAST:-0}" = 1 ]; then
  parallel=300 mono=600 model=(--dim-emb 16 --dim-rnn 32 --after-batches 60 -l 0.01)
else
  parallel=150 mono=4000 model=(--dim-emb 64 --dim-rnn 128 --after-batches 1500 --valid-freq 250 -l 0.003)
fi

step() { printf '== %s\n' "$*" >&2; }

step "corpus: $parallel parallel pairs, $mono English sentences alone, 200 valid and 200 test pairs"
"${CC:-cc}" -std=c11 -O2 -o numbers "$here/../demo/numbers.c"
./numbers . $((parallel + mono)) 1
for lang in fr en; do
  head -n "$parallel" train.$lang > parallel.$lang
done
tail -n "$mono" train.en > mono.en # its French side is thrown away

step "tokenize, BPE (80 joint merges learnt on the parallel pairs)"
for set in parallel mono valid test; do
  for lang in fr en; do
    if [ -f $set.$lang ]; then nmt-tokenize -l $lang -a --no-escape -o $set.tok.$lang $set.$lang; fi
  done
done
nmt-bpe learn -s 80 -o codes parallel.tok.fr parallel.tok.en
for f in *.tok.*; do nmt-bpe apply -c codes -o "${f/.tok./.bpe.}" "$f"; done

train() { # train MODEL SRC TGT VALID_SRC VALID_TGT
  nmt-train --train-sets "$2" "$3" --valid-sets "$4" "$5" -m "$1" --overwrite --mini-batch 32 --cpu-threads 1 \
    --log-freq 500 -q "${model[@]}"
}

step "the reverse model, English to French, on the parallel pairs"
train reverse.bin parallel.bpe.en parallel.bpe.fr valid.bpe.en valid.bpe.fr

step "back-translate the English alone: one sample per sentence (--output-sampling, --seed 1)"
nmt-decode -m reverse.bin -i mono.bpe.en -o mono.bt.bpe.fr --no-postprocess --output-sampling -b 1 --seed 1
# the true pairs repeated to weigh about as much as the synthetic ones (a common remedy for noisy sources)
copies=$(((mono + parallel - 1) / parallel))
for ((i = 0; i < copies; i++)); do cat parallel.bpe.fr; done | cat - mono.bt.bpe.fr > mix.bpe.fr
for ((i = 0; i < copies; i++)); do cat parallel.bpe.en; done | cat - mono.bpe.en > mix.bpe.en

step "the forward models, French to English: the parallel pairs alone, and with the synthetic pairs"
train baseline.bin parallel.bpe.fr parallel.bpe.en valid.bpe.fr valid.bpe.en
train backtrans.bin mix.bpe.fr mix.bpe.en valid.bpe.fr valid.bpe.en

echo
echo "Synthetic sources (sampled from the reverse model) beside the true ones:"
sed -E 's/@@( |$)//g' mono.bt.bpe.fr | nmt-tokenize -d -l fr > mono.bt.fr
paste -d '\t' mono.en mono.bt.fr <(tail -n "$mono" train.fr) |
  awk -F '\t' 'NR <= 4 {printf "  en         %s\n  sampled fr %s\n  true fr    %s\n\n", $1, $2, $3}'
for m in baseline backtrans; do
  nmt-decode -m $m.bin -b 5 -i test.bpe.fr -o test.$m.tok.en
  nmt-tokenize -d -l en -o test.$m.en test.$m.tok.en
  exact=$(paste -d '\t' test.en test.$m.en | awk -F '\t' '$1 == $2' | wc -l)
  printf '%-10s exact %3d / %d, %s\n' $m "$exact" "$(wc -l < test.en)" "$(nmt-bleu test.en -i test.$m.en -f text -b) BLEU"
done
echo "Back-translation done in $((SECONDS - start)) s; files in $PWD"
