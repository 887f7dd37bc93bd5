/* nmt's own sgemm for every shape on AVX2 + FMA cores (nn/sgemm_avx2.c). */
#ifndef NMT_NN_SGEMM_AVX2_H
#define NMT_NN_SGEMM_AVX2_H
#include <stdbool.h>

/* C (M,N) = alpha·op(A)·op(B) + beta·C, row-major (beta 0 does not read C), on
 * the threads nn/parallel.h gives. Only where the core has AVX2 and FMA
 * (nn_gemm_engine_used() is NN_GEMM_NMT). */
void nn_sgemm_avx2(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc);

#endif
