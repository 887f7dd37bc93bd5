/* oneDNN's sgemm, the GEMM engine of AVX-512 cores (nn/gemm_path.h). */
#ifndef NMT_NN_SGEMM_ONEDNN_H
#define NMT_NN_SGEMM_ONEDNN_H
#include <stdbool.h>

/* Whether libdnnl.so.2 is loaded (it is loaded on the first call; a line on
 * stderr says so once where it cannot be). */
bool nn_sgemm_onednn_loaded(void);
/* C (M,N) = alpha·op(A)·op(B) + beta·C, row-major, on the threads nn/parallel.h
 * gives; OpenBLAS's sgemm where oneDNN is missing or refuses the call. */
void nn_sgemm_onednn(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc);

#endif
