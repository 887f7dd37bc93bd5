/* 64-bit key map; see base/u64map.h. */
#include "base/u64map.h"
#include <stdlib.h>
#include <string.h>

#define EMPTY UINT64_MAX

static int rehash(nmt_u64map *m, size_t cap) {
  uint64_t *keys = malloc(cap * sizeof *keys), *vals = malloc(cap * sizeof *vals);
  if (!keys || !vals) { free(keys); free(vals); return -1; }
  memset(keys, 0xff, cap * sizeof *keys);
  for (size_t i = 0; m->mask && i <= m->mask; i++) {
    if (m->keys[i] == EMPTY) continue;
    size_t j = nmt_u64_mix(m->keys[i]) & (cap - 1);
    while (keys[j] != EMPTY) j = (j + 1) & (cap - 1);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->mask = cap - 1;
  return 0;
}

int nmt_u64map_init(nmt_u64map *m, size_t hint) {
  memset(m, 0, sizeof *m);
  size_t cap = 16;
  while (cap < hint * 2) cap *= 2;
  return rehash(m, cap);
}

void nmt_u64map_free(nmt_u64map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

uint64_t *nmt_u64map_get(const nmt_u64map *m, uint64_t key) {
  if (!m->mask) return NULL;
  size_t i = nmt_u64_mix(key) & m->mask;
  for (;;) {
    if (m->keys[i] == key) return &m->vals[i];
    if (m->keys[i] == EMPTY) return NULL;
    i = (i + 1) & m->mask;
  }
}

uint64_t *nmt_u64map_put(nmt_u64map *m, uint64_t key, uint64_t init, bool *added) {
  if ((m->n + 1) * 2 > m->mask + 1 && rehash(m, m->mask ? (m->mask + 1) * 2 : 16)) return NULL;
  size_t i = nmt_u64_mix(key) & m->mask;
  for (;;) {
    if (m->keys[i] == key) {
      if (added) *added = false;
      return &m->vals[i];
    }
    if (m->keys[i] == EMPTY) break;
    i = (i + 1) & m->mask;
  }
  m->keys[i] = key;
  m->vals[i] = init;
  m->n++;
  if (added) *added = true;
  return &m->vals[i];
}
