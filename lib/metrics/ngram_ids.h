/* Dense ids for the tokens and n-grams of one sentence pair, so metrics count
 * with flat arrays instead of per-n-gram allocations. An n-gram's id comes from
 * the key (id of its first n-1 items + 1, last item): n-grams of every order
 * share one table and equal ids mean equal n-grams, exactly (no hash identity).
 * Reset per sentence in O(1) with a generation counter. */
#ifndef NMT_METRICS_NGRAM_IDS_H
#define NMT_METRICS_NGRAM_IDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t key;
  uint32_t id, gen;
} nmt_id_slot;

typedef struct {
  nmt_id_slot *slot;
  size_t mask;
  uint32_t gen, count;
  const char **str; /* string tables: the bytes of id i, compared on a hash match */
  uint32_t *len;
  size_t scap;
} nmt_idmap;

/* Forget all ids; make room for `expected` new ones (strings: also in the
 * string tables of nmt_idmap_str). NMT_OK or NMT_EIO (out of memory). */
int nmt_idmap_reset(nmt_idmap *m, size_t expected, bool strings);
void nmt_idmap_free(nmt_idmap *m);

static inline uint64_t nmt_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* Id of an integer key; *fresh says whether it was new. Ids count from 0. */
static inline uint32_t nmt_idmap_key(nmt_idmap *m, uint64_t key, bool *fresh) {
  size_t i = nmt_mix64(key) & m->mask;
  for (;;) {
    nmt_id_slot *s = &m->slot[i];
    if (s->gen != m->gen) {
      s->gen = m->gen;
      s->key = key;
      s->id = m->count++;
      *fresh = true;
      return s->id;
    }
    if (s->key == key) { *fresh = false; return s->id; }
    i = (i + 1) & m->mask;
  }
}

/* Id of a string (bytes compared on equal hashes). The bytes must outlive the
 * reset, which made room for this id (strings, and at most `expected` ids). */
uint32_t nmt_idmap_str(nmt_idmap *m, const char *s, uint32_t len);

/* Key of the n-gram (prefix, item): prefix is the (n-1)-gram's id, or
 * UINT32_MAX for unigrams; `ns` keeps separate n-gram families apart. */
static inline uint64_t nmt_ngram_key(uint32_t prefix, uint32_t item, unsigned ns) {
  return ((uint64_t)ns << 63) | ((uint64_t)(prefix + 1) << 32) | item;
}

#endif
