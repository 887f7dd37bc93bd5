// The planted GPU bugs of planted.h, written as lib/nn/cuda/'s files write kernels.
#include "nn/cuda/nn_cuda_internal.cuh"
#include "planted.h"

__global__ static void col_sums_no_barrier(float *out, const float *x, int rows, int C) {
  __shared__ float part[NNC_COL_LANES][NNC_COL_TILE];
  int c = blockIdx.x * NNC_COL_TILE + threadIdx.x;
  float s = 0;
  if (c < C)
    for (int r = threadIdx.y; r < rows; r += NNC_COL_LANES) s += x[(size_t)r * C + c];
  part[threadIdx.y][threadIdx.x] = s; // the bug: no __syncthreads() after this
  if (threadIdx.y == 0 && c < C) {
    for (int k = 1; k < NNC_COL_LANES; k++) s += part[k][threadIdx.x];
    out[c] = s;
  }
}

extern "C" void planted_col_sums_no_barrier(float *out, const float *x, int rows, int C) {
  dim3 grid((C + NNC_COL_TILE - 1) / NNC_COL_TILE), block(NNC_COL_TILE, NNC_COL_LANES);
  col_sums_no_barrier<<<grid, block, 0, nnc_stream>>>(out, x, rows, C);
  nnc_launched("planted col sums");
}

extern "C" void planted_fill_past_end(float *y, size_t n) {
  nnc_each("planted fill", n + 1, [=] __device__(size_t i) { y[i] = 1; });
}

extern "C" void planted_gemm_no_swap(int M, int N, int K, const float *A, int lda, const float *B,
                                     int ldb, float *C, int ldc) {
  float one = 1, zero = 0;
  nnc_check_blas(cublasSgemm(nnc_blas, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, A, lda, B, ldb,
                             &zero, C, ldc),
                 "planted gemm");
}

__global__ static void divergent_barrier(float *y) {
  if (threadIdx.x % 2) return;
  __syncthreads();
  y[threadIdx.x] = 1;
}

extern "C" void planted_divergent_barrier(float *y) {
  divergent_barrier<<<1, 64, 0, nnc_stream>>>(y);
  nnc_launched("planted divergent barrier");
}

__global__ static void partial_warp(float *y) {
  float v = nnc_warp_all(1.0f, nnc_sum_op());
  if (threadIdx.x == 0) *y = v;
}

extern "C" void planted_partial_warp(float *y) {
  partial_warp<<<1, 48, 0, nnc_stream>>>(y);
  nnc_launched("planted partial warp");
}

__global__ static void empty_kernel() {}

extern "C" void planted_launch(unsigned grid_y, unsigned block) {
  empty_kernel<<<dim3(1, grid_y), block, 0, nnc_stream>>>();
  nnc_launched("planted launch");
}

__global__ static void big_shared(float *y) {
  __shared__ float big[13000];
  big[threadIdx.x] = 1;
  *y = big[0];
}

extern "C" void planted_big_shared(float *y) {
  big_shared<<<1, 32, 0, nnc_stream>>>(y);
  nnc_launched("planted big shared");
}
