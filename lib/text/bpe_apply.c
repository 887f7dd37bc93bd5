/* Segmenting text as apply_bpe.py does: per word, repeatedly merge the
 * adjacent pair with the lowest rank (all its non-overlapping occurrences,
 * left to right), drop "</w>", optionally undo merges that make units missing
 * from the vocabulary. Symbols are byte spans of the word plus the id of their
 * string, so a merge is one hash lookup of (left id, right id). Results are
 * cached per word unless dropout is on. */
#include "text/bpe.h"
#include "text/bpe_internal.h"
#include "base/err.h"
#include "base/utf8.h"
#include <stdlib.h>
#include <string.h>

typedef struct nmt_bpe_sym sym;

static const uint32_t NO_RANK = UINT32_MAX;

void nmt_bpe_set_dropout(nmt_bpe *b, double p, uint64_t seed) {
  b->dropout = p;
  for (int i = 0; i < 4; i++) { /* splitmix64 fills the xoshiro state */
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    b->rng[i] = z ^ (z >> 31);
  }
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256**: a double in [0, 1) */
static double rng_next(nmt_bpe *b) {
  uint64_t *s = b->rng, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return (double)(r >> 11) * 0x1.0p-53;
}

static int32_t sym_id(nmt_bpe *b, const char *s, size_t n, bool eow) {
  if (!eow) return nmt_strmap_find(b->syms, s, n);
  b->key.len = 0;
  if (nmt_strbuf_add(&b->key, s, n) || nmt_strbuf_add(&b->key, NMT_BPE_EOW, NMT_BPE_EOW_LEN)) return -1;
  return nmt_strmap_find(b->syms, b->key.s, b->key.len);
}

/* The initial symbols of w: its characters, the last one with "</w>" (0.2)
 * or followed by a separate "</w>" (0.1). Returns the count, -1 out of memory. */
static long split_chars(nmt_bpe *b, const char *w, size_t n) {
  if (b->sym_cap < n + 2) {
    sym *s = realloc(b->sym, (n + 2) * sizeof *s);
    if (!s) return -1;
    b->sym = s;
    b->sym_cap = n + 2;
  }
  long k = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    int len = nmt_utf8_decode(w + i, n - i, &cp);
    if (len <= 0) len = 1;
    bool last = i + (size_t)len == n;
    b->sym[k++] = (sym){(uint32_t)i, (uint32_t)(i + len), sym_id(b, w + i, (size_t)len, last && b->version == 2)};
    i += (size_t)len;
  }
  if (b->version == 1) b->sym[k++] = (sym){(uint32_t)n, (uint32_t)n, b->eow_id};
  return k;
}

/* Merge until no adjacent pair is a code (the loop of encode()). */
static long merge_all(nmt_bpe *b, long k, uint32_t *rank) {
  sym *s = b->sym;
  while (k > 1) {
    uint32_t best = NO_RANK;
    int32_t merged = -1;
    for (long i = 0; i + 1 < k; i++) {
      rank[i] = NO_RANK;
      if (s[i].id < 0 || s[i + 1].id < 0) continue;
      uint64_t *v = nmt_u64map_get(&b->pairs, (uint64_t)s[i].id << 32 | (uint32_t)s[i + 1].id);
      if (!v || (b->dropout > 0 && rng_next(b) <= b->dropout)) continue;
      rank[i] = (uint32_t)(*v >> 32);
      if (rank[i] < best) { best = rank[i]; merged = (int32_t)(uint32_t)*v; }
    }
    if (best == NO_RANK) break;
    long o = 0;
    for (long i = 0; i < k;) {
      if (i + 1 < k && rank[i] == best) {
        s[o++] = (sym){s[i].start, s[i + 1].end, merged};
        i += 2;
      } else {
        s[o++] = s[i++];
      }
    }
    k = o;
  }
  if (b->version == 1 && s[k - 1].start == s[k - 1].end) k--; /* a lone "</w>" */
  return k;
}

/* Append one output unit, preceded by "SEP " unless it is the word's first. */
static int put_unit(nmt_bpe *b, nmt_strbuf *out, bool *first, const char *s, size_t n) {
  if (!*first && (nmt_strbuf_add(out, b->sep, b->seplen) || nmt_strbuf_addc(out, ' '))) return -1;
  *first = false;
  return nmt_strbuf_add(out, s, n);
}

static bool in_vocab(nmt_bpe *b, const char *s, size_t n, bool with_sep) {
  nmt_strbuf *k = &b->key;
  k->len = 0;
  if (nmt_strbuf_add(k, s, n) || (with_sep && nmt_strbuf_add(k, b->sep, b->seplen))) return false;
  return nmt_strmap_find(b->vocab, k->s, k->len) >= 0;
}

