// The fused ATR cell, forward and backward (lib/nn/cells/atr.c): one thread per
// (sentence b, unit k). i = σ(p + q), f = σ(q - p), h = i⊙q + f⊙h_prev;
// gates (B,2H) keep i, f.
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_atr_cell_fwd(float *h, float *gates, const float *q, const float *p,
                                 const float *h_prev, const float *mask, int B, int H) {
  nnc_each("atr_cell_fwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, g = b * 2 * H + j % H;
    if (mask && mask[b] == 0) { // padding: the state is carried
      h[j] = h_prev[j];
      return;
    }
    float i = nnc_sigmoid(p[j] + q[j]), f = nnc_sigmoid(q[j] - p[j]);
    gates[g] = i, gates[g + H] = f;
    h[j] = i * q[j] + f * h_prev[j];
  });
}

extern "C" void nnc_atr_cell_bwd(float *dq, float *dp, float *dh_prev, const float *dh,
                                 const float *gates, const float *q, const float *h_prev,
                                 const float *mask, int B, int H) {
  nnc_each("atr_cell_bwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, g = b * 2 * H + j % H;
    if (mask && mask[b] == 0) { // h = h_prev
      if (dh_prev) dh_prev[j] += dh[j];
      return;
    }
    float i = gates[g], f = gates[g + H];
    float di = dh[j] * q[j] * i * (1 - i); // through i's pre-activation p + q
    float df = dh[j] * h_prev[j] * f * (1 - f); // through f's pre-activation q - p
    if (dq) dq[j] += dh[j] * i + di + df;
    if (dp) dp[j] += di - df;
    if (dh_prev) dh_prev[j] += dh[j] * f;
  });
}
