/* Philox4x32-10's constants (Salmon et al. 2011) and the uniform's scaling, for
 * the three places that compute it: nn/rng.c (scalar), nn/rng_avx2.c (8 blocks
 * in AVX2) and lib/nn/cuda/nn_cuda_dropout.cu. Macros, so C and CUDA device code
 * read the same values. */
#ifndef NMT_NN_PHILOX_H
#define NMT_NN_PHILOX_H

#define NN_PHILOX_ROUNDS 10
#define NN_PHILOX_M0 0xD2511F53u /* round multipliers */
#define NN_PHILOX_M1 0xCD9E8D57u
#define NN_PHILOX_W0 0x9E3779B9u /* key schedule (golden ratio, sqrt 3) */
#define NN_PHILOX_W1 0xBB67AE85u
/* uniform = (word >> 8) · 2⁻²⁴: 24 random bits, exact in a float */
#define NN_PHILOX_UNIT (1.0f / 16777216.0f)

#endif
