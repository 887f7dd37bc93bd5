/* Damaged SentencePiece models (issue 27): nmt_spm_load checks a model before
 * libsentencepiece sees it (text/spm_check.h), so each is refused with one
 * line or works, and none crashes a tool. Crafted normalizer tries show each
 * rule; 200 seeded byte-flipped variants of a Multi30k model go through
 * nmt-spm encode, nmt-train --vocabs and the loader itself. */
#include "text/spm_case.h"
#include "base/err.h"
#include "base/utf8.h"
#include "io/io.h"
#include "models/model.h"
#include "test.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void put_varint(nmt_strbuf *b, size_t v) {
  for (; v >= 0x80; v >>= 7) nmt_strbuf_addc(b, (char)((v & 0x7f) | 0x80));
  nmt_strbuf_addc(b, (char)v);
}

static void put_le32(nmt_strbuf *b, uint32_t v) {
  for (int i = 0; i < 4; i++) nmt_strbuf_addc(b, (char)(v >> 8 * i));
}

static char *tiny_model(size_t *len) {
  char *bytes = NULL;
  CHECK_INT(spm_case_train(&bytes, len, 40, "unigram"), NMT_OK);
  return bytes;
}

/* The tiny model with a normalizer_spec appended whose precompiled_charsmap is
 * map: protobuf merges it into the model's own, so the library normalizes with it. */
static char *with_charsmap(size_t *len, const nmt_strbuf *map) {
  nmt_strbuf spec = {0}, tail = {0};
  nmt_strbuf_addc(&spec, 0x12); /* NormalizerSpec field 2, bytes */
  put_varint(&spec, map->len);
  nmt_strbuf_add(&spec, map->s, map->len);
  nmt_strbuf_addc(&tail, 0x1a); /* ModelProto field 3, normalizer_spec */
  put_varint(&tail, spec.len);
  nmt_strbuf_add(&tail, spec.s, spec.len);
  size_t n = 0;
  char *tiny = tiny_model(&n), *model = malloc(n + tail.len);
  if (tiny && model) memcpy(model, tiny, n), memcpy(model + n, tail.s, tail.len);
  free(tiny), free(spec.s), free(tail.s);
  *len = n + tail.len;
  return model;
}

/* A charsmap of the trie units[0..256) (its size first) and the strings "\0". */
static nmt_strbuf trie_map(const uint32_t *units) {
  nmt_strbuf map = {0};
  put_le32(&map, 256 * 4);
  for (int i = 0; i < 256; i++) put_le32(&map, units[i]);
  nmt_strbuf_addc(&map, 0);
  return map;
}

/* A trie whose root leads through k bytes 'a' (states 2, 4, 6, ...), each a
 * match whose string is the empty one; with cycle the first 'a' leads back to
 * the root's state. The Darts-clone units: offset << 10 | has_leaf << 8 | label;
 * a value unit, like a free one, has the top bit. */
static void chain(uint32_t *u, int k, bool cycle) {
  for (int i = 0; i < 256; i++) u[i] = 0x80000000u; /* free: no byte's label */
  u[0] = 2 << 10; /* the root's state: 0 ^ 2 */
  for (int j = 0; j < k; j++) {
    uint32_t from = 2 + 2 * j, to = cycle ? from : from + 2, at = from ^ 'a';
    u[at] = (at ^ to) << 10 | 1 << 8 | 'a';
    u[to] = 0x80000000u; /* the value 0: the string at byte 0 */
  }
}

/* The model loads (and normalizes 40 'a's to nothing), or is refused with a
 * message containing why; freed. */
static void check_model(char *bytes, size_t len, const char *why) {
  nmt_spm *s = NULL;
  int st = nmt_spm_load(&s, bytes, len, "t.model");
  if (!why) {
    CHECK_INT(st, NMT_OK);
    nmt_strbuf out = {0};
    const char *a40 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    if (s) CHECK_INT(nmt_spm_encode(s, a40, 40, false, &out), NMT_OK);
    CHECK_INT((int)out.len, 0);
    nmt_strbuf_free(&out);
  } else {
    CHECK_INT(st, NMT_EINPUT);
    if (!strstr(nmt_errmsg(), why) || strncmp(nmt_errmsg(), "t.model: not a SentencePiece model (byte ", 41))
      T_FAIL("got '%s', expected '%s'", nmt_errmsg(), why);
  }
  nmt_spm_free(s);
  free(bytes);
}

static void check_trie(const uint32_t *units, const char *why) {
  nmt_strbuf map = trie_map(units);
  size_t len;
  char *bytes = with_charsmap(&len, &map);
  check_model(bytes, len, why);
  free(map.s);
}

