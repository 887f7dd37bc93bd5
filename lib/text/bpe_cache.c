/* The word cache of nmt_bpe_apply_line (text/bpe_internal.h): each word's
 * segmentation, within a budget of bytes that covers the tables and the text.
 * Two generations, half the budget each: new words go into the current one;
 * when it cannot grow within its half, the previous one is emptied and the two
 * swap, and a word found in the previous one is copied into the current. So the
 * words in use outlive each turn (about LRU), and a turn costs no allocation:
 * the emptied generation's buffers are reused. A lookup allocates nothing. */
#include "text/bpe_internal.h"
#include <stdlib.h>
#include <string.h>

/* One entry, in a generation's open-addressing table; klen == 0 when empty. */
struct nmt_bpe_cache_slot {
  size_t off;          /* in the generation's text: the key, then the value */
  uint32_t hash, klen; /* the hash's low bits */
  uint32_t vlen;
};

typedef struct nmt_bpe_cache_slot slot;
typedef nmt_bpe_cache_gen gen;

enum { MIN_SLOTS = 64, MIN_TEXT = 4096 };

static size_t gen_bytes(const gen *g) { return (g->slots ? (g->mask + 1) * sizeof *g->slots : 0) + g->cap; }

size_t nmt_bpe_cache_bytes(const nmt_bpe_cache *c) { return gen_bytes(&c->gen[0]) + gen_bytes(&c->gen[1]); }

static void gen_free(gen *g) {
  free(g->slots);
  free(g->text);
  memset(g, 0, sizeof *g);
}

void nmt_bpe_cache_free(nmt_bpe_cache *c) {
  gen_free(&c->gen[0]);
  gen_free(&c->gen[1]);
}

void nmt_bpe_cache_reset(nmt_bpe_cache *c, size_t budget) {
  nmt_bpe_cache_free(c);
  c->budget = budget;
}

/* The slot holding w, or the empty slot where it would go. */
static slot *probe(const gen *g, const char *w, size_t n, uint64_t h) {
  for (size_t i = h & g->mask;; i = (i + 1) & g->mask) {
    slot *s = &g->slots[i];
    if (!s->klen || (s->hash == (uint32_t)h && s->klen == n && !memcmp(g->text + s->off, w, n))) return s;
  }
}

/* The value of w in g, or NULL. */
static const slot *find(const gen *g, const char *w, size_t n, uint64_t h) {
  if (!g->n) return NULL;
  const slot *s = probe(g, w, n, h);
  return s->klen ? s : NULL;
}

int nmt_bpe_cache_get(const nmt_bpe_cache *c, const char *w, size_t n, uint64_t h, const char **v, size_t *vlen) {
  for (int k = 0; k < 2; k++) {
    const slot *s = find(&c->gen[k], w, n, h);
    if (!s) continue;
    *v = c->gen[k].text + s->off + s->klen;
    *vlen = s->vlen;
    return k;
  }
  return -1;
}

/* g's table at `size` slots (a power of two), its entries moved over. */
static bool rehash(gen *g, size_t size) {
  slot *old = g->slots, *s = calloc(size, sizeof *s);
  size_t old_size = old ? g->mask + 1 : 0;
  if (!s) return false;
  g->slots = s, g->mask = size - 1;
  for (size_t i = 0; i < old_size; i++) {
    if (!old[i].klen) continue;
    size_t j = old[i].hash & g->mask;
    while (s[j].klen) j = (j + 1) & g->mask;
    s[j] = old[i];
  }
  free(old);
  return true;
}

/* Room in g for one more entry of `extra` text bytes: its table kept at most half
 * full, its text grown by doubling, the two within `limit` bytes. False when that
 * would pass the limit (or memory is short). */
static bool make_room(gen *g, size_t extra, size_t limit) {
  size_t slots = g->slots ? g->mask + 1 : 0, want = slots ? slots : MIN_SLOTS;
  while (want / 2 < g->n + 1) want *= 2;
  size_t table = want * sizeof *g->slots, text = g->cap;
  if (table > limit) return false;
  if (g->len + extra > text) { /* double, up to what the table leaves */
    text = text * 2 > g->len + extra ? text * 2 : g->len + extra;
    text = text > MIN_TEXT ? text : MIN_TEXT;
    text = text < limit - table ? text : limit - table;
  }
  if (g->len + extra > text || g->cap > limit - table) return false;
  if (want != slots && !rehash(g, want)) return false;
  if (text == g->cap) return true;
  char *t = realloc(g->text, text);
  if (!t) return false;
  g->text = t, g->cap = text;
  return true;
}

/* The current generation becomes the previous; the previous, emptied, the current. */
static void turn(nmt_bpe_cache *c) {
  gen g = c->gen[1];
  c->gen[1] = c->gen[0];
  g.n = g.len = 0;
  if (g.slots) memset(g.slots, 0, (g.mask + 1) * sizeof *g.slots);
  c->gen[0] = g;
}

void nmt_bpe_cache_put(nmt_bpe_cache *c, const char *w, size_t n, uint64_t h, const char *v, size_t vlen) {
  gen *g = &c->gen[0];
  if (n > NMT_BPE_CACHE_WORD_MAX || !n || vlen > UINT32_MAX) return;
  if (!make_room(g, n + vlen, c->budget / 2)) {
    turn(c);
    if (!make_room(g, n + vlen, c->budget / 2)) return; /* caching is an optimisation only */
  }
  slot *s = probe(g, w, n, h);
  *s = (slot){g->len, (uint32_t)h, (uint32_t)n, (uint32_t)vlen};
  memcpy(g->text + g->len, w, n);
  memcpy(g->text + g->len + n, v, vlen);
  g->len += n + vlen;
  g->n++;
}
