// GEMM on cuBLAS, and the packed weight (a plain copy here). cuBLAS is column-major: a row-major
// matrix X (r,c) with leading dim ld is the column-major Xᵀ (c,r) with the same
// ld, so row-major C = op(A)·op(B) is computed as the column-major
// Cᵀ (N,M) = op(B)ᵀ·op(A)ᵀ: the operands swap, each keeps its own transpose flag.
#include "nn/cuda/nn_cuda_internal.cuh"

static cublasOperation_t op(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

extern "C" void nnc_gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float *A,
                         int lda, const float *B, int ldb, float beta, float *C, int ldc) {
  if (M <= 0 || N <= 0) return;
  nnc_check_blas(cublasSgemm(nnc_blas, op(tb), op(ta), N, M, K, &alpha, B, ldb, A, lda, &beta, C, ldc),
                 "cublasSgemm");
}

extern "C" void nnc_gemm_batched(int batch, bool ta, bool tb, int M, int N, int K, float alpha,
                                 const float *A, int lda, long sa, const float *B, int ldb, long sb,
                                 float beta, float *C, int ldc, long sc) {
  if (batch <= 0 || M <= 0 || N <= 0) return;
  nnc_check_blas(cublasSgemmStridedBatched(nnc_blas, op(tb), op(ta), N, M, K, &alpha, B, ldb, sb, A,
                                           lda, sa, &beta, C, ldc, sc, batch),
                 "cublasSgemmStridedBatched");
}

// The packed form on a GPU is the plain row-major (K,N): cuBLAS packs nothing,
// so W is its own packed form and only Wᵀ is written. Once per batch, so the
// transpose is a plain elementwise copy: reads coalesced, writes strided.
extern "C" const float *nnc_pack_weight(float *P, const float *W, int K, int N, bool trans) {
  if (!trans) return W;
  nnc_each("pack_weight", (size_t)K * N, [=] __device__(size_t i) {
    size_t r = i / K, c = i % K; // W (N,K)
    P[c * N + r] = W[i];
  });
  return P;
}

extern "C" void nnc_gemm_packed(int M, int N, int K, const float *A, int lda, const float *P,
                                float beta, float *C, int ldc) {
  nnc_gemm(false, false, M, N, K, 1, A, lda, P, N, beta, C, ldc);
}
