/* A map from 64-bit keys to 64-bit values (open addressing, linear probing),
 * e.g. a pair of 32-bit ids packed as (a << 32 | b). The key UINT64_MAX is
 * reserved. Zero-initialise, or nmt_u64map_init for a size hint. */
#ifndef NMT_BASE_U64MAP_H
#define NMT_BASE_U64MAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t *keys, *vals;
  size_t mask, n; /* capacity - 1 (0 when empty), entries */
} nmt_u64map;

int nmt_u64map_init(nmt_u64map *m, size_t hint); /* 0, or -1 out of memory */
void nmt_u64map_free(nmt_u64map *m);
/* The value slot of key, or NULL when absent. Valid until the next put. */
uint64_t *nmt_u64map_get(const nmt_u64map *m, uint64_t key);
/* The value slot of key; a new key gets value `init` and sets *added (may be
 * NULL). NULL when out of memory. Valid until the next put. */
uint64_t *nmt_u64map_put(nmt_u64map *m, uint64_t key, uint64_t init, bool *added);

static inline uint64_t nmt_u64_mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return k;
}

#endif
