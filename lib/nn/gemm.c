/* GEMM on the engine nn/gemm_path.h chose, and the matmul and linear ops. */
#include "nn/gemm_args.h"
#include "nn/gemm_path.h"
#include "nn/gemm_rows.h"
#include "nn/gemv_avx2.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/pgemm.h"
#include "nn/qgemm.h"
#include "nn/sgemm_avx2.h"
#include "nn/sgemm_onednn.h"
#include <cblas.h>
#include <string.h>

enum { THIN_WORK = 1 << 15 }; /* M·N·K below which nmt's engine leaves a product to OpenBLAS */

/* Matrix-vector products: a few rows (decoding one sentence, a small beam), each
 * one vector times op(B), or one column (the attention's scores, one per sentence),
 * op(A) times a vector; and products over one k (their backward). On either engine
 * beside OpenBLAS they are nmt's own AVX2 code, so they do not run in whatever kernel
 * OpenBLAS's model table picked (decoding ran 9-55% slower under its Prescott kernel). */
static bool thin_avx2(const nn_gemm_args *j) {
  if (j->K == 1) /* a column times a row: op(A) (M,1), op(B) (1,N) */
    return nn_outer_avx2(j->M, j->N, j->alpha, j->A, j->ta ? 1 : j->lda, j->B, j->tb ? j->ldb : 1, j->beta, j->C,
                         j->ldc);
  if (j->M <= NN_GEMM_ROWS) {
    for (int m = 0; m < j->M; m++) /* refused (K too long to gather) on the first row or never */
      if (!nn_gemv_avx2(j->tb, j->N, j->K, j->alpha, j->B, j->ldb, j->ta ? j->A + m : j->A + (size_t)m * j->lda,
                        j->ta ? j->lda : 1, j->beta, j->C + (size_t)m * j->ldc, 1))
        return false;
    return true;
  }
  return j->N == 1 && nn_gemv_avx2(!j->ta, j->M, j->K, j->alpha, j->A, j->lda, j->B, j->tb ? 1 : j->ldb, j->beta,
                                   j->C, j->ldc);
}

void nn_gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
             const float *B, int ldb, float beta, float *C, int ldc) {
  nn_gemm_args j = {ta, tb, M, N, K, lda, ldb, ldc, alpha, beta, A, B, C};
  nn_gemm_engine e = nn_gemm_engine_used();
  /* A few rows times a weight matrix at AVX-512's width: nn_gemm_rows reads B once for all rows */
  if (!ta && !tb && nn_gemm_rows(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)) return;
  if (e != NN_GEMM_OPENBLAS && K > 0 && nn_gemm_avx2_allowed() && thin_avx2(&j)) return;
  if (M <= NN_GEMM_ROWS && K > 0) { /* sgemm would pack all of B for them: one sgemv per row */
    for (int m = 0; m < M; m++)
      cblas_sgemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, tb ? N : K, tb ? K : N, alpha, B,
                  ldb, ta ? A + m : A + (size_t)m * lda, ta ? lda : 1, beta, C + (size_t)m * ldc, 1);
    return;
  }
  /* nmt's panels: not the tiny products, whose packing costs more than the product,
   * nor 2 to 7 columns, where 16-column panels would compute mostly padding */
  if (e == NN_GEMM_NMT && N >= NN_PANEL / 2 && (size_t)M * N * K >= THIN_WORK)
    nn_sgemm_avx2(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else if (e == NN_GEMM_ONEDNN)
    nn_sgemm_onednn(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    nn_gemm_args_openblas(&j, 0, N);
}

void nn_gemm_batched(int batch, bool ta, bool tb, int M, int N, int K, float alpha,
                     const float *A, int lda, long sa, const float *B, int ldb, long sb,
                     float beta, float *C, int ldc, long sc) {
  for (int i = 0; i < batch; i++)
    nn_gemm(ta, tb, M, N, K, alpha, A + i * sa, lda, B + i * sb, ldb, beta, C + i * sc, ldc);
}

bool nn_gemm_weights(nn_graph *g, int M, int n, const float *A, int lda, const nn_tensor *W,
                     float beta, float *C, int ldc) {
  if (W->pk) {
    g->be->gemm_packed(M, n, W->rows, A, lda, W->pk, beta, C, ldc);
    return true;
  }
  if (!W->q) {
    g->be->gemm(false, false, M, n, W->rows, 1, A, lda, W->v, W->cols, beta, C, ldc);
    return true;
  }
  void *scratch = nn_alloc(g, nn_qgemm_scratch(M, W->q)); /* the arena: no malloc per step */
  if (!scratch) return false;
  nn_qgemm(M, n, A, lda, W->q, beta, C, ldc, scratch);
  return true;
}

/* C = op(A)·op(B): dA = dC·op(B)ᵀ (transposed back when ta), dB likewise. */
static void matmul_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *a = e->in[0], *b = e->in[1], *c = e->out[0];
  bool ta = e->n[0], tb = e->n[1];
  int M = c->rows, N = c->cols, K = ta ? a->rows : a->cols;
  if (a->g) {
    if (!ta) /* dA (M,K) = dC (M,N) · op(B)ᵀ */
      be->gemm(false, !tb, M, K, N, 1, c->g, N, b->v, b->cols, 1, a->g, a->cols);
    else /* dA (K,M) = op(B) · dCᵀ */
      be->gemm(tb, true, K, M, N, 1, b->v, b->cols, c->g, N, 1, a->g, a->cols);
  }
  if (b->g) {
    if (!tb) /* dB (K,N) = op(A)ᵀ · dC */
      be->gemm(!ta, false, K, N, M, 1, a->v, a->cols, c->g, N, 1, b->g, b->cols);
    else /* dB (N,K) = dCᵀ · op(A) */
      be->gemm(true, ta, N, K, M, 1, c->g, N, a->v, a->cols, 1, b->g, b->cols);
  }
}
static const nn_opdef matmul_op = {"matmul", matmul_bw};

