/* A GEMM for a handful of rows that reads B once (nn/gemm_rows.c). */
#ifndef NMT_NN_GEMM_ROWS_H
#define NMT_NN_GEMM_ROWS_H
#include <stdbool.h>

enum { NN_GEMM_ROWS = 8 };

/* C (M,N) = alpha·A (M,K)·B (K,N) + beta·C, row-major (beta 0 does not read C),
 * when 2 <= M <= NN_GEMM_ROWS and the CPU has AVX-512; false (nothing done) otherwise. */
bool nn_gemm_rows(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                  int ldb, float beta, float *C, int ldc);

#endif
