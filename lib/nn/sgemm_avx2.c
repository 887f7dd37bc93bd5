/* nmt's own sgemm at AVX2 with FMA, for any shape: C = alpha·op(A)·op(B) + beta·C
 * (the "nmt" engine of nn/gemm_path.h), blocked as BLIS does: op(B) is packed
 * KC rows of k at a time into pgemm's 16-column panels (nn/pgemm_avx2.c), op(A)
 * MC rows at a time into micro-panels of 6 rows, k-major, so the kernel reads
 * both in order: a 6×16 block's 12 sums stay in registers over KC k's, its
 * panel (KC·64 bytes) and micro-panel (KC·24) in L1, the MC rows in L2. Each
 * thread packs only its own panels, so the threads never wait on each other.
 * A row's result does not depend on the other rows (only k is blocked). */
#include "nn/sgemm_avx2.h"
#include "nn/gemm_args.h"
#include "nn/parallel.h"
#include "nn/pgemm.h"
#include "nn/thread_scratch.h"
#include <string.h>

/* KC k's (a panel of 16 KB and a micro-panel of 6 KB in L1), MC rows (120 KB
 * of A in L2), NC columns (the C rows they write stay in cache between blocks
 * of k: 44 -> 65 GFLOP/s at 1024x5012x512 on one Zen 3 core). */
enum { MR = 6, KC = 256, MC = 120, NC = 512 };
/* op(B)'s panels packed together, 8 of its rows at a time across all of them
 * (128 KB packed, in L2): one panel alone read one 64-byte line of each of
 * 256 rows a page apart, which no prefetcher follows, and took half the time
 * of 32-row products (32x1024x2048: 38-47 -> 50-55 GFLOP/s on one Zen 3 core). */
enum { PACK_COLS = 8 * NN_PANEL };

typedef nn_gemm_args job;

#if defined(__x86_64__) && defined(__GNUC__)
#include "nn/compile_for.h"
NN_COMPILE_FOR("avx2,fma")
#include "nn/avx2_inline.h"
#include <immintrin.h>

/* op(A)'s rows [i0, i0+mc) × k's [p0, p0+kc) as micro-panels of MR rows, each
 * kc groups of MR floats (rows past mc zero). */
static void pack_a(float *T, const job *j, int i0, int mc, int p0, int kc) {
  for (int r0 = 0; r0 < mc; r0 += MR, T += (size_t)kc * MR) {
    int rows = mc - r0 < MR ? mc - r0 : MR;
    if (rows < MR && !j->ta) memset(T, 0, sizeof(float) * MR * (size_t)kc);
    if (j->ta) { /* A is (K,M): a k's rows are contiguous, read masked to the rows */
      __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
      for (int k = 0; k < kc; k++) /* 8 floats stored, the 2 past the group overwritten next */
        _mm256_storeu_ps(T + (size_t)k * MR, _mm256_maskload_ps(j->A + (size_t)(p0 + k) * j->lda + i0 + r0, m));
    } else
      nn_avx2_pack_rows(T, j->A + (size_t)(i0 + r0) * j->lda + p0, j->lda, rows, kc, MR);
  }
}

/* The panels of op(B)'s columns [c, c+cw) × k's [p0, p0+kc), times alpha. */
static void pack_b(float *p, const job *j, int c, int cw, int p0, int kc) {
  if (j->tb) /* B is (N,K) */
    nn_pgemm_pack_avx2(p, j->B + (size_t)c * j->ldb + p0, j->ldb, kc, cw, true);
  else
    nn_pgemm_pack_avx2(p, j->B + (size_t)p0 * j->ldb + c, j->ldb, kc, cw, false);
  for (size_t i = 0, n = nn_packed_floats(kc, cw); j->alpha != 1 && i < n; i++) p[i] *= j->alpha;
}