nn_tensor *nn_matmul(nn_graph *g, nn_tensor *a, bool ta, nn_tensor *b, bool tb) {
  if (g->failed) return NULL;
  int M = ta ? a->cols : a->rows, K = ta ? a->rows : a->cols;
  int Kb = tb ? b->cols : b->rows, N = tb ? b->rows : b->cols;
  if (!nn_require(g, K == Kb, "matmul: inner sizes differ (%d vs %d)", K, Kb)) return NULL;
  nn_tensor *c = nn_new(g, M, N);
  if (!c) return NULL;
  if (!ta && !tb) {
    if (!nn_gemm_weights(g, M, N, a->v, a->cols, b, 0, c->v, N)) return NULL;
  } else
    g->be->gemm(ta, tb, M, N, K, 1, a->v, a->cols, b->v, b->cols, 0, c->v, N);
  nn_entry *e = nn_record(g, &matmul_op);
  if (e) *e = (nn_entry){.op = &matmul_op, .in = {a, b}, .out = {c}, .n = {ta, tb}};
  return c;
}

static void linear_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *x = e->in[0], *W = e->in[1], *b = e->in[2], *y = e->out[0];
  int R = y->rows, In = x->cols, Out = y->cols;
  if (x->g) be->gemm(false, true, R, In, Out, 1, y->g, Out, W->v, Out, 1, x->g, In);
  if (W->g) be->gemm(true, false, In, Out, R, 1, x->v, In, y->g, Out, 1, W->g, Out);
  if (b->g) be->bias_bwd(NULL, b->g, y->g, R, Out);
}
static const nn_opdef linear_op = {"linear", linear_bw};

nn_tensor *nn_linear(nn_graph *g, nn_tensor *x, nn_tensor *W, nn_tensor *bias) {
  if (g->failed) return NULL;
  if (!nn_require(g, x->cols == W->rows && bias->rows == 1 && bias->cols == W->cols,
                  "linear: x (%d,%d), W (%d,%d), bias (%d,%d)", x->rows, x->cols, W->rows,
                  W->cols, bias->rows, bias->cols))
    return NULL;
  nn_tensor *y = nn_new(g, x->rows, W->cols);
  if (!y) return NULL;
  g->be->copy_cols(y->v, y->cols, bias->v, 0, x->rows, y->cols, 0); /* the bias in every row */
  if (!nn_gemm_weights(g, x->rows, W->cols, x->v, x->cols, W, 1, y->v, y->cols)) return NULL;
  nn_entry *e = nn_record(g, &linear_op);
  if (e) *e = (nn_entry){.op = &linear_op, .in = {x, W, bias}, .out = {y}};
  return y;
}
