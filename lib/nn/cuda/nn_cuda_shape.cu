// Moving data: column-block copies (concat, slice) and the embedding gather
// with its scatter-add backward (lib/nn/shape.c).
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_copy_cols(float *dst, int ldd, const float *src, int lds, int R, int C,
                              float beta) {
  nnc_each("copy_cols", (size_t)R * C, [=] __device__(size_t i) {
    size_t r = i / C, c = i % C;
    float s = src[r * lds + c];
    float *d = dst + r * ldd + c;
    *d = beta == 0 ? s : beta * *d + s; // beta 0 overwrites whatever was there
  });
}

extern "C" void nnc_gather_fwd(float *y, const float *E, const int *ids, int N, int D) {
  nnc_each("gather_fwd", (size_t)N * D, [=] __device__(size_t i) {
    size_t n = i / D, k = i % D;
    y[i] = E[(size_t)ids[n] * D + k];
  });
}

extern "C" void nnc_scatter_rows(float *y, const int *ids, const float *x, int N, int D) {
  nnc_each("scatter_rows", (size_t)N * D, [=] __device__(size_t i) {
    size_t n = i / D, k = i % D;
    y[(size_t)ids[n] * D + k] = x[i];
  });
}

// Repeated ids add into the same row: atomics (the order of the additions varies).
extern "C" void nnc_gather_bwd(float *dE, const int *ids, const float *dy, int N, int D) {
  nnc_each("gather_bwd", (size_t)N * D, [=] __device__(size_t i) {
    size_t n = i / D, k = i % D;
    atomicAdd(&dE[(size_t)ids[n] * D + k], dy[i]);
  });
}