/* C's rows [0, rows) × the panel's first w columns = a·b + beta·C. */
static void micro(int kc, const float *a, const float *b, float beta, float *C, int ldc, int rows, int w) {
  __m256 s[MR][2];
  _Pragma("GCC unroll 6") for (int i = 0; i < MR; i++) {
    s[i][0] = s[i][1] = _mm256_setzero_ps();
    _mm_prefetch((const char *)(C + (size_t)i * ldc), _MM_HINT_T0); /* C's tile, due at the end */
    _mm_prefetch((const char *)(C + (size_t)i * ldc + 15), _MM_HINT_T0);
  }
  _Pragma("GCC unroll 4") for (int k = 0; k < kc; k++) {
    _mm_prefetch((const char *)(b + (size_t)(k + 8) * NN_PANEL), _MM_HINT_T0);
    __m256 b0 = _mm256_load_ps(b + (size_t)k * NN_PANEL), b1 = _mm256_load_ps(b + (size_t)k * NN_PANEL + 8);
    _Pragma("GCC unroll 6") for (int i = 0; i < MR; i++) {
      __m256 x = _mm256_broadcast_ss(a + (size_t)k * MR + i);
      s[i][0] = _mm256_fmadd_ps(x, b0, s[i][0]);
      s[i][1] = _mm256_fmadd_ps(x, b1, s[i][1]);
    }
  }
  _Pragma("GCC unroll 6") for (int i = 0; i < MR; i++) if (i < rows)
    nn_avx2_store_row(s[i], beta, C + (size_t)i * ldc, w);
}

/* Columns [n0, n0+w) (at most NC), all rows, all of k; P and T the packing buffers. */
static void chunk(const job *j, int n0, int w, float *P, float *T) {
  for (int p0 = 0; p0 < j->K; p0 += KC) {
    int kc = j->K - p0 < KC ? j->K - p0 : KC;
    float beta = p0 == 0 ? j->beta : 1; /* later blocks add to the first's sums */
    for (int i0 = 0; i0 < j->M; i0 += MC) {
      int mc = j->M - i0 < MC ? j->M - i0 : MC;
      pack_a(T, j, i0, mc, p0, kc);
      for (int c0 = 0; c0 < w; c0 += NN_PANEL) {
        int cw = w - c0 < NN_PANEL ? w - c0 : NN_PANEL;
        float *p = P + (size_t)c0 * kc;
        if (i0 == 0 && c0 % PACK_COLS == 0) /* while B's rows are in cache */
          pack_b(p, j, n0 + c0, w - c0 < PACK_COLS ? w - c0 : PACK_COLS, p0, kc);
        for (int r0 = 0; r0 < mc; r0 += MR)
          micro(kc, T + (size_t)r0 * kc, p, beta, j->C + (size_t)(i0 + r0) * j->ldc + n0 + c0, j->ldc,
                mc - r0 < MR ? mc - r0 : MR, cw);
      }
    }
  }
}

/* Columns [n0, n1): this part's panels, NC columns at a time, so the rows of C
 * they write stay in cache from one block of k to the next. */
static void columns(const job *j, int n0, int n1) {
  int kcmax = j->K < KC ? j->K : KC, mcmax = j->M < MC ? j->M : MC;
  size_t pfl = nn_packed_floats(kcmax, n1 - n0 < NC ? n1 - n0 : NC);
  float *P = nn_thread_scratch(NN_SCRATCH_SGEMM, pfl + (size_t)(mcmax + MR) * kcmax + MR * 8);
  if (!P) { /* no memory to pack in: these columns by OpenBLAS, C not yet touched */
    nn_gemm_args_openblas(j, n0, n1);
    return;
  }
  for (int c = n0; c < n1; c += NC) chunk(j, c, n1 - c < NC ? n1 - c : NC, P, P + pfl);
}
NN_COMPILE_END

static void run(void *ctx, int part, int parts) {
  const job *j = ctx;
  int n0, n1;
  nn_gemm_part_columns(j->N, NN_PANEL, part, parts, &n0, &n1);
  if (n1 > n0) columns(j, n0, n1);
}

void nn_sgemm_avx2(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc) {
  job j = {ta, tb, M, N, K, lda, ldb, ldc, alpha, beta, A, B, C};
  nn_parallel((size_t)M * N * (size_t)K / 4, run, &j);
}
#else /* not built elsewhere: the engine is never NN_GEMM_NMT there */
void nn_sgemm_avx2(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc) {
  nn_gemm_args j = {ta, tb, M, N, K, lda, ldb, ldc, alpha, beta, A, B, C};
  nn_gemm_args_openblas(&j, 0, N);
}
#endif
