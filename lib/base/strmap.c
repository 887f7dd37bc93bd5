/* String interning with dense ids; see base/strmap.h. */
#include "base/strmap.h"
#include "base/checked.h"
#include <stdlib.h>
#include <string.h>

enum { ARENA_BLOCK = 1 << 20 };

typedef struct {
  const char *s;
  uint32_t len;
} entry;

/* A slot holds (low 32 bits of the hash << 32 | id + 1), 0 when empty: most
 * mismatches are seen without touching the entry. */
#define SLOT(h, id) ((uint64_t)(uint32_t)(h) << 32 | (uint32_t)((id) + 1))
#define SLOT_ID(v) ((int32_t)(uint32_t)(v) - 1)

struct nmt_strmap {
  uint64_t *slots; /* capacity is a power of two */
  size_t mask;
  entry *ents;
  int32_t n, cap;
  char **blocks; /* arena blocks, freed together */
  size_t nblocks;
  char *cur;      /* free space in the newest block */
  size_t left;
};

static inline uint64_t load64(const unsigned char *s) {
  uint64_t v;
  memcpy(&v, s, 8);
  return v;
}

static inline uint64_t load32(const unsigned char *s) {
  uint32_t v;
  memcpy(&v, s, 4);
  return v;
}

uint64_t nmt_hash(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull), v;
  if (n >= 8) {
    for (; n > 8; s += 8, n -= 8) {
      h = (h ^ load64(s)) * 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
    }
    v = load64(s + n - 8); /* the last 8 bytes, overlapping what came before */
  } else if (n >= 4) { /* two overlapping 4-byte reads cover every byte */
    v = load32(s) | load32(s + n - 4) << 32;
  } else {
    v = n ? (uint64_t)s[0] | (uint64_t)s[n / 2] << 8 | (uint64_t)s[n - 1] << 16 : 0;
  }
  h = (h ^ v) * 0x94d049bb133111ebull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

nmt_strmap *nmt_strmap_new(void) {
  nmt_strmap *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->mask = 1023;
  m->slots = calloc(m->mask + 1, sizeof *m->slots);
  if (!m->slots) { free(m); return NULL; }
  return m;
}

void nmt_strmap_free(nmt_strmap *m) {
  if (!m) return;
  for (size_t i = 0; i < m->nblocks; i++) free(m->blocks[i]);
  free(m->blocks);
  free(m->ents);
  free(m->slots);
  free(m);
}

static char *arena_copy(nmt_strmap *m, const char *s, size_t n) {
  if (n + 1 > m->left) {
    size_t size = n + 1 > ARENA_BLOCK / 4 ? n + 1 : ARENA_BLOCK;
    char **b = realloc(m->blocks, (m->nblocks + 1) * sizeof *b);
    if (!b) return NULL;
    m->blocks = b;
    char *blk = malloc(size);
    if (!blk) return NULL;
    m->blocks[m->nblocks++] = blk;
    if (size == ARENA_BLOCK) { m->cur = blk; m->left = size; }
    else { memcpy(blk, s, n); blk[n] = 0; return blk; } /* big string: own block */
  }
  char *d = m->cur;
  memcpy(d, s, n);
  d[n] = 0;
  m->cur += n + 1;
  m->left -= n + 1;
  return d;
}

static int grow(nmt_strmap *m) {
  size_t cap = (m->mask + 1) * 2;
  uint64_t *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  for (size_t k = 0; k <= m->mask; k++) {
    if (!m->slots[k]) continue;
    int32_t id = SLOT_ID(m->slots[k]);
    uint64_t h = nmt_hash(m->ents[id].s, m->ents[id].len);
    size_t i = h & (cap - 1);
    while (slots[i]) i = (i + 1) & (cap - 1);
    slots[i] = m->slots[k];
  }
  free(m->slots);
  m->slots = slots;
  m->mask = cap - 1;
  return 0;
}

static int same(const char *a, const char *b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y) return 0;
  }
  for (; n; n--)
    if (*a++ != *b++) return 0;
  return 1;
}

/* The slot holding s, or the empty slot where it would go. */
static size_t probe(const nmt_strmap *m, const char *s, size_t n, uint64_t h) {
  size_t i = h & m->mask;
  uint64_t hi = (uint64_t)(uint32_t)h << 32;
  for (;;) {
    uint64_t v = m->slots[i];
    if (!v) return i;
    if ((v & 0xFFFFFFFF00000000ull) == hi) {
      const entry *e = &m->ents[SLOT_ID(v)];
      if (e->len == n && same(e->s, s, n)) return i;
    }
    i = (i + 1) & m->mask;
  }
}

int32_t nmt_strmap_find(const nmt_strmap *m, const char *s, size_t n) {
  uint64_t v = m->slots[probe(m, s, n, nmt_hash(s, n))];
  return v ? SLOT_ID(v) : -1;
}

static int32_t intern_h(nmt_strmap *m, const char *s, size_t n, uint64_t h) {
  size_t i = probe(m, s, n, h);
  if (m->slots[i]) return SLOT_ID(m->slots[i]);
  if ((size_t)(m->n + 1) * 2 > m->mask + 1) {
    if (grow(m)) return -1;
    i = probe(m, s, n, h);
  }
  if (m->n == m->cap) {
    int32_t cap = nmt_grow_int(m->cap, 1024);
    entry *e = cap > 0 ? realloc(m->ents, (size_t)cap * sizeof *e) : NULL;
    if (!e) return -1;
    m->ents = e;
    m->cap = cap;
  }
  const char *copy = arena_copy(m, s, n);
  if (!copy) return -1;
  m->ents[m->n] = (entry){copy, (uint32_t)n};
  m->slots[i] = SLOT(h, m->n);
  return m->n++;
}

int32_t nmt_strmap_intern(nmt_strmap *m, const char *s, size_t n) {
  return intern_h(m, s, n, nmt_hash(s, n));
}

int32_t nmt_strmap_size(const nmt_strmap *m) { return m->n; }
const char *nmt_strmap_str(const nmt_strmap *m, int32_t id) { return m->ents[id].s; }
size_t nmt_strmap_len(const nmt_strmap *m, int32_t id) { return m->ents[id].len; }
