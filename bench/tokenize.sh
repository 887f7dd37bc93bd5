# nmt-tokenize rows (sourced by bench/run). Reference walls: ../shared/refs/README.md.
N=290000
bench "nmt-tokenize -l en -j 1" "tokenizer.perl -l en" 4.86 $N "nmt-tokenize -l en -j 1 $BENCH_DIR/train10.en"
bench "nmt-tokenize -l en -j 2" "tokenizer.perl -l en" 4.86 $N "nmt-tokenize -l en -j 2 $BENCH_DIR/train10.en"
bench "nmt-tokenize --normalize -a --no-escape -j 1" "normalize-punctuation.perl | tokenizer.perl -a -no-escape" 6.87 $N \
  "nmt-tokenize -l en --normalize -a --no-escape -j 1 $BENCH_DIR/train10.en"
bench "nmt-tokenize --normalize -a --no-escape -j 2" "normalize-punctuation.perl | tokenizer.perl -a -no-escape" 6.87 $N \
  "nmt-tokenize -l en --normalize -a --no-escape -j 2 $BENCH_DIR/train10.en"
bench "nmt-tokenize --normalize-only -j 1" "normalize-punctuation.perl" 2.08 $N \
  "nmt-tokenize -l en --normalize-only -j 1 $BENCH_DIR/train10.en"
# no reference timing for detokenizer.perl: the ratio uses tokenizer.perl's as a stand-in
bench "nmt-tokenize -d -j 1" "tokenizer.perl -l en (no detokenizer.perl timing)" 4.86 $N "nmt-tokenize -l en -d -j 1 $BENCH_DIR/train10.tok.en"
bench "nmt-tokenize -d -j 2" "tokenizer.perl -l en (no detokenizer.perl timing)" 4.86 $N "nmt-tokenize -l en -d -j 2 $BENCH_DIR/train10.tok.en"
