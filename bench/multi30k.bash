# Sourced by bench/train.sh and bench/decode.sh (not a bench of its own: bench/run
# sources only *.sh). multi30k_bpe makes the peer's data with our tools, once:
# Multi30k Fr→En, normalized + Moses-tokenized (-a --no-escape), joint BPE 8000 learned
# on train fr+en, applied to train, val and test2016 of both sides. Output: $M30K/*.bpe.{fr,en}.
# Also the settings both benches share when run alone (bench/run sets them first).
BENCH_DIR=${BENCH_DIR:-bench/out}
SHARED=${SHARED:-${NMT_SHARED:-../shared}}
PATH="${NMT_BIN:-$PWD/bin}:$PATH"
# on a GPU, nmt-train and nmt-decode of `make cuda` (the others are the CPU build's)
[ "${NMT_DEVICE:-cpu}" = cpu ] || PATH="${NMT_BIN:-$PWD/bin}/cuda:$PATH"
M30K=${M30K:-$BENCH_DIR/multi30k}
. bench/lib.sh # median

multi30k_bpe() {
  local data=$SHARED/data/multi30k L s
  [ -s "$M30K/test.bpe.en" ] && return 0
  mkdir -p "$M30K"
  for L in fr en; do
    for s in train val; do
      nmt-tokenize --normalize -l $L -a --no-escape -o "$M30K/$s.tok.$L" "$data/$s.$L"
    done
    nmt-tokenize --normalize -l $L -a --no-escape -o "$M30K/test.tok.$L" "$data/test_2016_flickr.$L"
  done
  nmt-bpe learn-joint -s 8000 -o "$M30K/codes" --vocab-out "$M30K/vocab.fr" "$M30K/vocab.en" \
    "$M30K/train.tok.fr" "$M30K/train.tok.en"
  for L in fr en; do
    for s in train val test; do
      nmt-bpe apply -c "$M30K/codes" -o "$M30K/$s.bpe.$L" "$M30K/$s.tok.$L"
    done
  done
}

# decode_models OUT THREADS: the models bench/decode.sh and bench/serve.sh decode with, once:
# ours (OUT/m.bin) and, unless NMT_PEER=0, the peer's (OUT/peer.pt), of the peer config
# trained one epoch.
decode_models() {
  local d=$M30K out=$1 th=$2
  [ -s "$out/m.bin" ] || nmt-train --train-sets "$d/train.bpe.fr" "$d/train.bpe.en" -m "$out/m.bin" --overwrite \
    --dim-emb 256 --dim-rnn 512 --enc-type bidirectional --attention general --dropout 0.3 \
    --mini-batch 64 --clip-norm 5 --max-length 80 --after-epochs 1 --cpu-threads "$th" \
    >"$out/train.log" 2>&1 || { echo "nmt-train failed: $(tail -n1 "$out/train.log")"; return 1; }
  [ "${NMT_PEER:-1}" = 0 ] || [ -s "$out/peer.pt" ] ||
    /usr/bin/python3 "$SHARED/peers/torch_rnn_nmt.py" train --train-src "$d/train.bpe.fr" \
      --train-tgt "$d/train.bpe.en" --val-src "$d/val.bpe.fr" --val-tgt "$d/val.bpe.en" \
      --epochs 1 --threads "$th" --save "$out/peer.pt" >"$out/peer-train.log" 2>&1 ||
    { echo "peer training failed: $(tail -n1 "$out/peer-train.log")"; return 1; }
}

# The peer needs Debian's python3-torch (see ../shared/peers/README.md); without it the
# benches run our side only and say so.
if [ -z "${NMT_PEER:-}" ] && ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "bench: python3-torch is not installed: the PyTorch peer is skipped (make bench-deps)" >&2
  NMT_PEER=0
fi

# bench_cc NAME: bench/NAME.c built against build/libnmt.a as $BENCH_DIR/NAME; rebuilt
# each time (0.1 s), so it follows the library.
bench_cc() {
  mkdir -p "$BENCH_DIR"
  cc -O2 -Ilib -o "$BENCH_DIR/$1" "bench/$1.c" build/libnmt.a -pthread -Wl,--as-needed \
    -lopenblas -ldnnl -lgomp -lm
}

# cores [cpu]: the GEMM engine, vector width and OpenBLAS core type the benches run on, as
# the environment selects them, and the CPU (bench/cores.c); `cpu`: the CPU alone.
cores() { bench_cc cores && "$BENCH_DIR/cores" "$@"; }

# Run FN once per OpenBLAS kernel of NMT_KERNELS, side by side in one run: "native" (the
# CPU's own: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset), "Haswell", or any core type
# name; unset, the environment's as it is.
for_kernels() {
  local fn=$1 k
  [ -n "${NMT_KERNELS:-}" ] || { "$fn"; return; }
  for k in $NMT_KERNELS; do
    if [ "$k" = native ]; then (unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; "$fn") || return 1
    else (export OPENBLAS_CORETYPE=$k; "$fn") || return 1; fi
  done
}
