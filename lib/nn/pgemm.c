/* The packed-weight GEMM's rows (nn/pgemm.h): the panels where nmt's own
 * engine runs (nn/gemm_path.h), else the plain matrix. */
#include "nn/pgemm.h"
#include "nn/gemm_path.h"
#include "nn/kernels.h"
#include "nn/parallel.h"
#include <cblas.h>

size_t nn_packed_floats(int K, int N) {
  return (size_t)K * (size_t)((N + NN_PANEL - 1) / NN_PANEL * NN_PANEL);
}

bool nn_pgemm_panels(void) { return nn_gemm_engine_used() == NN_GEMM_NMT; }

/* W (K,N), or Wᵀ where trans (W then is (N,K)); W itself when it is already
 * the plain form. */
const float *nn_pack_weight(float *P, const float *W, int K, int N, bool trans) {
  if (nn_pgemm_panels())
    nn_pgemm_pack_avx2(P, W, trans ? K : N, K, N, trans);
  else if (trans)
    cblas_somatcopy(CblasRowMajor, CblasTrans, N, K, 1.0f, W, K, P, N);
  else
    return W;
  return P;
}

typedef struct {
  int M, N, K, lda, ldc;
  const float *A, *P;
  float beta;
  float *C;
} job;

/* Panels [part·Q/parts, (part+1)·Q/parts) of the Q: a column's result does not
 * depend on the split. */
static void run(void *ctx, int part, int parts) {
  const job *j = ctx;
  int Q = (j->N + NN_PANEL - 1) / NN_PANEL, q0 = Q * part / parts, q1 = Q * (part + 1) / parts;
  int n0 = q0 * NN_PANEL, n1 = q1 * NN_PANEL < j->N ? q1 * NN_PANEL : j->N;
  if (n1 > n0)
    nn_pgemm_avx2(j->M, n1 - n0, j->K, j->A, j->lda, j->P + (size_t)n0 * j->K, j->beta, j->C + n0, j->ldc);
}

/* On the threads OpenBLAS would use (nn/parallel.h): one worker alone (a
 * decoder's only batch) gets them all, as sgemm gave it. */
void nn_gemm_packed(int M, int N, int K, const float *A, int lda, const float *P, float beta,
                    float *C, int ldc) {
  if (M <= 0 || N <= 0) return;
  if (!nn_pgemm_panels()) {
    nn_gemm(false, false, M, N, K, 1, A, lda, P, N, beta, C, ldc);
    return;
  }
  job j = {M, N, K, lda, ldc, A, P, beta, C};
  nn_parallel((size_t)M * N * (size_t)K / 4, run, &j);
}
