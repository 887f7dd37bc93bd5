/* Damaged SentencePiece models (issue 27): nmt_spm_load checks a model before
 * libsentencepiece sees it (text/spm_check.h), so each is refused with one
 * line or works, and none crashes a tool. Crafted normalizer tries show each
 * rule; 200 seeded byte-flipped variants of a Multi30k model go through
 * nmt-spm encode, nmt-train --vocabs and the loader itself. */
#include "text/spm_case.h"
#include "base/err.h"
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
