/* Counter-based random numbers (Philox4x32-10, Salmon et al. 2011): the value
 * at (seed, stream, index) needs no state, so a GPU kernel reproduces any
 * dropout mask or initialisation element by element. */
#ifndef NMT_NN_RNG_H
#define NMT_NN_RNG_H
#include <stddef.h>
#include <stdint.h>

/* One Philox4x32-10 block: out = philox(ctr, key). */
void nn_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The 32-bit word `index` of the stream: counter (index/4, 0, stream lo, stream hi),
 * key = seed, word index%4 of the block. */
uint32_t nn_rng_u32(uint64_t seed, uint64_t stream, uint64_t index);
/* Uniform in [0, 1) with 24 random bits. */
float nn_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index);

/* out[i] = uniform(seed, stream, offset + i) * (hi - lo) + lo. */
void nn_rng_fill_uniform(float *out, size_t n, float lo, float hi, uint64_t seed,
                         uint64_t stream, uint64_t offset);
/* out[i] = mean + std * N(0,1) by Box–Muller: elements 2k and 2k+1 share the
 * uniforms at indices offset+2k, offset+2k+1. */
void nn_rng_fill_normal(float *out, size_t n, float mean, float std, uint64_t seed,
                        uint64_t stream, uint64_t offset);

#endif
