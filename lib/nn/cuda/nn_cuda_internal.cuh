// Shared by the lib/nn/cuda/*.cu files: the runtime's stream and cuBLAS handle,
// error recording, and the launch patterns every kernel file uses (a
// grid-stride loop over elements, deterministic column sums, row reductions).
#ifndef NMT_NN_CUDA_NN_CUDA_INTERNAL_CUH
#define NMT_NN_CUDA_NN_CUDA_INTERNAL_CUH
#include "nn/cuda/nn_cuda.h"
#include <cublas_v2.h>
#include <cuda_runtime.h>

extern cudaStream_t nnc_stream;
extern cublasHandle_t nnc_blas;

// Record the first failure (kept until nnc_shutdown); nnc_sync reports it.
void nnc_check_cuda(cudaError_t e, const char *what);
void nnc_check_blas(cublasStatus_t s, const char *what);
static inline void nnc_launched(const char *what) { nnc_check_cuda(cudaGetLastError(), what); }

// Device scratch for reductions that return to the host: zeroed before the
// kernels add into it, read back (waiting for the stream) after.
struct nnc_totals {
  double sum;
  unsigned long long count;
};
nnc_totals *nnc_totals_begin(const char *what); // NULL (error recorded) before nnc_init
nnc_totals nnc_totals_end(const char *what);

enum { NNC_THREADS = 256, NNC_MAX_BLOCKS = 8192 };

static inline unsigned nnc_blocks(size_t work, unsigned per_block) {
  size_t b = (work + per_block - 1) / per_block, most = NNC_MAX_BLOCKS;
  return (unsigned)(b < most ? b : most);
}

// f(i) for every i < n.
template <class F> __global__ void nnc_each_kernel(size_t n, F f) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}
template <class F> void nnc_each(const char *what, size_t n, F f) {
  if (n == 0) return;
  nnc_each_kernel<<<nnc_blocks(n, NNC_THREADS), NNC_THREADS, 0, nnc_stream>>>(n, f);
  nnc_launched(what);
}

// out[g*C + c] += Σ_{r < rows} val(g, r, c) for every group g and column c.
// A 32×8 block owns 32 columns of one group: coalesced reads along a row, the
// rows split over the 8 thread rows and summed in a fixed order, so the result
// is deterministic (no atomics).
enum { NNC_COL_TILE = 32, NNC_COL_LANES = 8 };
template <class F> __global__ void nnc_col_sums_kernel(float *out, int rows, int C, F val) {
  __shared__ float part[NNC_COL_LANES][NNC_COL_TILE];
  int c = blockIdx.x * NNC_COL_TILE + threadIdx.x, g = blockIdx.y;
  float s = 0;
  if (c < C)
    for (int r = threadIdx.y; r < rows; r += NNC_COL_LANES) s += val(g, r, c);
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    for (int k = 1; k < NNC_COL_LANES; k++) s += part[k][threadIdx.x];
    out[(size_t)g * C + c] += s;
  }
}
template <class F> void nnc_col_sums(const char *what, float *out, int groups, int rows, int C, F val) {
  if (groups <= 0 || C <= 0) return;
  dim3 grid((C + NNC_COL_TILE - 1) / NNC_COL_TILE, groups), block(NNC_COL_TILE, NNC_COL_LANES);
  nnc_col_sums_kernel<<<grid, block, 0, nnc_stream>>>(out, rows, C, val);
  nnc_launched(what);
}

__device__ inline float nnc_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// One warp per row: the grid for `rows` rows, and the row of the calling warp.
enum { NNC_WARPS = NNC_THREADS / 32 };
static inline unsigned nnc_warp_grid(int rows) { return (unsigned)((rows + NNC_WARPS - 1) / NNC_WARPS); }
__device__ inline int nnc_warp_row() { return blockIdx.x * NNC_WARPS + threadIdx.x / 32; }

struct nnc_sum_op {
  template <class T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct nnc_max_op {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Every lane of the warp gets op over the warp's 32 values.
template <class T, class Op> __device__ T nnc_warp_all(T v, Op op) {
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// Every thread of the block (a multiple of 32 threads) gets op over all its
// values, combined in a fixed order. Safe to call repeatedly in one kernel.
template <class T, class Op> __device__ T nnc_block_all(T v, Op op) {
  __shared__ T lanes[32];
  v = nnc_warp_all(v, op);
  __syncthreads(); // an earlier call may still be reading lanes
  if (threadIdx.x % 32 == 0) lanes[threadIdx.x / 32] = v;
  __syncthreads();
  T r = lanes[0];
  for (int w = 1; w < (int)blockDim.x / 32; w++) r = op(r, lanes[w]);
  return r;
}

#endif
