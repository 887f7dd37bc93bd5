/* One float GEMM's arguments as the CPU engines hand them to their threads
 * (nn/parallel.h): C (M,N) = alpha·op(A)·op(B) + beta·C, row-major; and the
 * columns each thread takes. */
#ifndef NMT_NN_GEMM_ARGS_H
#define NMT_NN_GEMM_ARGS_H
#include <cblas.h>
#include <stdbool.h>

typedef struct {
  bool ta, tb;
  int M, N, K, lda, ldb, ldc;
  float alpha, beta;
  const float *A, *B;
  float *C;
} nn_gemm_args;

/* Part `part` of `parts`: columns [*n0, *n1), whole groups of `group` columns
 * (a panel, a cache line) as even as they allow; empty where there are fewer
 * groups than parts. A column's result does not depend on the split. */
static inline void nn_gemm_part_columns(int N, int group, int part, int parts, int *n0, int *n1) {
  int groups = (N + group - 1) / group;
  *n0 = groups * part / parts * group;
  *n1 = groups * (part + 1) / parts * group;
  if (*n1 > N) *n1 = N;
}

/* Columns [n0, n1) of j by OpenBLAS's sgemm: the reference engine, and where
 * another cannot run (no memory to pack in, no oneDNN). */
static inline void nn_gemm_args_openblas(const nn_gemm_args *j, int n0, int n1) {
  cblas_sgemm(CblasRowMajor, j->ta ? CblasTrans : CblasNoTrans, j->tb ? CblasTrans : CblasNoTrans, j->M,
              n1 - n0, j->K, j->alpha, j->A, j->lda, j->tb ? j->B + (size_t)n0 * j->ldb : j->B + n0, j->ldb,
              j->beta, j->C + n0, j->ldc);
}

#endif
