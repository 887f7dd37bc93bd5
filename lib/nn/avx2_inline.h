/* What the AVX2 panels' kernels share: the store of a row of 16 sums, an 8×8
 * transpose and the packing of a few rows k-major (nn/pgemm_avx2.c and nn/sgemm_avx2.c include it inside their
 * NN_COMPILE_FOR("avx2,fma") part). */
#ifndef NMT_NN_AVX2_INLINE_H
#define NMT_NN_AVX2_INLINE_H
#include "nn/pgemm.h"
#include <immintrin.h>

/* c[0..w) = s + beta·c (beta 0 does not read c: it may hold anything). A whole
 * panel's row is stored unmasked: masked stores are slow on AMD cores (Zen 3:
 * 42 -> 64 GFLOP/s at 1024x512x512 with k blocked by 128). */
static inline void nn_avx2_store_row(__m256 s[2], float beta, float *c, int w) {
  if (w == NN_PANEL) {
    if (beta != 0) {
      __m256 vb = _mm256_set1_ps(beta);
      s[0] = _mm256_add_ps(s[0], _mm256_mul_ps(vb, _mm256_loadu_ps(c)));
      s[1] = _mm256_add_ps(s[1], _mm256_mul_ps(vb, _mm256_loadu_ps(c + 8)));
    }
    _mm256_storeu_ps(c, s[0]);
    _mm256_storeu_ps(c + 8, s[1]);
    return;
  }
  __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(w), lane);
  __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(w - 8), lane);
  if (beta != 0) {
    __m256 vb = _mm256_set1_ps(beta);
    s[0] = _mm256_add_ps(s[0], _mm256_mul_ps(vb, _mm256_maskload_ps(c, m0)));
    s[1] = _mm256_add_ps(s[1], _mm256_mul_ps(vb, _mm256_maskload_ps(c + 8, m1)));
  }
  _mm256_maskstore_ps(c, m0, s[0]);
  _mm256_maskstore_ps(c + 8, m1, s[1]);
}


/* r[0..8) (8 rows of 8) transposed in registers. */
static inline void transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; i++) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

/* T[k·stride + i] = A[i·lda + k] for rows i < rows (<= stride <= 8), k < kc:
 * 8 k's at a time through a transpose in registers, whose 8 groups are stored
 * 8 floats wide in order, each group's floats past `stride` overwritten by the
 * next (T has 8 floats to spare for the last). */
static inline void nn_avx2_pack_rows(float *T, const float *A, int lda, int rows, int kc, int stride) {
  int k = 0;
  for (; k + 8 <= kc; k += 8) {
    __m256 r[8];
    for (int i = 0; i < 8; i++) r[i] = i < rows ? _mm256_loadu_ps(A + (size_t)i * lda + k) : _mm256_setzero_ps();
    transpose8(r);
    for (int i = 0; i < 8; i++) _mm256_storeu_ps(T + (size_t)(k + i) * stride, r[i]);
  }
  for (; k < kc; k++)
    for (int i = 0; i < rows; i++) T[(size_t)k * stride + i] = A[(size_t)i * lda + k];
}

#endif
