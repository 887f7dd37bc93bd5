/* 128-bit pair hashes in an open-addressing table (linear probing, load <= 3/4). */
#include "text/clean_dedupe.h"
#include "base/err.h"
#include <stdlib.h>
#include <string.h>

struct nmt_dedupe {
  uint64_t (*slot)[2]; /* {0, 0} = empty; a real {0, 0} hash is stored as {0, 1} */
  size_t mask, used;
};

static const uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t fmix(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* Two lanes fed the same words with different multipliers and rotations. */
static void absorb(uint64_t h[2], const char *p, size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h[0] = rotl(h[0] ^ (w * P1), 31) * P2;
    h[1] = rotl(h[1] ^ (w * P2), 29) * P1 + h[0];
  }
  uint64_t w = 0;
  memcpy(&w, p, n);
  h[0] = rotl(h[0] ^ (w * P1), 31) * P2;
  h[1] = rotl(h[1] ^ (w * P2), 29) * P1 + h[0];
}

void nmt_pair_hash(const char *a, size_t na, const char *b, size_t nb, uint64_t out[2]) {
  uint64_t h[2] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull};
  absorb(h, a, na);
  h[0] ^= fmix(na + 1); /* the lengths keep the split between a and b apart */
  absorb(h, b, nb);
  h[1] ^= fmix(nb + 0x100000001ull);
  out[0] = fmix(h[0] + rotl(h[1], 17));
  out[1] = fmix(h[1] ^ rotl(h[0], 41));
}

int nmt_dedupe_new(nmt_dedupe **out) {
  nmt_dedupe *d = calloc(1, sizeof *d);
  if (d) d->slot = calloc(1024, sizeof *d->slot);
  if (!d || !d->slot) { free(d); return nmt_fail(NMT_EIO, "out of memory"); }
  d->mask = 1023;
  *out = d;
  return NMT_OK;
}

static uint64_t (*find(const nmt_dedupe *d, const uint64_t k[2]))[2] {
  for (size_t i = k[0] & d->mask;; i = (i + 1) & d->mask) {
    uint64_t *s = d->slot[i];
    if ((s[0] == k[0] && s[1] == k[1]) || (!s[0] && !s[1])) return &d->slot[i];
  }
}

static int grow(nmt_dedupe *d) {
  nmt_dedupe bigger = {calloc((d->mask + 1) * 2, sizeof *d->slot), d->mask * 2 + 1, d->used};
  if (!bigger.slot) return nmt_fail(NMT_EIO, "out of memory for --dedupe (%zu unique pairs)", d->used);
  for (size_t i = 0; i <= d->mask; i++)
    if (d->slot[i][0] || d->slot[i][1]) memcpy(*find(&bigger, d->slot[i]), d->slot[i], sizeof *d->slot);
  free(d->slot);
  *d = bigger;
  return NMT_OK;
}

int nmt_dedupe_add(nmt_dedupe *d, const char *a, size_t na, const char *b, size_t nb) {
  uint64_t k[2];
  nmt_pair_hash(a, na, b, nb, k);
  if (!k[0] && !k[1]) k[1] = 1;
  uint64_t (*s)[2] = find(d, k);
  if ((*s)[0] || (*s)[1]) return 0;
  (*s)[0] = k[0];
  (*s)[1] = k[1];
  if (++d->used * 4 > (d->mask + 1) * 3 && grow(d)) return -1;
  return 1;
}

size_t nmt_dedupe_count(const nmt_dedupe *d) { return d->used; }

void nmt_dedupe_free(nmt_dedupe *d) {
  if (!d) return;
  free(d->slot);
  free(d);
}