TEST(spm_check_normalizer_trie) {
  uint32_t u[256];
  chain(u, 32, false); /* as many matches as the library keeps (kMaxTrieResultsSize) */
  check_trie(u, NULL);
  chain(u, 33, false);
  check_trie(u, "the normalizer's trie has more than 32 matches on one path");
  chain(u, 1, true);
  check_trie(u, "the normalizer's trie has a cycle through unit 2");
  chain(u, 1, false);
  u[0] = 256 << 10; /* the root's state in a block past the trie */
  check_trie(u, "the normalizer's trie points at unit 511 of its 256");
  chain(u, 1, false);
  u[2 ^ 'a'] = (2 ^ 'a' ^ 300) << 10 | 'a'; /* a child past it */
  check_trie(u, "the normalizer's trie points at unit 300 of its 256");
  chain(u, 1, false);
  u[4] |= 5; /* the string at byte 5 of 1 */
  check_trie(u, "the normalizer's trie points at byte 5 of its 1-byte strings, past their last NUL");
}

TEST(spm_check_charsmap_and_pieces) {
  uint32_t u[256];
  chain(u, 1, false);
  nmt_strbuf map = trie_map(u);
  map.s[1] = 8; /* a trie of 2048 bytes */
  size_t len;
  char *bytes = with_charsmap(&len, &map);
  check_model(bytes, len, "the normalizer's trie has 2048 bytes in a 1029-byte charsmap");
  map.len = 3;
  bytes = with_charsmap(&len, &map);
  check_model(bytes, len, "the normalizer's charsmap has 3 bytes");
  free(map.s);
  /* the fourth piece (after <unk> <s> </s>), its first byte NUL: an empty key to the library */
  bytes = tiny_model(&len);
  size_t at = 0;
  for (int i = 0; i < 3 && bytes; i++) at += 2 + (unsigned char)bytes[at + 1];
  if (bytes) bytes[at + 4] = 0; /* tag, length, the piece's tag and length, its first byte */
  if (bytes) check_model(bytes, len, "a piece has a NUL byte");
  /* a field that runs past the end */
  char *cut = malloc(4);
  memcpy(cut, "\n\005ab", 4);
  check_model(cut, 4, "byte 0: field 1 runs past its message");
}

/* A model file that embeds a damaged source model (as nmt-train --vocabs did
 * before it checked them): nmt-decode, nmt-spm and the loader refuse it with
 * one line when they open it, before the library sees it. */
TEST(spm_check_embedded_model) {
  uint32_t u[256];
  chain(u, 1, true);
  nmt_strbuf map = trie_map(u);
  size_t len, tiny_len;
  char *bad = with_charsmap(&len, &map), *tiny = tiny_model(&tiny_len);
  nmt_spm *s = NULL;
  nmt_vocab *v[2] = {NULL, NULL};
  if (tiny) CHECK_INT(nmt_spm_load(&s, tiny, tiny_len, "tiny"), NMT_OK);
  for (int i = 0; i < 2 && s; i++) CHECK_INT(nmt_spm_vocab(&v[i], s, "tiny"), NMT_OK);
  nmt_spm_free(s);
  free(map.s);
  nmt_model m;
  nmt_model_opts o = {.dim_emb = 4, .dim_rnn = 6, .enc_depth = 1, .dec_depth = 1, .attention = "general"};
  if (!bad || !v[0] || !v[1] || nmt_model_create(&m, &o, v[0], v[1], 7)) {
    T_FAIL("no model: %s", nmt_errmsg());
    free(bad), free(tiny), nmt_vocab_free(v[0]), nmt_vocab_free(v[1]);
    return;
  }
  m.spm[0] = bad, m.spm_len[0] = len, m.spm[1] = tiny, m.spm_len[1] = tiny_len;
  const char *path = t_tmp("m.bin");
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  CHECK_INT(nmt_model_open_spm(&m, "m.bin"), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "m.bin: srcspm: not a SentencePiece model (byte ") &&
        strstr(nmt_errmsg(), ": the normalizer's trie has a cycle through unit 2)"));
  nmt_model_free(&m);
  const char *why = "not a SentencePiece model \\(byte [0-9]+: the normalizer's trie has a cycle through unit 2\\)$";
  CHECK_INT(t_sh("cd '%s' && echo aaa | nmt-decode -m m.bin --raw 2> e; test $? = 2 && test $(wc -l < e) = 1 && "
                 "grep -Eq \"^nmt-decode: m.bin: srcspm: %s\" e", t_tmpdir(), why), 0);
  CHECK_INT(t_sh("cd '%s' && echo aaa | nmt-spm encode -m m.bin 2> e; test $? = 2 && test $(wc -l < e) = 1 && "
                 "grep -Eq \"^nmt-spm: m.bin: %s\" e", t_tmpdir(), why), 0);
}

