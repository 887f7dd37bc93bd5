/* The packed-weight GEMM (nn/pgemm.h), both the rows as this process runs them
 * and the AVX2 panels directly where the core has them (NMT_ISA=sse runs the
 * rows on the plain matrix): W and Wᵀ packed, odd shapes (M across blocks of
 * 6, N across panels of 16), padded lda/ldc, beta 0 (C not read) and 1,
 * against a double-precision product; with the panels, a row's result alone
 * equals the same row among others, bit for bit. */
#include "nn/kernels.h"
#include "nn/pgemm.h"
#include "test.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAXM = 40, MAXK = 70, MAXN = 100 };

static float uniform(uint64_t *s) {
  return (float)((*s = *s * 6364136223846793005u + 1) >> 40) / (1 << 24) - 0.5f;
}

static float A[MAXM * (MAXK + 3)], W[MAXK * MAXN], C[MAXM * (MAXN + 2)], C0[MAXM * (MAXN + 2)];
static float P[MAXK * (MAXN + NN_PANEL)], one[MAXN];

typedef struct {
  const float *(*pack)(float *P, const float *W, int K, int N, bool trans);
  void (*gemm)(int M, int N, int K, const float *A, int lda, const float *P, float beta, float *C,
               int ldc);
  bool rows_apart; /* a row's result does not depend on the others */
} impl;

static void against_double(impl f) {
  uint64_t seed = 11;
  for (int it = 0; it < 60; it++) {
    int M = 1 + (it * 7) % MAXM, N = 1 + (it * 37) % MAXN, K = 1 + (it * 11) % MAXK;
    int lda = K + it % 3, ldc = N + it % 2;
    bool trans = it % 2;
    float beta = it % 4 < 2 ? 0.0f : 1.0f;
    for (int i = 0; i < M * lda; i++) A[i] = uniform(&seed);
    for (int i = 0; i < K * N; i++) W[i] = uniform(&seed); /* (K,N), or (N,K) when trans */
    for (int i = 0; i < M * ldc; i++) C[i] = C0[i] = beta == 0 ? NAN : uniform(&seed);
    CHECK(nn_packed_floats(K, N) <= sizeof P / sizeof *P);
    const float *packed = f.pack(P, W, K, N, trans);
    CHECK(packed == P || (!trans && packed == W)); /* W only where it is its own packed form */
    f.gemm(M, N, K, A, lda, packed, beta, C, ldc);
    double worst = 0;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double want = beta == 0 ? 0 : C0[i * ldc + j];
        for (int k = 0; k < K; k++)
          want += (double)A[i * lda + k] * (trans ? W[j * K + k] : W[k * N + j]);
        worst = fmax(worst, fabs(C[i * ldc + j] - want));
      }
    if (!(worst < 1e-5)) T_FAIL("M %d N %d K %d trans %d beta %g: off by %g", M, N, K, trans, beta, worst);
    for (int i = 0; i < M; i++) /* ldc's padding untouched */
      for (int j = N; j < ldc; j++) CHECK(isnan(C0[i * ldc + j]) ? isnan(C[i * ldc + j]) : C[i * ldc + j] == C0[i * ldc + j]);
    int r = M / 2; /* row r alone */
    f.gemm(1, N, K, A + r * lda, lda, packed, 0, one, N);
    if (beta == 0 && f.rows_apart) CHECK(!memcmp(one, C + r * ldc, sizeof(float) * N));
  }
}

static const float *pack_avx2(float *out, const float *w, int K, int N, bool trans) {
  nn_pgemm_pack_avx2(out, w, trans ? K : N, K, N, trans);
  return out;
}

TEST(nn_gemm_packed_against_double) {
  against_double((impl){nn_pack_weight, nn_gemm_packed, nn_pgemm_panels()});
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    against_double((impl){pack_avx2, nn_pgemm_avx2, true});
#endif
}
