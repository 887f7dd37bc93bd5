// Max-pooling over time (lib/nn/maxpool.c): one thread per (sentence b,
// feature f) walks the positions; the first maximum wins, as on the CPU.
// Backward needs no atomics: each (b, f) points into its own element of dX.
#include "nn/cuda/nn_cuda_internal.cuh"
#include <float.h>

extern "C" void nnc_maxpool_time_fwd(float *y, int *arg, const float *X, const float *mask, int S,
                                     int B, int F) {
  nnc_each("maxpool_time_fwd", (size_t)B * F, [=] __device__(size_t i) {
    size_t b = i / F, f = i % F;
    float best = -FLT_MAX;
    int from = -1;
    for (int s = 0; s < S; s++) {
      size_t row = (size_t)s * B + b;
      if (mask && mask[row] == 0) continue;
      if (X[row * F + f] > best) best = X[row * F + f], from = (int)row;
    }
    y[i] = from < 0 ? 0.0f : best; // an empty sentence pools to 0
    arg[i] = from;
  });
}

extern "C" void nnc_maxpool_time_bwd(float *dX, const int *arg, const float *dy, int B, int F) {
  nnc_each("maxpool_time_bwd", (size_t)B * F, [=] __device__(size_t i) {
    if (arg[i] >= 0) dX[(size_t)arg[i] * F + i % F] += dy[i];
  });
}
