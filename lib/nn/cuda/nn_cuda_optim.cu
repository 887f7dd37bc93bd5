// Loops over the whole parameter buffer (lib/nn/optim.c): the squared
// gradient norm for clipping, the Adam update and the weights' moving
// average. Clipping itself is nnc_scale_fwd(g, g, k, n).
#include "nn/cuda/nn_cuda_internal.cuh"

__global__ static void sumsq_kernel(const float *g, size_t n, nnc_totals *totals) {
  double s = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    s += (double)g[i] * g[i];
  s = nnc_block_all(s, nnc_sum_op());
  if (threadIdx.x == 0) atomicAdd(&totals->sum, s);
}

extern "C" double nnc_sumsq(const float *g, size_t n) {
  nnc_totals *totals = nnc_totals_begin("sumsq");
  if (!totals || n == 0) return 0;
  sumsq_kernel<<<nnc_blocks(n, NNC_THREADS), NNC_THREADS, 0, nnc_stream>>>(g, n, totals);
  nnc_launched("sumsq");
  return nnc_totals_end("sumsq").sum;
}

// m = b1·m + (1-b1)·g, v = b2·v + (1-b2)·g², w -= lr·m/(√v + eps), as nn_vadam.
extern "C" void nnc_vadam(float *w, float *m, float *v, const float *g, size_t n, float b1, float b2,
                         float lr, float eps) {
  float c1 = 1 - b1, c2 = 1 - b2;
  nnc_each("adam", n, [=] __device__(size_t i) {
    float gi = g[i], mi = b1 * m[i] + c1 * gi, vi = b2 * v[i] + c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] -= lr * mi / (sqrtf(vi) + eps);
  });
}

// The weights' moving average, as nn_lerp.
extern "C" void nnc_lerp(float *y, const float *x, float d, size_t n) {
  nnc_each("lerp", n, [=] __device__(size_t i) { y[i] = (1 - d) * y[i] + d * x[i]; });
}
