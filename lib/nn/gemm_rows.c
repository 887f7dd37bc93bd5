/* C (M,N) = alpha·A (M,K)·B (K,N) + beta·C for a handful of rows (decoding one
 * sentence: the beam), row-major, no transposes. Such a product is bound by
 * reading B (megabytes of weights per decoder step): one sgemv per row reads
 * it M times, sgemm copies (packs) it first. This kernel reads it once, in
 * panels of 64 columns, with the panel's M×64 sums in registers; rows go in
 * groups of up to 6 (24 accumulators). AVX-512, chosen at run time. */
#include "nn/gemm_rows.h"
#include "nn/gemm_args.h"
#include "nn/parallel.h"
#include "nn/vmath.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

enum { NR = 64, MR = 6, PREFETCH = 24 };

/* Columns [0, 64) of rows [0, R) (R constant per instance: the sums stay in
 * registers); masks m[0..3] cut the last panel. */
#define PANEL(R)                                                                               \
  __attribute__((target("avx512f"))) static void panel##R(                                     \
      int K, float alpha, const float *A, int lda, const float *B, int ldb, float beta,        \
      float *C, int ldc, const __mmask16 *m) {                                                 \
    __m512 s[R][4];                                                                            \
    _Pragma("GCC unroll 8") for (int i = 0; i < R; i++) _Pragma("GCC unroll 4") for (int j = 0; \
                                                                                    j < 4; j++) \
        s[i][j] = _mm512_setzero_ps();                                                         \
    for (int k = 0; k < K; k++) {                                                              \
      const float *b = B + (size_t)k * ldb;                                                    \
      if (k + PREFETCH < K) /* rows are ldb apart: beyond the hardware prefetchers */          \
        _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++)                                    \
          _mm_prefetch((const char *)(b + (size_t)PREFETCH * ldb + 16 * j), _MM_HINT_T0);      \
      __m512 w[4];                                                                             \
      _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) w[j] = _mm512_maskz_loadu_ps(m[j], b + 16 * j); \
      _Pragma("GCC unroll 8") for (int i = 0; i < R; i++) {                                    \
        __m512 a = _mm512_set1_ps(A[(size_t)i * lda + k]);                                     \
        _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) s[i][j] = _mm512_fmadd_ps(a, w[j], s[i][j]); \
      }                                                                                        \
    }                                                                                          \
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);                              \
    for (int i = 0; i < R; i++)                                                                \
      for (int j = 0; j < 4; j++) {                                                            \
        float *c = C + (size_t)i * ldc + 16 * j;                                               \
        __m512 r = _mm512_mul_ps(va, s[i][j]);                                                 \
        if (beta != 0) r = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m[j], c), r);             \
        _mm512_mask_storeu_ps(c, m[j], r);                                                     \
      }                                                                                        \
  }
PANEL(1) PANEL(2) PANEL(3) PANEL(4) PANEL(5) PANEL(6)

typedef void panel_fn(int, float, const float *, int, const float *, int, float, float *, int,
                      const __mmask16 *);
static panel_fn *const panels[MR + 1] = {0, panel1, panel2, panel3, panel4, panel5, panel6};

/* This part's panels of 64 columns. */
static void run(void *ctx, int part, int parts) {
  const nn_gemm_args *j = ctx;
  int lo, hi;
  nn_gemm_part_columns(j->N, NR, part, parts, &lo, &hi);
  for (int n0 = lo; n0 < hi; n0 += NR) {
    int w = j->N - n0 < NR ? j->N - n0 : NR;
    __mmask16 m[4];
    for (int q = 0; q < 4; q++) {
      int left = w - 16 * q;
      m[q] = (__mmask16)(left >= 16 ? 0xffff : left > 0 ? (1u << left) - 1 : 0);
    }
    for (int r = 0; r < j->M; r += MR) {
      int mr = j->M - r < MR ? j->M - r : MR;
      panels[mr](j->K, j->alpha, j->A + (size_t)r * j->lda, j->lda, j->B + n0, j->ldb, j->beta,
                 j->C + (size_t)r * j->ldc + n0, j->ldc, m);
    }
  }
}

bool nn_gemm_rows(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                  int ldb, float beta, float *C, int ldc) {
  /* at AVX-512's width only (NMT_ISA=avx2 lowers it) */
  bool avx512 = nn_vmath_used()->lanes == 16;
  /* one row: sgemv streams B row by row, which beats the panels' strided reads */
  if (!avx512 || M < 2 || M > NN_GEMM_ROWS || N < 1 || K < 1) return false;
  nn_gemm_args j = {false, false, M, N, K, lda, ldb, ldc, alpha, beta, A, B, C};
  nn_parallel((size_t)K * N, run, &j); /* each thread its own panels of B */
  return true;
}

#else
bool nn_gemm_rows(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                  int ldb, float beta, float *C, int ldc) {
  (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta;
  (void)C, (void)ldc;
  return false;
}
#endif
