# nmt-bpe (sourced by bench/run). References: fastBPE (multi-threaded C++) as
# REF; subword-nmt's time is in the label (learn 4.93 s, apply 3.34 s).
bench "nmt-bpe learn -s 8000 (fr+en, 580k lines; subword-nmt 4.93 s)" "fastBPE learnbpe 8000" 0.66 580000 \
  "nmt-bpe learn -s 8000 -o $BENCH_DIR/bpe.codes $BENCH_DIR/train10.tok.fr $BENCH_DIR/train10.tok.en"
bench "nmt-bpe apply -c codes.joint.8000 (en; subword-nmt 3.34 s)" "fastBPE applybpe" 0.57 290000 \
  "nmt-bpe apply -c $SHARED/refs/bpe/codes.joint.8000 $BENCH_DIR/train10.tok.en -o $BENCH_DIR/bpe.out.en"
# The same with --ids: a tensor stream of token ids (training's fast input).
nmt-bpe vocab --nmt "$BENCH_DIR/bpe.out.en" -o "$BENCH_DIR/bpe.vocab.en"
bench "nmt-bpe apply -c codes.joint.8000 --ids vocab (en, id stream)" "fastBPE applybpe" 0.57 290000 \
  "nmt-bpe apply -c $SHARED/refs/bpe/codes.joint.8000 --ids $BENCH_DIR/bpe.vocab.en $BENCH_DIR/train10.tok.en -o $BENCH_DIR/bpe.ids.en"
