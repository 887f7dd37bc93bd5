# Streaming tools keep memory flat in the input size: peak RSS on Multi30k train
# (29,000 lines) beside train x10 (290,000 lines, the rows above).
M=$SHARED/data/multi30k/train.en
T=$SHARED/refs/bpe/train.tok.en
bench "nmt-tokenize -l en -j 2, 1x input (memory flatness)" "-" - 29000 "nmt-tokenize -l en -j 2 $M"
bench "nmt-bpe apply, 1x input (memory flatness)" "-" - 29000 "nmt-bpe apply -c $SHARED/refs/bpe/codes.joint.8000 $T"
bench "nmt-bleu BLEU, 1x input (memory flatness)" "-" - 29000 "nmt-bleu $M -i $M -m bleu"
