/* The packed-weight GEMM at AVX2 with FMA (nn/pgemm.c calls it only where the
 * core has both). Blocks of up to 6 rows × one 16-column panel: 12 sums in
 * registers, per k two loads of the panel and one broadcast per row. The panel
 * loop is outside, so a panel (K·64 bytes) stays in cache for all row blocks.
 * The k loop unrolled 4 times with a prefetch of the panel: 75 -> 82 GFLOP/s
 * (medians of 9) on one Zen 3 core at 320 rows. Even row blocks: 82.8 -> 86.0
 * at 32 rows (medians of 3). */
#include "nn/pgemm.h"
#include "nn/thread_scratch.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "nn/compile_for.h"
NN_COMPILE_FOR("avx2,fma")
#include "nn/avx2_inline.h"
#include <immintrin.h>
#include <string.h>

enum { MR = 6 };

/* Rows [0, R) of C × the panel p, the first w (<= 16) columns kept; one
 * function per R, the row loops unrolled, so the 2R sums stay in registers.
 * A's element (i, k) is at A[i·si + k·sk]: rows packed k-major (si 1, sk R),
 * or A itself (si lda, sk 1) where there was no memory to pack them. */
#define BLOCK(R)                                                                               \
  static void block##R(int K, const float *A, size_t si, size_t sk, const float *p, float beta, \
                       float *C, int ldc, int w) {                                             \
    __m256 s[R][2];                                                                            \
    _Pragma("GCC unroll 6") for (int i = 0; i < R; i++) s[i][0] = s[i][1] = _mm256_setzero_ps(); \
    _Pragma("GCC unroll 4") for (int k = 0; k < K; k++) {                                     \
      /* the panel 16 k ahead (a hint: past its end it does not fault) */                      \
      _mm_prefetch((const char *)(p + (size_t)(k + 16) * NN_PANEL), _MM_HINT_T0);               \
      __m256 b0 = _mm256_loadu_ps(p + (size_t)k * NN_PANEL);                                   \
      __m256 b1 = _mm256_loadu_ps(p + (size_t)k * NN_PANEL + 8);                               \
      _Pragma("GCC unroll 6") for (int i = 0; i < R; i++) {                                    \
        __m256 a = _mm256_broadcast_ss(A + i * si + k * sk);                                   \
        s[i][0] = _mm256_fmadd_ps(a, b0, s[i][0]);                                             \
        s[i][1] = _mm256_fmadd_ps(a, b1, s[i][1]);                                             \
      }                                                                                        \
    }                                                                                          \
    _Pragma("GCC unroll 6") for (int i = 0; i < R; i++) nn_avx2_store_row(s[i], beta, C + (size_t)i * ldc, w); \
  }

/* One row × 4 whole panels (64 columns): a lone row's 2 sums per panel wait on
 * each other's FMA latency, 8 chains do not (decoding one sentence greedily ran
 * 85% of its time in block1). Each sum is still one FMA chain over k in order,
 * so the result is block1's, bit for bit. */
static void row_4panels(int K, const float *A, const float *p, float beta, float *C) {
  __m256 s[8];
  const size_t step = (size_t)K * NN_PANEL; /* from one panel to the next */
  _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) s[i] = _mm256_setzero_ps();
  _Pragma("GCC unroll 2") for (int k = 0; k < K; k++) {
    __m256 a = _mm256_broadcast_ss(A + k);
    _Pragma("GCC unroll 4") for (int q = 0; q < 4; q++) {
      const float *b = p + q * step + (size_t)k * NN_PANEL;
      _mm_prefetch((const char *)(b + 16 * NN_PANEL), _MM_HINT_T0);
      s[2 * q] = _mm256_fmadd_ps(a, _mm256_loadu_ps(b), s[2 * q]);
      s[2 * q + 1] = _mm256_fmadd_ps(a, _mm256_loadu_ps(b + 8), s[2 * q + 1]);
    }
  }
  _Pragma("GCC unroll 4") for (int q = 0; q < 4; q++) nn_avx2_store_row(s + 2 * q, beta, C + q * NN_PANEL, NN_PANEL);
}

BLOCK(1)
BLOCK(2)
BLOCK(3)
BLOCK(4)
BLOCK(5)
BLOCK(6)

static void (*const blocks[MR + 1])(int, const float *, size_t, size_t, const float *, float, float *, int, int) = {
    NULL, block1, block2, block3, block4, block5, block6};

/* Rows [k0, k1) of every panel from W (K,N): W's rows are read in order and
 * each panel gets a block of whole 64-byte rows. */
static void pack_rows(float *P, const float *W, size_t ldw, int K, int N, int k0, int k1) {
  for (int j0 = 0; j0 < N; j0 += NN_PANEL) {
    int w = N - j0 < NN_PANEL ? N - j0 : NN_PANEL;
    float *p = P + (size_t)j0 * K;
    if (w == NN_PANEL) /* two registers, not a call to memcpy per 64 bytes */
      for (int k = k0; k < k1; k++) {
        const float *src = W + (size_t)k * ldw + j0;
        _mm256_storeu_ps(p + (size_t)k * NN_PANEL, _mm256_loadu_ps(src));
        _mm256_storeu_ps(p + (size_t)k * NN_PANEL + 8, _mm256_loadu_ps(src + 8));
      }
    else
      for (int k = k0; k < k1; k++) memcpy(p + (size_t)k * NN_PANEL, W + (size_t)k * ldw + j0, sizeof(float) * w);
  }
}