/* ---- 200 byte-flipped variants of a Multi30k model ---- */

typedef struct {
  nmt_reader *r;
  int left;
} some_lines;

static int next_line(void *ctx, const char **line, size_t *n) {
  some_lines *l = ctx;
  char *s;
  if (!l->left--) return 0;
  int k = nmt_reader_next(l->r, &s, n);
  *line = s;
  return k;
}

/* A model of Multi30k's first 1000 English training sentences, 200 pieces. */
static char *multi30k_model(size_t *len) {
  some_lines l = {NULL, 1000};
  char *bytes = NULL;
  CHECK_INT(nmt_reader_open(&l.r, t_shared("data/multi30k/train.en")), NMT_OK);
  nmt_spm_train_opts o = {200, "unigram", 0.9995, 1, next_line, &l};
  if (l.r) CHECK_INT(nmt_spm_train(&o, &bytes, len), NMT_OK);
  nmt_reader_close(l.r);
  return bytes;
}

/* Where the normalizer's trie lies: after its name, nmt_nfkc, the field
 * precompiled_charsmap (0x12, a varint length), whose first 4 bytes are the
 * trie's size. */
static bool find_trie(const char *m, size_t len, size_t *at, size_t *size) {
  const char *name = memmem(m, len, "nmt_nfkc", 8);
  if (!name || name[8] != 0x12) return false;
  const unsigned char *p = (const unsigned char *)name + 9;
  while (*p & 0x80) p++;
  p++;
  *size = p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
  *at = (size_t)((const char *)p + 4 - m);
  return *at + *size <= len;
}

