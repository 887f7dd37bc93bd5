#!/usr/bin/env bash
# Outputs unchanged by a refactoring: runs one set of commands with two builds' tools and
# compares every output byte for byte, models and checkpoints by their sections (the `origin`
# section records the build's commit and a checkpoint's `elapsed=` the clock: those alone
# may differ). Not part of `make test`: run it by hand around a change that must not change
# results (docs/architecture.md).
#   tests/same_outputs.sh OLD_BIN [NEW_BIN]   (NEW_BIN: bin/; OLD_BIN: e.g. a worktree's bin/)
# Needs ../shared/data/multi30k (or NMT_SHARED). Prints one line per output compared, then
# "N same, N differ"; exit 0 when none differs.
set -euo pipefail
old=$(cd "${1:?usage: same_outputs.sh OLD_BIN [NEW_BIN]}" && pwd)
new=$(cd "${2:-$(dirname "$0")/../bin}" && pwd)
data=${NMT_SHARED:-$(dirname "$0")/../../shared}/data/multi30k
data=$(cd "$data" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run of every tool into $work/$1 with the tools of $2; each output a file.
run_all() {
  local out=$work/$1 tools=$2
  mkdir -p "$out" && cd "$out"
  export PATH="$tools:$PATH"
  head -n 3000 "$data/train.fr" > tr.fr; head -n 3000 "$data/train.en" > tr.en
  head -n 60 "$data/val.fr" > va.fr; head -n 60 "$data/val.en" > va.en
  head -n 80 "$data/test_2016_flickr.fr" > te.fr; head -n 80 "$data/test_2016_flickr.en" > te.en
  for s in tr va te; do
    nmt-tokenize -l fr -a --no-escape -o $s.tok.fr $s.fr
    nmt-tokenize -l en -a --no-escape -o $s.tok.en $s.en
  done
  nmt-tokenize -d -l en -o te.detok.en te.tok.en
  nmt-clean --moses tr.tok fr en tr.clean 1 50 2> clean.log
  nmt-bpe learn -s 1500 -o codes tr.tok.fr tr.tok.en
  for s in tr va te; do for l in fr en; do nmt-bpe apply -c codes -o $s.bpe.$l $s.tok.$l; done; done
  local common=(--train-sets tr.bpe.fr tr.bpe.en --valid-sets va.bpe.fr va.bpe.en --overwrite
                --bpe-codes codes --src-lang fr --tgt-lang en --tok-aggressive --tok-no-escape
                --dim-emb 32 --dim-rnn 48 --mini-batch 32 --after-batches 40 --valid-freq 20 --seed 7)
  nmt-train "${common[@]}" -m luong1.bin --cpu-threads 1 2> luong1.log
  nmt-train "${common[@]}" -m luong2.bin --cpu-threads 2 2> luong2.log
  nmt-train "${common[@]}" -m rnnsearch.bin --type rnnsearch --enc-cell atr --dec-cell atr \
    --enc-type bidirectional --attention mlp 2> rnnsearch.log
  nmt-train "${common[@]}" -m srnmt.bin --type srnmt --enc-cell srnmt --dec-cell srnmt \
    --attention mlp 2> srnmt.log
  nmt-train "${common[@]}" -m rhn.bin --type rhn --enc-cell rhn --dec-cell rhn \
    --enc-cell-depth 2 --dec-cell-depth 2 --reconstructor-beta 1 2> rhn.log
  nmt-train "${common[@]}" -m deepatt.bin --type deep-att --fast-forward --peephole \
    --enc-depth 2 --dec-depth 2 --attention mlp 2> deepatt.log
  nmt-model average luong1.bin luong2.bin -o avg.bin
  nmt-model info luong1.bin > info.txt
  for m in luong1 rnnsearch srnmt rhn deepatt; do
    nmt-decode -m $m.bin -b 5 -i te.bpe.fr -o $m.beam.en --n-best --alignment soft
    nmt-decode -m $m.bin -b 1 -i te.bpe.fr -o $m.greedy.en
    nmt-score -m $m.bin te.bpe.fr te.bpe.en > $m.score.txt
  done
  nmt-decode -m luong1.bin --gemm-type int8 -i te.bpe.fr -o int8.en
  nmt-decode -m luong1.bin --shortlist 200 -b 3 -i te.bpe.fr -o shortlist.en
  nmt-decode -m luong1.bin --raw --replace-unk -i te.fr -o raw.en
  nmt-decode -m luong1.bin luong2.bin --weights 0.6 0.4 -i te.bpe.fr -o ensemble.en --n-best
  nmt-bleu te.detok.en -i raw.en -m bleu chrf ter -f text > bleu.txt
  nmt-bleu te.detok.en -i raw.en -f json > bleu.json
  rm -f ./*.log # progress lines carry times
}

# A model file's sections as text lines, its `origin` left out.
sections() {
  python3 - "$1" <<'PY'
import hashlib, struct, sys
b = open(sys.argv[1], 'rb').read()
n = struct.unpack_from('<I', b, 12)[0]
o = 24
for _ in range(n):
    tag = b[o:o + 8].rstrip(b'\0').decode(); L = struct.unpack_from('<Q', b, o + 8)[0]
    data = b[o + 16:o + 16 + L]
    if tag == 'state':  # a checkpoint's training state: its elapsed time is the clock's
        data = b''.join(l for l in data.splitlines(True) if not l.startswith(b'elapsed='))
    if tag != 'origin':
        print(tag, len(data), hashlib.sha256(data).hexdigest())
    o += 16 + L
PY
}

run_all old "$old"
run_all new "$new"
same=0 differ=0
cd "$work/old"
for f in $(find . -type f | sort); do
  if [[ $f == *.bin || $f == *.ckpt ]] && cmp -s <(sections "$f") <(sections "../new/$f"); then r=same
  elif [[ $f != *.bin && $f != *.ckpt ]] && cmp -s "$f" "../new/$f"; then r=same
  else r=DIFFERS; fi
  [ $r = same ] && same=$((same + 1)) || differ=$((differ + 1))
  echo "$r ${f#./}"
done
echo "$same same, $differ differ"
[ $differ = 0 ]
