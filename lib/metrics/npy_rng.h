/* numpy's default_rng(seed) stream, bit for bit: SeedSequence(seed) ->
 * PCG64 (XSL-RR 128/64) -> Generator.integers(0, n) with Lemire's bounded
 * method on buffered 32-bit draws. sacreBLEU draws its bootstrap resamples
 * with rng.choice(n, size=(k, n)), which is integers(0, n, size) row by row. */
#ifndef NMT_METRICS_NPY_RNG_H
#define NMT_METRICS_NPY_RNG_H
#include <stdbool.h>
#include <stdint.h>

typedef struct {
  __uint128_t state, inc;
  bool has32;
  uint32_t buf32;
} nmt_npy_rng;

/* SeedSequence(entropy words).generate_state(nwords, uint32) */
void nmt_npy_seed_sequence(const uint32_t *ent, int nent, uint32_t *words, int nwords);
/* default_rng(seed) for a non-negative integer seed below 2^64. */
void nmt_npy_rng_seed(nmt_npy_rng *r, uint64_t seed);
uint64_t nmt_npy_next64(nmt_npy_rng *r);
uint32_t nmt_npy_next32(nmt_npy_rng *r);
/* One value of Generator.integers(0, n) for 1 <= n <= 2^32 (int64 dtype). */
uint64_t nmt_npy_below(nmt_npy_rng *r, uint64_t n);
/* One value of Generator.integers(2, dtype=bool): a masked bit of a byte draw. */
bool nmt_npy_bool(nmt_npy_rng *r, int *bcnt, uint32_t *buf);

#endif
