#!/usr/bin/env bash
# make demo: the whole pipeline on a corpus made here, French number words to
# English ones ("quatre-vingt-dix-sept" -> "ninety-seven"): generate, tokenize,
# learn and apply BPE, train, translate the test set, detokenize, score.
#   examples/demo/run.sh WORKDIR     the nmt-* tools must be in PATH
# DEMO_FAST=1: a few seconds with a tiny model, only to see that every step runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:?usage: run.sh WORKDIR}
mkdir -p "$work"
cd "$work"
start=$SECONDS

if [ "${DEMO_FAST:-0}" = 1 ]; then
  pairs=2000 model=(--dim-emb 32 --dim-rnn 64 --after-batches 300 --valid-freq 150 -l 0.003)
else
  pairs=6000 model=(--dim-emb 64 --dim-rnn 128 --after-batches 2000 --valid-freq 250 -l 0.003)
fi

step() { printf '== %s\n' "$*" >&2; }

step "corpus: $pairs training pairs, 200 valid, 200 test (numbers never seen in training)"
"${CC:-cc}" -std=c11 -O2 -o numbers "$here/numbers.c"
./numbers . "$pairs" 1

step "tokenize (hyphens split as @-@)"
for set in train valid test; do
  for lang in fr en; do nmt-tokenize -l $lang -a --no-escape -o $set.tok.$lang $set.$lang; done
done

step "BPE: 80 joint merges, applied to both sides"
nmt-bpe learn -s 80 -o codes train.tok.fr train.tok.en
for set in train valid test; do
  for lang in fr en; do nmt-bpe apply -c codes -o $set.bpe.$lang $set.tok.$lang; done
done

step "train"
nmt-train --train-sets train.bpe.fr train.bpe.en --valid-sets valid.bpe.fr valid.bpe.en \
  -m model.bin --overwrite --bpe-codes codes --mini-batch 32 --cpu-threads 1 --log-freq 500 "${model[@]}"

step "translate the test set, detokenize"
nmt-decode -m model.bin -b 5 -i test.bpe.fr -o test.out.tok.en
nmt-tokenize -d -l en -o test.out.en test.out.tok.en

echo
echo "Sample translations of unseen numbers:"
paste -d '\t' test.fr test.en test.out.en | awk -F '\t' 'NR <= 8 {printf "  fr   %s\n  ref  %s\n  out  %s\n\n", $1, $2, $3}'
exact=$(paste -d '\t' test.en test.out.en | awk -F '\t' '$1 == $2' | wc -l)
echo "Exact translations: $exact / $(wc -l < test.en)"
nmt-bleu test.en -i test.out.en -f text
echo "Demo done in $((SECONDS - start)) s; files in $PWD"
