# nmt-clean (sourced by bench/run). clean-corpus-n.perl has no reference timing.
bench "nmt-clean --min 1 --max 50 --ratio 9 (fr-en)" "clean-corpus-n.perl" - 290000 \
  "nmt-clean -q $BENCH_DIR/train10.tok.fr $BENCH_DIR/train10.tok.en -o $BENCH_DIR/clean.fr $BENCH_DIR/clean.en --min 1 --max 50 --ratio 9"
bench "nmt-clean --lc --dedupe (fr-en)" "-" - 290000 \
  "nmt-clean -q --lc --dedupe $BENCH_DIR/train10.tok.fr $BENCH_DIR/train10.tok.en -o $BENCH_DIR/clean.fr $BENCH_DIR/clean.en"
bench "nmt-clean --tsv (fr-en, one table)" "-" - 290000 \
  "paste $BENCH_DIR/train10.tok.fr $BENCH_DIR/train10.tok.en | nmt-clean -q --tsv"
