/* int8 inference GEMM (nn_qgemm): against the float product within the
 * quantization's error bound, and the VNNI kernel against the portable loop. */
#include "nn/qgemm.h"
#include "base/err.h"
#include "test.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

enum { MAXM = 13, MAXK = 70, MAXN = 200 };

static float uniform(uint64_t *s) {
  return (float)((*s = *s * 6364136223846793005u + 1) >> 40) / (1 << 24) - 0.5f;
}

/* Odd shapes (K not a multiple of 4, N not of 64, M across groups of 6), a
 * shortlist-like n < N, beta 0 (C not read: NaN stays out) and 1, padded ldw/lda/ldc. */
typedef struct {
  int M, N, K, n, lda, ldw, ldc;
  float beta;
} shape;

static shape shape_of(int it) {
  shape s = {1 + it % MAXM, 1 + (it * 37) % MAXN, 1 + (it * 11) % MAXK, 0, 0, 0, 0, it % 2 ? 1.0f : 0.0f};
  s.n = it % 3 ? s.N : 1 + (s.N - 1) / 2;
  s.lda = s.K + it % 3, s.ldw = s.N + it % 2, s.ldc = s.n + it % 3;
  return s;
}

static uint32_t scratch[MAXM * (MAXK / 4 + 2)]; /* nn_qgemm_scratch: K4 + 1 words a row */
static float A[MAXM * (MAXK + 2)], W[MAXK * (MAXN + 1)], C[MAXM * (MAXN + 2)], C0[MAXM * (MAXN + 2)];

/* Case it: random A and W, C (C0 its copy), W packed into q, C = nn_qgemm's result. */
static shape run_case(int it, uint64_t *seed, nn_qmat *q) {
  shape s = shape_of(it);
  for (int i = 0; i < s.M * s.lda; i++) A[i] = uniform(seed);
  for (int i = 0; i < s.K * s.ldw; i++) W[i] = uniform(seed) * (i % 5 == 0 ? 4 : 1); /* some large weights */
  for (int i = 0; i < s.M * s.ldc; i++) C[i] = C0[i] = s.beta == 0 ? NAN : (float)(i % 7) - 3;
  CHECK_INT(nn_qmat_pack(q, W, s.K, s.N, s.ldw), NMT_OK);
  CHECK(nn_qgemm_scratch(s.M, q) <= sizeof scratch);
  nn_qgemm(s.M, s.n, A, s.lda, q, s.beta, C, s.ldc, scratch);
  return s;
}

/* |Σ x·w - Σ x'·w'| with x' and w' each off by at most half a step (s_x/2, s_j/2):
 * ≤ Σ |x|·s_j/2 + Σ |w|·s_x/2 + K·s_x·s_j/4. */
TEST(nn_qgemm_within_quantization_bound) {
  uint64_t seed = 99;
  for (int it = 0; it < 400; it++) {
    nn_qmat q;
    shape s = run_case(it, &seed, &q);
    for (int m = 0; m < s.M; m++) {
      double sx = 0;
      for (int k = 0; k < s.K; k++) sx = fmax(sx, fabs(A[m * s.lda + k]));
      sx /= 127;
      for (int j = 0; j < s.n; j++) {
        double want = s.beta == 0 ? 0 : C0[m * s.ldc + j], sw = 0, ax = 0, aw = 0;
        for (int k = 0; k < s.K; k++) sw = fmax(sw, fabs(W[k * s.ldw + j]));
        sw /= 127;
        for (int k = 0; k < s.K; k++) {
          want += (double)A[m * s.lda + k] * W[k * s.ldw + j];
          ax += fabs(A[m * s.lda + k]), aw += fabs(W[k * s.ldw + j]);
        }
        double bound = 1.001 * (ax * sw / 2 + aw * sx / 2 + s.K * sx * sw / 4) + 1e-5 * (1 + fabs(want));
        if (!(fabs(C[m * s.ldc + j] - want) <= bound)) {
          T_FAIL("M%d N%d K%d n%d at (%d,%d): %g, want %g ± %g", s.M, s.N, s.K, s.n, m, j,
                 C[m * s.ldc + j], want, bound);
          nn_qmat_free(&q);
          return;
        }
      }
      for (int j = s.n; j < s.ldc; j++) /* columns past n are not written */
        CHECK(memcmp(&C[m * s.ldc + j], &C0[m * s.ldc + j], sizeof(float)) == 0);
    }
    nn_qmat_free(&q);
  }
}

/* Each kernel the core runs (AVX-512 VNNI, AVX2) against the portable loop: the same integers. */
static void kernel_matches_portable(nn_qgemm_kernel k, const char *name) {
  uint64_t seed = 7;
  for (int it = 0; it < 400; it++) {
    nn_qgemm_force(k);
    nn_qmat q;
    shape s = run_case(it, &seed, &q);
    nn_qgemm_force(NN_QGEMM_PORTABLE);
    nn_qgemm(s.M, s.n, A, s.lda, &q, s.beta, C0, s.ldc, scratch);
    for (int i = 0; i < s.M * s.ldc; i++)
      if (!(fabsf(C[i] - C0[i]) <= 1e-6f * (1 + fabsf(C0[i])) || (isnan(C[i]) && isnan(C0[i])))) {
        T_FAIL("M%d N%d K%d n%d at %d: %s %g, portable %g", s.M, s.N, s.K, s.n, i, name, C[i], C0[i]);
        break;
      }
    nn_qmat_free(&q);
  }
  nn_qgemm_force(NN_QGEMM_BEST);
}

TEST(nn_qgemm_kernels_match_portable) {
  if (!nn_qgemm_vnni() && !nn_qgemm_avx2()) T_SKIP("no AVX-512 VNNI or AVX2 on this CPU");
  if (nn_qgemm_vnni()) kernel_matches_portable(NN_QGEMM_BEST, "vnni");
  nn_qgemm_force(NN_QGEMM_AVX2);
  bool avx2 = nn_qgemm_avx2();
  nn_qgemm_force(NN_QGEMM_BEST);
  if (avx2) kernel_matches_portable(NN_QGEMM_AVX2, "avx2");
}
