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

# The GEMMs of one training step of the peer config (B 64, 16 steps), each weighted by
# how often the step runs it (the recurrent dx as nn_recur runs it, a plain GEMM on Wᵀ):
# the shapes the core's ceiling and best OpenBLAS kernel are measured on.
GEMM_SHAPES=(1024x1024x256:NN*2 64x1024x256:NN*32 1024x512x512:NN 1024x2048x256:NN
  64x2048x1024:NN*16 64x512x1024:NN*16 1024x5012x512:NN 1024x512x5012:NT 512x5012x1024:TN
  64x1024x512:NT*16 1024x512x64:TN*16 64x1024x2048:NN*16 1024x2048x1024:TN 1024x256x2048:NT
  256x2048x1024:TN 1024x512x512:NT 512x512x1024:TN 64x256x1024:NN*32 256x1024x1024:TN*2
  1024x256x1024:NT*2 256x1024x1024:TN*2)

# gemm_rates SECONDS SHAPE...: "ENGINE GFLOP/s", the mix's rate (bench/sgemm.c), under
# every GEMM this core runs, NMT_THREADS threads each: OpenBLAS's own kernel, each other
# kernel the core's features allow (Prescott always; Haswell and Zen with AVX2 and FMA;
# SkylakeX with AVX-512 F, BW and VL, Cooperlake with BF16 as well: a kernel the core
# lacks instructions for would crash), oneDNN, and nmt's own choice (nn_gemm). Each is the
# median of GEMM_READS (3) readings taken in turns, every engine once a turn: one reading
# each swung the best of them 131-169 GFLOP/s between runs on a Zen 3, and a drift in the
# machine's speed then favoured whichever engine ran last.
gemm_rates() {
  local r e reads=${GEMM_READS:-3} all=
  for ((r = 0; r < reads; r++)); do all+=$(gemm_reading "$@")$'\n' || return 1; done
  for e in $(awk 'NF && !seen[$1]++ { print $1 }' <<<"$all"); do # in the first reading's order
    echo "$e $(awk -v e="$e" '$1 == e { print $2 }' <<<"$all" | median)"
  done
}

# gemm_reading SECONDS SHAPE...: one reading of every engine, as gemm_rates prints them.
gemm_reading() {
  local -x OPENBLAS_NUM_THREADS=${NMT_THREADS:-2} OMP_NUM_THREADS=${NMT_THREADS:-2}
  local flags ks=Prescott k native
  bench_cc sgemm || return 1
  flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
  [[ $flags == *" avx2 "* && $flags == *" fma "* ]] && ks+=" Haswell Zen"
  [[ $flags == *" avx512f "* && $flags == *" avx512bw "* && $flags == *" avx512vl "* ]] &&
    ks+=" SkylakeX" && [[ $flags == *" avx512_bf16 "* ]] && ks+=" Cooperlake"
  native=$(unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; gemm_rate -e openblas "$@") || return 1
  echo "$native"
  for k in $ks; do # the native kernel once
    [ "${native%% *}" = "openblas:$k" ] || OPENBLAS_CORETYPE=$k gemm_rate -e openblas "$@" || return 1
  done
  # no OpenBLAS pool beside oneDNN's OpenMP threads: its idle threads spin for a while
  # after start-up and took 90% of oneDNN's rate on short runs
  OPENBLAS_NUM_THREADS=1 gemm_rate -e onednn "$@" && gemm_rate -e nmt "$@"
}

# gemm_rate SGEMM_ARGS...: one engine's "ENGINE GFLOP/s".
gemm_rate() {
  local r
  r=$("$BENCH_DIR/sgemm" "$@") || return 1
  awk '/^sgemm engine/ { e = $3 } /^sgemm all/ { print e, $3 }' <<<"$r"
}

# gemm_ceiling SECONDS SHAPE...: the core's ceiling on the shapes, the best of gemm_rates,
# and the best OpenBLAS kernel, on one line: "GFLOP/s ENGINE KERNEL ENGINE=GFLOP/s,...".
gemm_ceiling() {
  local r
  r=$(gemm_rates "$@") || return 1
  awk '$2 > best { best = $2; by = $1 } $1 ~ /^openblas:/ && $2 > kr { kr = $2; k = substr($1, 10) }
    { all = all (NR > 1 ? "," : "") $1 "=" $2 } END { print best, by, k, all }' <<<"$r"
}

# best_kernel: sets NMT_BEST_KERNEL, unless set, to the OpenBLAS kernel with the best
# rate on GEMM_SHAPES (gemm_ceiling). The peers run on it, so that a kernel OpenBLAS
# picks for a core it does not know (Prescott) does not slow them. Call it outside $():
# the choice is made once a shell.
best_kernel() {
  [ -n "${NMT_BEST_KERNEL:-}" ] && return
  local c
  c=$(gemm_ceiling "${GEMM_SECS:-0.2}" "${GEMM_SHAPES[@]}") || return 1
  NMT_BEST_KERNEL=$(cut -d' ' -f3 <<<"$c")
}

# Run FN once per OpenBLAS kernel of NMT_KERNELS, side by side in one run: "native" (the
# CPU's own: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset), "best" (best_kernel),
# "Haswell", or any core type name; unset, the environment's as it is.
for_kernels() {
  local fn=$1 k
  [ -n "${NMT_KERNELS:-}" ] || { "$fn"; return; }
  for k in $NMT_KERNELS; do
    if [ "$k" = native ]; then (unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; "$fn") || return 1
    else
      [ "$k" != best ] || { best_kernel || return 1; k=$NMT_BEST_KERNEL; }
      (export OPENBLAS_CORETYPE=$k; "$fn") || return 1
    fi
  done
}
