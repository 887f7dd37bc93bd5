/* Every float GEMM engine (nn/gemm_path.h) this host runs, called directly:
 * OpenBLAS (the reference), nmt's AVX2 panels, oneDNN; and nn_gemm, which runs
 * the engine chosen (NMT_ISA / NMT_GEMM). Each against a double-precision
 * product over transposes, alpha (across packing groups too), beta 0 (C not read: it holds NaN), 1 and
 * 0.5, padded leading dimensions, and shapes across the AVX2 engine's blocks
 * (6 rows, 16 columns; 120 rows, 256 k's, 512 columns) and matrix-vector
 * shapes (up to 8 rows, one column, one k); with nmt's panels a
 * row's result alone equals the same row among others, bit for bit. */
#include "nn/gemm_path.h"
#include "nn/kernels.h"
#include "nn/sgemm_avx2.h"
#include "nn/sgemm_onednn.h"
#include "test.h"
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef void (*gemm_fn)(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                        const float *B, int ldb, float beta, float *C, int ldc);

static void openblas(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
              K, alpha, A, lda, B, ldb, beta, C, ldc);
}

static float uniform(uint64_t *s) {
  return (float)((*s = *s * 6364136223846793005u + 1) >> 40) / (1 << 24) - 0.5f;
}

/* One product of the given shape; false after the first failure reported. */
static bool one(gemm_fn f, const char *name, bool rows_apart, int M, int N, int K, bool ta, bool tb,
                float alpha, float beta, int pad, uint64_t *seed) {
  int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
  size_t na = (size_t)(ta ? K : M) * lda, nb = (size_t)(tb ? N : K) * ldb, nc = (size_t)M * ldc;
  float *A = malloc(sizeof(float) * na), *B = malloc(sizeof(float) * nb);
  float *C = malloc(sizeof(float) * nc), *C0 = malloc(sizeof(float) * nc), *row = malloc(sizeof(float) * N);
  bool ok = A && B && C && C0 && row;
  CHECK(ok);
  for (size_t i = 0; ok && i < na; i++) A[i] = uniform(seed);
  for (size_t i = 0; ok && i < nb; i++) B[i] = uniform(seed);
  for (size_t i = 0; ok && i < nc; i++) C[i] = C0[i] = beta == 0 ? NAN : uniform(seed);
  if (ok) f(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  double worst = 0;
  for (int i = 0; ok && i < M; i++) {
    for (int j = 0; j < N; j++) {
      double want = 0;
      for (int k = 0; k < K; k++)
        want += (double)(ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k]) *
                (tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j]);
      want = alpha * want + (beta == 0 ? 0 : beta * C0[(size_t)i * ldc + j]);
      worst = fmax(worst, fabs(C[(size_t)i * ldc + j] - want) / sqrt(K + 1.0)); /* NaN fails below */
      if (isnan(C[(size_t)i * ldc + j])) worst = INFINITY;
    }
    for (int j = N; j < ldc; j++) /* ldc's padding untouched */
      if (memcmp(&C[(size_t)i * ldc + j], &C0[(size_t)i * ldc + j], sizeof(float))) worst = INFINITY;
  }
  if (ok && !(worst < 2e-6)) {
    T_FAIL("%s M %d N %d K %d ta %d tb %d alpha %g beta %g pad %d: off by %g (per sqrt(K+1))", name, M,
           N, K, ta, tb, alpha, beta, pad, worst);
    ok = false;
  }
  if (ok && rows_apart && beta == 0) { /* row M/2 alone */
    int r = M / 2;
    f(ta, tb, 1, N, K, alpha, ta ? A + r : A + (size_t)r * lda, lda, B, ldb, 0, row, N);
    if (memcmp(row, C + (size_t)r * ldc, sizeof(float) * N)) {
      T_FAIL("%s M %d N %d K %d ta %d tb %d: row %d alone differs", name, M, N, K, ta, tb, r);
      ok = false;
    }
  }
  free(A), free(B), free(C), free(C0), free(row);
  return ok;
}

static void against_double(gemm_fn f, const char *name, bool rows_apart) {
  uint64_t seed = 5;
  static const float alphas[] = {1, 0.5f}, betas[] = {0, 1, 0.5f};
  for (int it = 0; it < 48; it++) { /* small shapes, every combination in turn */
    int M = 1 + (it * 7) % 40, N = 1 + (it * 37) % 100, K = 1 + (it * 11) % 70;
    if (!one(f, name, rows_apart, M, N, K, it & 1, it >> 1 & 1, alphas[it >> 2 & 1], betas[it % 3],
             it % 3, &seed))
      return;
  }
  for (int it = 0; it < 12; it++) /* one k: a column times a row */
    if (!one(f, name, rows_apart, 9 + it * 5, 1 + it * 23, 1, it & 1, it >> 1 & 1, alphas[it >> 2 & 1], betas[it % 3],
             it % 3, &seed))
      return;
  /* across the blocks; then a few rows and one column (nmt's engine: matrix-vector products) */
  static const int big[][3] = {{125, 530, 260}, {121, 1030, 100}, {64, 520, 300}, {7, 515, 513},
                               {40, 1, 300}, {3, 70, 300}};
  for (int b = 0; b < 6; b++)
    for (int t = 0; t < 4; t++)
      if (!one(f, name, rows_apart, big[b][0], big[b][1], big[b][2], t & 1, t >> 1, t == 2 ? 0.5f : 1, t == 3 ? 1 : 0,
               b % 2, &seed))
        return;
}

TEST(nn_sgemm_engines_against_double) {
  against_double(openblas, "openblas", false);
  against_double(nn_sgemm_onednn, "onednn", false);
  against_double(nn_gemm, "nn_gemm", false); /* the engine chosen, sgemv below 9 rows included */
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    against_double(nn_sgemm_avx2, "nmt", true);
#endif
}

/* The engine follows the vector width unless NMT_GEMM says: never OpenBLAS's
 * core type (OPENBLAS_CORETYPE=Prescott must not change it). */
TEST(nn_gemm_engine_chosen_by_features) {
  const char *want = getenv("NMT_GEMM");
  nn_gemm_engine e = nn_gemm_engine_used();
  for (int i = 0; want && i < NN_GEMM_ENGINES; i++)
    if (!strcmp(want, nn_gemm_engine_name((nn_gemm_engine)i))) { /* the core runs all but nmt without FMA */
      CHECK(e == (nn_gemm_engine)i || i == NN_GEMM_NMT);
      return;
    }
  bool fma = false;
#if defined(__x86_64__) && defined(__GNUC__)
  fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  const char *line = nn_gemm_path_line();
  CHECK(strstr(line, nn_gemm_engine_name(e)) != NULL);
  CHECK(strstr(line, "CPU ") != NULL);
  if (strstr(line, "vector math avx512")) CHECK(e == NN_GEMM_ONEDNN);
  else if (strstr(line, "vector math avx2")) CHECK(e == (fma ? NN_GEMM_NMT : NN_GEMM_OPENBLAS));
  else CHECK(e == NN_GEMM_OPENBLAS);
}
