# nmt-bleu rows (sourced by bench/run). The hypothesis is the reference with
# about one word in seven dropped (a deterministic drop15-like transformation):
#   awk '{o=""; for (i=1;i<=NF;i++) if ((NR*7+i)%7) o=o (o==""?"":" ") $i; print o}'
# raw text for sacreBLEU-style metrics, the tokenized text for multi-bleu.
for f in train10.en train10.tok.en; do
  [ -s "$BENCH_DIR/$f.drop" ] ||
    awk '{o=""; for (i=1;i<=NF;i++) if ((NR*7+i)%7) o=o (o==""?"":" ") $i; print o}' \
      "$BENCH_DIR/$f" >"$BENCH_DIR/$f.drop"
done
bench "nmt-bleu BLEU 13a" "sacreBLEU BLEU 13a" 33.2 290000 \
  "nmt-bleu $BENCH_DIR/train10.en -i $BENCH_DIR/train10.en.drop -m bleu -q"
bench "nmt-bleu chrF" "sacreBLEU chrF" 54.6 290000 \
  "nmt-bleu $BENCH_DIR/train10.en -i $BENCH_DIR/train10.en.drop -m chrf -q"
bench "nmt-bleu TER" "-" - 290000 \
  "nmt-bleu $BENCH_DIR/train10.en -i $BENCH_DIR/train10.en.drop -m ter -q"
bench "nmt-bleu --multi-bleu (tokenized)" "multi-bleu.perl" 16.6 290000 \
  "nmt-bleu --multi-bleu $BENCH_DIR/train10.tok.en < $BENCH_DIR/train10.tok.en.drop"