/* Rows [k0, k1) of every panel from Wᵀ (W is (N,K)): column c of panel j0 is
 * row j0 + c of W. Whole panels go 8 k's at a time through two 8×8
 * transposes in registers; the last panel and the last k's element by element. */
static void pack_cols(float *P, const float *W, size_t ldw, int K, int N, int k0, int k1) {
  for (int j0 = 0; j0 < N; j0 += NN_PANEL) {
    int w = N - j0 < NN_PANEL ? N - j0 : NN_PANEL, k = k0;
    float *p = P + (size_t)j0 * K;
    const float *row = W + (size_t)j0 * ldw;
    for (; w == NN_PANEL && k + 8 <= k1; k += 8)
      for (int h = 0; h < 2; h++) { /* columns [8h, 8h + 8) of the panel */
        __m256 r[8];
        for (int c = 0; c < 8; c++) r[c] = _mm256_loadu_ps(row + (size_t)(8 * h + c) * ldw + k);
        transpose8(r);
        for (int i = 0; i < 8; i++) _mm256_storeu_ps(p + (size_t)(k + i) * NN_PANEL + 8 * h, r[i]);
      }
    for (; k < k1; k++)
      for (int c = 0; c < w; c++) p[(size_t)k * NN_PANEL + c] = row[(size_t)c * ldw + k];
  }
}

enum { PACK_ROWS = 8 }; /* W's rows per pass over the panels: they stay in cache */

void nn_pgemm_pack_avx2(float *P, const float *W, int ldw, int K, int N, bool trans) {
  if (N % NN_PANEL) /* the last panel's padding */
    memset(P + (size_t)(N / NN_PANEL * NN_PANEL) * K, 0, sizeof(float) * NN_PANEL * (size_t)K);
  if (trans) /* a panel's 16 rows of W are contiguous: one panel at a time */
    pack_cols(P, W, (size_t)ldw, K, N, 0, K);
  else
    for (int k0 = 0; k0 < K; k0 += PACK_ROWS)
      pack_rows(P, W, (size_t)ldw, K, N, k0, K - k0 < PACK_ROWS ? K : k0 + PACK_ROWS);
}

/* The row blocks' rows k-major into T (M·K floats and 8 to spare): the kernel
 * then reads A in order, one stream instead of one per row (+3-6% at 32-320
 * rows on one Zen 3 core). */
static void pack_blocks(float *T, int M, int nb, int K, const float *A, int lda) {
  for (int b = 0, i0 = 0; b < nb; b++) {
    int r = M / nb + (b < M % nb);
    nn_avx2_pack_rows(T + (size_t)i0 * K, A + (size_t)i0 * lda, lda, r, K, r);
    i0 += r;
  }
}

void nn_pgemm_avx2(int M, int N, int K, const float *A, int lda, const float *P, float beta,
                   float *C, int ldc) {
  /* the rows as even blocks of at most MR: 32 rows are 6,6,5,5,5,5, not a 2-row
   * tail whose 4 sums cannot keep the FMA pipes full */
  int nb = (M + MR - 1) / MR, j0 = 0;
  if (M == 1)
    for (; j0 + 4 * NN_PANEL <= N; j0 += 4 * NN_PANEL) row_4panels(K, A, P + (size_t)j0 * K, beta, C + j0);
  float *T = M > 1 ? nn_thread_scratch(NN_SCRATCH_PGEMM, (size_t)M * K + 8) : NULL;
  if (T) pack_blocks(T, M, nb, K, A, lda);
  for (; j0 < N; j0 += NN_PANEL) {
    const float *p = P + (size_t)j0 * K;
    int w = N - j0 < NN_PANEL ? N - j0 : NN_PANEL;
    for (int b = 0, i0 = 0; b < nb; b++) {
      int r = M / nb + (b < M % nb);
      if (T)
        blocks[r](K, T + (size_t)i0 * K, 1, (size_t)r, p, beta, C + (size_t)i0 * ldc + j0, ldc, w);
      else
        blocks[r](K, A + (size_t)i0 * lda, (size_t)lda, 1, p, beta, C + (size_t)i0 * ldc + j0, ldc, w);
      i0 += r;
    }
  }
}
NN_COMPILE_END
#else /* not built elsewhere: nn_pgemm_panels() is false */
void nn_pgemm_pack_avx2(float *P, const float *W, int ldw, int K, int N, bool trans) {
  (void)P, (void)W, (void)K, (void)N, (void)trans;
}
void nn_pgemm_avx2(int M, int N, int K, const float *A, int lda, const float *P, float beta,
                   float *C, int ldc) {
  (void)M, (void)N, (void)K, (void)A, (void)lda, (void)P, (void)beta, (void)C, (void)ldc;
}
#endif
