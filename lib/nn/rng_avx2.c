/* Philox4x32-10 for 8 consecutive blocks at once in AVX2 (nn/rng.c calls it
 * where the vector math runs at 8 lanes or more): one lane per block, the
 * rounds' 32×32→64 products as even and odd lanes of vpmuludq. Integer
 * arithmetic, so the words are nn_philox4x32's; the floats are to_unit's
 * (x >> 8 has 24 bits: its conversion and the scaling by 2⁻²⁴ are exact). The
 * scalar fill was 1.1% of a training step (dropout masks). */
#include "nn/rng_avx2.h"
#include "nn/philox.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "nn/compile_for.h"
NN_COMPILE_FOR("avx2")
#include <immintrin.h>

/* hi and lo halves of the 8 products m·x */
static inline void mul_hilo(__m256i x, __m256i m, __m256i *hi, __m256i *lo) {
  __m256i even = _mm256_mul_epu32(x, m), odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), m);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  *lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

static inline __m256 unit(__m256i x) {
  return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(x, 8)), _mm256_set1_ps(NN_PHILOX_UNIT));
}

void nn_rng_units_avx2(float *out, uint64_t seed, uint64_t stream, uint64_t blk) {
  const __m256i M0 = _mm256_set1_epi32((int)NN_PHILOX_M0), M1 = _mm256_set1_epi32((int)NN_PHILOX_M1);
  __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)blk), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i c1 = _mm256_set1_epi32((int)(uint32_t)(blk >> 32));
  __m256i c2 = _mm256_set1_epi32((int)(uint32_t)stream), c3 = _mm256_set1_epi32((int)(uint32_t)(stream >> 32));
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int r = 0; r < NN_PHILOX_ROUNDS; r++) {
    __m256i hi0, lo0, hi1, lo1;
    mul_hilo(c0, M0, &hi0, &lo0);
    mul_hilo(c2, M1, &hi1, &lo1);
    __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32((int)k0));
    __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32((int)k1));
    c1 = lo1, c3 = lo0, c0 = n0, c2 = n2;
    k0 += NN_PHILOX_W0, k1 += NN_PHILOX_W1;
  }
  /* lanes are blocks, vectors words: out[4b + w] is word w of block b */
  __m256 w0 = unit(c0), w1 = unit(c1), w2 = unit(c2), w3 = unit(c3);
  __m256 a = _mm256_unpacklo_ps(w0, w1), b = _mm256_unpackhi_ps(w0, w1); /* blocks 0,1 | 4,5 and 2,3 | 6,7 */
  __m256 c = _mm256_unpacklo_ps(w2, w3), d = _mm256_unpackhi_ps(w2, w3);
  __m256 b0 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(c))); /* blocks 0 | 4 */
  __m256 b1 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(c))); /* 1 | 5 */
  __m256 b2 = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(b), _mm256_castps_pd(d))); /* 2 | 6 */
  __m256 b3 = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(b), _mm256_castps_pd(d))); /* 3 | 7 */
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(b0, b1, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(b2, b3, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(b0, b1, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(b2, b3, 0x31));
}
NN_COMPILE_END
#else /* not built elsewhere: nn/rng.c does not call it */
void nn_rng_units_avx2(float *out, uint64_t seed, uint64_t stream, uint64_t blk) {
  (void)out, (void)seed, (void)stream, (void)blk;
}
#endif
