/* A matrix times a vector at AVX2 + FMA (nn/gemv_avx2.c): nmt's engine's products of a
 * few rows, or of one column, so they do not depend on OpenBLAS's kernel either. */
#ifndef NMT_NN_GEMV_AVX2_H
#define NMT_NN_GEMV_AVX2_H
#include <stdbool.h>

/* y[n·incy] = alpha·Σ_k x[k·incx]·W(k,n) + beta·y[n·incy] for n < N, where W(k,n) is
 * W[k·ldw + n], or W[n·ldw + k] where trans (beta 0 does not read y). false, nothing
 * done, where x is too long to gather (K > 8192 with incx > 1). */
bool nn_gemv_avx2(bool trans, int N, int K, float alpha, const float *W, int ldw, const float *x,
                  int incx, float beta, float *y, int incy);

/* C[m·ldc + n] = alpha·a[m·inca]·b[n·incb] + beta·C[m·ldc + n] for m < M, n < N: a
 * product over one k (the attention's backward, a column of scores times a row),
 * which OpenBLAS's Prescott kernel ran at a third of the speed (beta 0 does not read C). false,
 * nothing done, where b is too long to gather (N > 8192 with incb > 1). */
bool nn_outer_avx2(int M, int N, float alpha, const float *a, int inca, const float *b, int incb, float beta,
                   float *C, int ldc);

#endif
