#!/usr/bin/env bash
# Seed corpora for the fuzz harnesses, made with the project's own tools:
#   tests/fuzz/seeds.sh BIN CORPUS   (BIN holds nmt-*, CORPUS gets one folder per harness)
# Model files and checkpoints go in without their last 8 bytes (the checksum):
# the harnesses append it again (fuzz_util.h).
set -euo pipefail
bin=$(cd "$1" && pwd)
out=$2
export PATH="$bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"/{model,checkpoint,tstream,codes,vocab,tsv}

printf 'the cat sat on the mat\na cat and a dog\nthe dog sat\n' > "$tmp/en"
printf 'le chat est sur le tapis\nun chat et un chien\nle chien est assis\n' > "$tmp/fr"

# codes and subword-nmt vocabularies
nmt-bpe learn -s 20 2>/dev/null -i "$tmp/en" "$tmp/fr" -o "$tmp/codes"
cp "$tmp/codes" "$out/codes/learned"
printf 'a b\nab c\n' > "$out/codes/v01"
nmt-bpe apply -c "$tmp/codes" "$tmp/en" -o "$tmp/en.bpe"
nmt-bpe apply -c "$tmp/codes" "$tmp/fr" -o "$tmp/fr.bpe"
nmt-bpe vocab "$tmp/en.bpe" -o "$out/vocab/bpe-counts"
nmt-bpe vocab --nmt "$tmp/en.bpe" -o "$out/vocab/nmt"

# tensor streams: an id stream under the vocabulary tstream_fuzz.c has built in
printf '<pad>\n<unk>\n<s>\n</s>\na\nb\n' > "$tmp/ids.vocab"
printf 'a b\n\nb a c\n' > "$tmp/ids.txt"
nmt-bpe apply -c "$out/codes/v01" --ids "$tmp/ids.vocab" "$tmp/ids.txt" -o "$out/tstream/ids"
nmt-bpe apply -z -c "$out/codes/v01" --ids "$tmp/ids.vocab" "$tmp/ids.txt" -o "$out/tstream/ids.zst"

# models and checkpoints: one tiny model per family, one step each
for fam in luong srnmt rnnsearch rhn deep-att deep-ed; do
  nmt-train -q --type "$fam" --train-sets "$tmp/fr.bpe" "$tmp/en.bpe" -m "$tmp/$fam.bin" \
    --dim-emb 4 --dim-rnn 4 --after-batches 1 --valid-freq 0 --cpu-threads 1
  head -c -8 "$tmp/$fam.bin" > "$out/model/$fam"
  head -c -8 "$tmp/$fam.bin.ckpt" > "$out/checkpoint/$fam"
done
nmt-train -q --train-sets "$tmp/fr.bpe" "$tmp/en.bpe" -m "$tmp/full.bin" --bpe-codes "$tmp/codes" \
  --src-lang fr --tgt-lang en --dim-emb 4 --dim-rnn 4 --after-batches 1 --valid-freq 0 --cpu-threads 1
head -c -8 "$tmp/full.bin" > "$out/model/codes-and-langs"

# TSV and CSV: the first byte picks the format (tsv_fuzz.c: odd is CSV)
paste "$tmp/fr" "$tmp/en" | sed '1s/^/0/' > "$out/tsv/tsv"
{ printf 0; paste "$tmp/fr" "$tmp/en" | zstd -q -c; } > "$out/tsv/tsv.zst"
printf '1fr,en\n"le ""chat""",the cat\n"deux\nlignes",two\r\n' > "$out/tsv/csv"

# websocket frames (ws_fuzz.c: the first byte picks the pieces the bytes arrive in); a
# client's frames, masked here with the key 0: a message, a fragmented one with a ping
# and a close, 16- and 64-bit lengths, and issue 27's 2^64-1 continuation
mkdir -p "$out/ws"
m='\x00\x00\x00\x00'
printf "\x03\x81\x83$m"'1 2' > "$out/ws/text"
printf "\x00\x01\x82$m"'1 '"\x89\x84$m"'ping'"\x80\x81$m"'2'"\x88\x82$m\x03\xe8" > "$out/ws/fragments"
{ printf "\xff\x82\xfe\x00\x80$m%128s" ''; printf "\x81\xff\x00\x00\x00\x00\x00\x00\x00\x03$m"'1 2'; } > "$out/ws/lengths"
printf "\x05\x01\x81$m"'1'"\x80\xff\xff\xff\xff\xff\xff\xff\xff\xff$m"'xxxx' > "$out/ws/wrap"
# nmt-serve's request bodies (request_fuzz.c: at most 8 sentences of 6 words, beam 4)
mkdir -p "$out/request"
printf '{"text": "le chat"}' > "$out/request/one"
printf '{"text": ["le chat", "", "un chien"], "beam_size": 3, "n_best": true}' > "$out/request/list"
printf '{"text": ["le chat \\u00e9"], "alignment": "svg"}' > "$out/request/align"
printf '{"text": "a", "text": "b"}' > "$out/request/duplicate"
