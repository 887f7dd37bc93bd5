/* numpy-compatible random stream (see metrics/npy_rng.h); constants from numpy's
 * SeedSequence (bit_generator.pyx) and pcg64.h. */
#include "metrics/npy_rng.h"

enum { POOL = 4 };
static const uint32_t INIT_A = 0x43b0d7e5, MULT_A = 0x931e8875, INIT_B = 0x8b51f9dd,
                      MULT_B = 0x58f38ded, MIX_MULT_L = 0xca01f9dd, MIX_MULT_R = 0x4973f715;

static uint32_t hashmix(uint32_t v, uint32_t *hc) {
  v ^= *hc;
  *hc *= MULT_A;
  v *= *hc;
  v ^= v >> 16;
  return v;
}

static uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t r = MIX_MULT_L * x - MIX_MULT_R * y;
  return r ^ (r >> 16);
}

void nmt_npy_seed_sequence(const uint32_t *ent, int nent, uint32_t *words, int nwords) {
  uint32_t pool[POOL], hc = INIT_A;
  for (int i = 0; i < POOL; i++) pool[i] = hashmix(i < nent ? ent[i] : 0, &hc);
  for (int s = 0; s < POOL; s++)
    for (int d = 0; d < POOL; d++)
      if (s != d) pool[d] = mix(pool[d], hashmix(pool[s], &hc));
  for (int s = POOL; s < nent; s++)
    for (int d = 0; d < POOL; d++) pool[d] = mix(pool[d], hashmix(ent[s], &hc));
  uint32_t hb = INIT_B;
  for (int i = 0; i < nwords; i++) {
    uint32_t v = pool[i % POOL];
    v ^= hb;
    hb *= MULT_B;
    v *= hb;
    v ^= v >> 16;
    words[i] = v;
  }
}

#define PCG_MULT (((__uint128_t)0x2360ED051FC65DA4ULL << 64) | 0x4385DF649FCCF645ULL)

static void step(nmt_npy_rng *r) { r->state = r->state * PCG_MULT + r->inc; }

void nmt_npy_rng_seed(nmt_npy_rng *r, uint64_t seed) {
  /* SeedSequence(seed).generate_state(4, uint64): 8 words read little-endian */
  uint32_t ent[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)}, w[8];
  nmt_npy_seed_sequence(ent, ent[1] ? 2 : 1, w, 8);
  uint64_t v[4];
  for (int i = 0; i < 4; i++) v[i] = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
  __uint128_t initstate = ((__uint128_t)v[0] << 64) | v[1];
  __uint128_t initseq = ((__uint128_t)v[2] << 64) | v[3];
  r->state = 0;
  r->inc = (initseq << 1) | 1;
  step(r);
  r->state += initstate;
  step(r);
  r->has32 = false;
}

uint64_t nmt_npy_next64(nmt_npy_rng *r) {
  step(r);
  uint64_t x = (uint64_t)(r->state >> 64) ^ (uint64_t)r->state;
  unsigned rot = (unsigned)(r->state >> 122);
  return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t nmt_npy_next32(nmt_npy_rng *r) {
  if (r->has32) { r->has32 = false; return r->buf32; }
  uint64_t x = nmt_npy_next64(r);
  r->has32 = true;
  r->buf32 = (uint32_t)(x >> 32);
  return (uint32_t)x;
}

uint64_t nmt_npy_below(nmt_npy_rng *r, uint64_t n) {
  uint64_t rng = n - 1;
  if (rng == 0) return 0;
  if (rng == 0xFFFFFFFFULL) return nmt_npy_next32(r);
  uint32_t excl = (uint32_t)rng + 1;
  uint64_t m = (uint64_t)nmt_npy_next32(r) * excl;
  uint32_t left = (uint32_t)m;
  if (left < excl) {
    uint32_t threshold = (uint32_t)(UINT32_MAX - (uint32_t)rng) % excl;
    while (left < threshold) {
      m = (uint64_t)nmt_npy_next32(r) * excl;
      left = (uint32_t)m;
    }
  }
  return m >> 32;
}

bool nmt_npy_bool(nmt_npy_rng *r, int *bcnt, uint32_t *buf) {
  /* random_buffered_bounded_bool: masked, one bit per 32-bit draw */
  if (!*bcnt) { *buf = nmt_npy_next32(r); *bcnt = 31; }
  else { *buf >>= 1; (*bcnt)--; }
  return *buf & 1;
}
