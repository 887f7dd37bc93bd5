/* Philox4x32-10 in AVX2, 8 blocks at a time (nn/rng_avx2.c). */
#ifndef NMT_NN_RNG_AVX2_H
#define NMT_NN_RNG_AVX2_H
#include <stdint.h>

/* out[0..32) = the uniforms of blocks blk..blk+7 of (seed, stream), as
 * nn/rng.c's scalar fill gives them; the low 32 bits of blk + 7 must not wrap.
 * Only on a core with AVX2. */
void nn_rng_units_avx2(float *out, uint64_t seed, uint64_t stream, uint64_t blk);

#endif
