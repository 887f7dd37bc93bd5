// The fused LSTM cell, forward and hand-written backward (lib/nn/cells/lstm.c): one
// thread per (sentence b, unit k) reads its four gates and writes h, c.
// Gates (B,4H) in order i, f, o, g; act (B,5H) = σ(i), σ(f), σ(o), tanh(g), tanh(c).
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_lstm_cell_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                                  const float *h_prev, const float *c_prev, const float *mask,
                                  int B, int H) {
  nnc_each("lstm_cell_fwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, k = j % H;
    if (mask && mask[b] == 0) { // padding: the state is carried
      h[j] = h_prev[j];
      c[j] = c_prev[j];
      return;
    }
    size_t g = b * 4 * H + k;
    float z[4];
    for (int q = 0; q < 4; q++) z[q] = gx[g + q * H] + (gh ? gh[g + q * H] : 0.0f);
    float *a = act + b * 5 * H + k;
    float i = nnc_sigmoid(z[0]), f = nnc_sigmoid(z[1]), o = nnc_sigmoid(z[2]), gg = tanhf(z[3]);
    float cn = f * c_prev[j] + i * gg, tc = tanhf(cn);
    a[0] = i, a[H] = f, a[2 * H] = o, a[3 * H] = gg, a[4 * H] = tc;
    c[j] = cn;
    h[j] = o * tc;
  });
}

extern "C" void nnc_lstm_cell_bwd(float *dgx, float *dgh, float *dh_prev, float *dc_prev,
                                  const float *dh, const float *dc, const float *act,
                                  const float *c, const float *c_prev, const float *mask, int B,
                                  int H) {
  nnc_each("lstm_cell_bwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, k = j % H;
    if (mask && mask[b] == 0) { // h = h_prev, c = c_prev
      if (dh_prev) dh_prev[j] += dh[j];
      if (dc_prev) dc_prev[j] += dc[j];
      return;
    }
    const float *a = act + b * 5 * H + k;
    float i = a[0], f = a[H], o = a[2 * H], gg = a[3 * H], tc = a[4 * H];
    float dct = dc[j] + dh[j] * o * (1 - tc * tc); // total dL/dc
    float dz[4] = {dct * gg * i * (1 - i), dct * c_prev[j] * f * (1 - f),
                   dh[j] * tc * o * (1 - o), dct * i * (1 - gg * gg)};
    size_t g = b * 4 * H + k;
    for (int q = 0; q < 4; q++) {
      if (dgx) dgx[g + q * H] += dz[q];
      if (dgh) dgh[g + q * H] += dz[q];
    }
    if (dc_prev) dc_prev[j] += dct * f;
  });
}