/* n minus the bytes of its last four characters (Python's s[:-4]). */
static size_t drop4(const char *s, size_t n) {
  for (int c = 0; c < 4 && n; c++) {
    n--;
    while (n && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
  }
  return n;
}

/* recursive_split(): undo the merge that made s until units are known. */
static int rsplit(nmt_bpe *b, nmt_strbuf *out, bool *first, const char *s, size_t n, bool final) {
  int32_t id = sym_id(b, s, n, final);
  if (id < 0 || b->rev_left[id] < 0) return put_unit(b, out, first, s, n);
  const char *l = nmt_strmap_str(b->syms, b->rev_left[id]), *r = nmt_strmap_str(b->syms, b->rev_right[id]);
  size_t ln = nmt_strmap_len(b->syms, b->rev_left[id]), rn = nmt_strmap_len(b->syms, b->rev_right[id]);
  if (final) rn = drop4(r, rn);
  int st = in_vocab(b, l, ln, true) ? put_unit(b, out, first, l, ln) : rsplit(b, out, first, l, ln, false);
  if (st) return st;
  return in_vocab(b, r, rn, !final) ? put_unit(b, out, first, r, rn) : rsplit(b, out, first, r, rn, final);
}

typedef struct {
  nmt_bpe *b;
  nmt_strbuf *out;
  bool first;
} encode_ctx;

/* encode(): segment one glossary-free piece of a word into ctx->out. */
static int encode(void *vctx, const char *w, size_t n) {
  encode_ctx *c = vctx;
  nmt_bpe *b = c->b;
  uint32_t cp;
  if ((b->gloss && nmt_bpe_gloss_whole(b->gloss, w, n)) || (size_t)nmt_utf8_decode(w, n, &cp) == n)
    return put_unit(b, c->out, &c->first, w, n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
  long k = split_chars(b, w, n);
  uint32_t stack_rank[64], *rank = k <= 64 ? stack_rank : malloc((size_t)k * sizeof *rank);
  if (k < 0 || !rank) return nmt_fail(NMT_EIO, "out of memory");
  k = merge_all(b, k, rank);
  if (rank != stack_rank) free(rank);
  int bad = 0;
  for (long i = 0; i < k && !bad; i++) {
    const char *s = w + b->sym[i].start;
    size_t len = b->sym[i].end - b->sym[i].start;
    bool last = i + 1 == k;
    if (!b->vocab || in_vocab(b, s, len, !last)) bad = put_unit(b, c->out, &c->first, s, len);
    else bad = rsplit(b, c->out, &c->first, s, len, last);
  }
  return bad ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

static int segment_word(nmt_bpe *b, const char *w, size_t n, nmt_strbuf *out) {
  encode_ctx c = {b, out, true};
  if (b->gloss) return nmt_bpe_gloss_isolate(b->gloss, w, n, encode, &c);
  return encode(&c, w, n);
}

void nmt_bpe_set_cache(nmt_bpe *b, size_t bytes) { nmt_bpe_cache_reset(&b->cache, bytes); }

size_t nmt_bpe_cache_size(const nmt_bpe *b) { return nmt_bpe_cache_bytes(&b->cache); }

/* Append the segmentation of word w, from the cache when possible. */
static int word_cached(nmt_bpe *b, const char *w, size_t n, nmt_strbuf *out) {
  if (b->dropout > 0 || !b->cache.budget) return segment_word(b, w, n, out);
  uint64_t h = nmt_hash(w, n);
  const char *v;
  size_t vlen, at = out->len;
  int gen = nmt_bpe_cache_get(&b->cache, w, n, h, &v, &vlen);
  int st = gen >= 0 ? (nmt_strbuf_add(out, v, vlen) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK)
                    : segment_word(b, w, n, out);
  if (!st && gen != 0) nmt_bpe_cache_put(&b->cache, w, n, h, out->s + at, out->len - at);
  return st;
}

int nmt_bpe_apply_line(nmt_bpe *b, const char *line, size_t len, nmt_strbuf *out) {
  const char *s = line;
  size_t n = len;
  nmt_bpe_strip(&s, &n);
  if (!n) return nmt_strbuf_add(out, line, len) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
  if (nmt_strbuf_add(out, line, (size_t)(s - line))) return nmt_fail(NMT_EIO, "out of memory");
  const char *p = s, *end = s + n;
  bool first = true;
  while (p < end) {
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    if (!sp) sp = end;
    if (sp > p) {
      if (!first && nmt_strbuf_addc(out, ' ')) return nmt_fail(NMT_EIO, "out of memory");
      first = false;
      int st = word_cached(b, p, (size_t)(sp - p), out);
      if (st) return st;
    }
    p = sp + 1;
  }
  return nmt_strbuf_add(out, end, (size_t)(line + len - end)) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}
