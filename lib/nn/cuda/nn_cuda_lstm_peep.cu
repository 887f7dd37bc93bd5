// The LSTM cell with peephole connections, forward and backward
// (lib/nn/cells/lstm_peep.c): one thread per (sentence b, unit k); the peephole
// weight gradient, a sum over sentences, is a column sum over the padded-out
// rows. peep (3H) = θ_i, θ_f, θ_o; act (B,5H) = i, f, o, g, tanh(c).
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_lstm_peep_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                                  const float *peep, const float *h_prev, const float *c_prev,
                                  const float *mask, int B, int H) {
  nnc_each("lstm_peep_fwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, k = j % H;
    if (mask && mask[b] == 0) { // padding: the state is carried
      h[j] = h_prev[j];
      c[j] = c_prev[j];
      return;
    }
    size_t g = b * 4 * H + k;
    float z[4];
    for (int q = 0; q < 4; q++) z[q] = gx[g + q * H] + (gh ? gh[g + q * H] : 0.0f);
    float cp = c_prev[j], i = nnc_sigmoid(z[0] + peep[k] * cp), f = nnc_sigmoid(z[1] + peep[H + k] * cp);
    float gg = tanhf(z[3]), cn = f * cp + i * gg;
    float o = nnc_sigmoid(z[2] + peep[2 * H + k] * cn), tc = tanhf(cn); // o sees the new c
    float *a = act + b * 5 * H + k;
    a[0] = i, a[H] = f, a[2 * H] = o, a[3 * H] = gg, a[4 * H] = tc;
    c[j] = cn;
    h[j] = o * tc;
  });
}

// The gate pre-activation gradients dz (i, f, o, g) and the total dL/dc of unit j.
struct peep_grad {
  float dz[4], dct;
};
__device__ static peep_grad peep_grads(size_t j, int H, const float *dh, const float *dc,
                                       const float *act, const float *peep, const float *c_prev) {
  size_t b = j / H, k = j % H;
  const float *a = act + b * 5 * H + k;
  float i = a[0], f = a[H], o = a[2 * H], gg = a[3 * H], tc = a[4 * H];
  peep_grad r;
  r.dz[2] = dh[j] * tc * o * (1 - o);
  r.dct = dc[j] + dh[j] * o * (1 - tc * tc) + r.dz[2] * peep[2 * H + k];
  r.dz[0] = r.dct * gg * i * (1 - i);
  r.dz[1] = r.dct * c_prev[j] * f * (1 - f);
  r.dz[3] = r.dct * i * (1 - gg * gg);
  return r;
}

extern "C" void nnc_lstm_peep_bwd(float *dgx, float *dgh, float *dpeep, float *dh_prev,
                                  float *dc_prev, const float *dh, const float *dc,
                                  const float *act, const float *peep, const float *c,
                                  const float *c_prev, const float *mask, int B, int H) {
  nnc_each("lstm_peep_bwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, k = j % H;
    if (mask && mask[b] == 0) { // h = h_prev, c = c_prev
      if (dh_prev) dh_prev[j] += dh[j];
      if (dc_prev) dc_prev[j] += dc[j];
      return;
    }
    peep_grad r = peep_grads(j, H, dh, dc, act, peep, c_prev);
    size_t g = b * 4 * H + k;
    for (int q = 0; q < 4; q++) {
      if (dgx) dgx[g + q * H] += r.dz[q];
      if (dgh) dgh[g + q * H] += r.dz[q];
    }
    float f = act[b * 5 * H + H + k];
    if (dc_prev) dc_prev[j] += r.dct * f + r.dz[0] * peep[k] + r.dz[1] * peep[H + k];
  });
  if (dpeep) // θ_i, θ_f see c_prev, θ_o the new c
    nnc_col_sums("lstm_peep_bwd", dpeep, 1, B, 3 * H, [=] __device__(int, int b, int col) {
      if (mask && mask[b] == 0) return 0.0f;
      int q = col / H;
      size_t j = (size_t)b * H + col % H;
      return peep_grads(j, H, dh, dc, act, peep, c_prev).dz[q] * (q < 2 ? c_prev[j] : c[j]);
    });
}