static uint64_t rnd(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* Variant v of model m: 1 to 3 bytes changed (one bit, or XOR a random byte),
 * each anywhere in the file or, three times in four, in the normalizer's trie,
 * where the damage that crashes the library lies. */
static void flip(char *v, const char *m, size_t len, size_t trie, size_t size, uint64_t *seed) {
  memcpy(v, m, len);
  for (int k = 1 + (int)(rnd(seed) % 3); k > 0; k--) {
    size_t at = rnd(seed) % 4 ? trie + rnd(seed) % size : rnd(seed) % len;
    v[at] ^= (char)(rnd(seed) % 2 ? 1u << rnd(seed) % 8 : 1 + rnd(seed) % 255);
  }
}

/* Where the keys of the NFKC map lie: Latin-1 to Hebrew, Latin extended and
 * Greek to CJK compatibility, compatibility ideographs to full width, math
 * alphanumerics, enclosed alphanumerics, the CJK compatibility supplement. */
static const uint32_t nfkc_keys[][2] = {{0xa0, 0x600},     {0x1e00, 0x3400},  {0xf900, 0xfff0},
                                         {0x1d400, 0x1d800}, {0x1f100, 0x1f300}, {0x2f800, 0x2fa20}};

/* Append each character of nfkc_keys, 64 a line: the searches of the normalizer
 * then follow most of its trie. */
static void put_nfkc_keys(FILE *f) {
  int k = 0;
  for (size_t r = 0; r < sizeof nfkc_keys / sizeof *nfkc_keys; r++)
    for (uint32_t c = nfkc_keys[r][0]; c < nfkc_keys[r][1]; c++) {
      char b[4];
      fwrite(b, 1, (size_t)nmt_utf8_encode(c, b), f);
      if (++k % 64 == 0) fputc('\n', f);
    }
  fputc('\n', f);
}

/* The case's file name + suffix, NUL-terminated (malloc'd; "" when there is none). */
static char *slurp(const char *name, const char *suffix, size_t *n) {
  char path[64], *s, *d;
  snprintf(path, sizeof path, "%s%s", name, suffix);
  if (!(s = t_slurp(t_tmp(path), n))) *n = 0;
  if ((d = realloc(s, *n + 1))) d[*n] = 0;
  else free(s);
  return d;
}

static bool one_line(const char *s, size_t n, const char *prefix) {
  return n > strlen(prefix) && !strncmp(s, prefix, strlen(prefix)) && strchr(s, '\n') == s + n - 1;
}

/* The variant `name` through the tools: nmt-spm encode ended with s, and where
 * it refused the model, nmt-train --vocabs with t. Each refused it with one
 * line (nmt-train the same one, writing no model) or worked. Returns nmt-spm's
 * stderr (malloc'd), NULL when it crashed. */
static char *check_tools(const char *name, int s, int t) {
  size_t n, nt, nb;
  char *err = slurp(name, ".spm", &n), refused[64];
  if (!err || !((s == 0 && !n) || (s == 2 && one_line(err, n, "nmt-spm: ")))) {
    T_FAIL("%s: nmt-spm encode ended with %d saying '%s'", name, s, err ? err : "");
    free(err);
    return NULL;
  }
  snprintf(refused, sizeof refused, "nmt-spm: %s: ", name);
  if (s == 2 && !strncmp(err, refused, strlen(refused))) {
    char *terr = slurp(name, ".train", &nt), *bin = slurp(name, ".bin", &nb);
    if (t != 2 || !terr || !one_line(terr, nt, "nmt-train: ") || strcmp(terr + 11, err + 9) || nb)
      T_FAIL("%s: nmt-train --vocabs ended with %d saying '%s', not nmt-spm's refusal", name, t, terr ? terr : "");
    free(terr), free(bin);
  }
  return err;
}

/* The variant v[0..len) through nmt_spm_load itself: refused as nmt-spm
 * refused it (its stderr spm_err), or each line of text encodes and decodes. */
static void check_load(const char *v, size_t len, const char *name, const char *spm_err, char *text) {
  nmt_spm *s = NULL;
  int st = nmt_spm_load(&s, v, len, name);
  char refused[64];
  snprintf(refused, sizeof refused, "nmt-spm: %s: ", name);
  if (!strncmp(spm_err, refused, strlen(refused))) {
    if (st != NMT_EINPUT || strncmp(spm_err + 9, nmt_errmsg(), strlen(spm_err) - 10))
      T_FAIL("%s: loaded with %d saying '%s'; nmt-spm said '%s'", name, st, nmt_errmsg(), spm_err);
    nmt_spm_free(s);
    return;
  }
  CHECK_INT(st, NMT_OK);
  nmt_vocab *voc = NULL;
  if (s) CHECK_INT(nmt_spm_vocab(&voc, s, name), NMT_OK);
  nmt_vocab_free(voc);
  for (char *line = text, *end; s && (end = strchr(line, '\n')); line = end + 1) {
    nmt_strbuf pieces = {0}, back = {0};
    if (!nmt_spm_encode(s, line, (size_t)(end - line), false, &pieces) && pieces.len)
      nmt_spm_decode(s, pieces.s, pieces.len, false, &back);
    nmt_strbuf_free(&pieces), nmt_strbuf_free(&back);
  }
  nmt_spm_free(s);
}

TEST(spm_check_damaged_multi30k) {
  size_t len, trie, size, n;
  char *m = multi30k_model(&len), *v = malloc(len), name[32];
  if (!m || !v || !find_trie(m, len, &trie, &size)) {
    T_FAIL("no model of Multi30k with an nmt_nfkc charsmap");
    free(m), free(v);
    return;
  }
  /* the text: three Multi30k sentences of each language, and the characters NFKC rewrites */
  CHECK_INT(t_sh("for l in en de fr cs; do head -n 3 '%s'.$l; done > '%s'", t_shared("data/multi30k/val"), t_tmp("text")), 0);
  FILE *f = fopen(t_tmp("text"), "a");
  if (f) put_nfkc_keys(f), fclose(f);
  uint64_t seed = 27;
  for (int i = 0; i < 200; i++) {
    flip(v, m, len, trie, size, &seed);
    snprintf(name, sizeof name, "v%03d.model", i);
    CHECK((f = fopen(t_tmp(name), "wb")) && fwrite(v, 1, len, f) == len && !fclose(f));
  }
  /* the tools: nmt-spm encode; where it refuses the model, nmt-train --vocabs */
  CHECK_INT(t_sh("cd '%s' && for f in v*.model; do nmt-spm encode -m $f -i text > /dev/null 2> $f.spm; s=$?; t=-1; "
                 "if grep -q \"^nmt-spm: $f: \" $f.spm; then nmt-train --train-sets text text --vocabs $f $f "
                 "-m $f.bin 2> $f.train; t=$?; fi; echo $f $s $t; done > got", t_tmpdir()), 0);
  char *got = slurp("got", "", &n), *text = slurp("text", "", &n), *line = got;
  seed = 27;
  for (int i = 0; i < 200 && got && text; i++) {
    flip(v, m, len, trie, size, &seed);
    int s, t, used;
    if (sscanf(line, "%31s %d %d%n", name, &s, &t, &used) != 3) {
      T_FAIL("got: '%.40s'", line);
      break;
    }
    line += used + 1;
    char *err = check_tools(name, s, t);
    if (err) check_load(v, len, name, err, text); /* what crashed a tool would crash this test */
    free(err);
  }
  free(got), free(text), free(m), free(v);
}
