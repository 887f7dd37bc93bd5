// The fused GRU cell, forward and backward (lib/nn/cells/gru.c): one thread per
// (sentence b, unit k). Gates (B,3H) in order r, z, n; act (B,3H) = r, z, n.
//   r = σ(x_r + h_r), z = σ(x_z + h_z), n = tanh(x_n + r⊙h_n), h = z⊙h_prev + (1-z)⊙n
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_gru_cell_fwd(float *h, float *act, const float *gx, const float *gh,
                                 const float *h_prev, const float *mask, int B, int H) {
  nnc_each("gru_cell_fwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, g = b * 3 * H + j % H;
    if (mask && mask[b] == 0) { // padding: the state is carried
      h[j] = h_prev[j];
      return;
    }
    float r = nnc_sigmoid(gx[g] + gh[g]), z = nnc_sigmoid(gx[g + H] + gh[g + H]);
    float n = tanhf(gx[g + 2 * H] + r * gh[g + 2 * H]);
    act[g] = r, act[g + H] = z, act[g + 2 * H] = n;
    h[j] = z * h_prev[j] + (1 - z) * n;
  });
}

extern "C" void nnc_gru_cell_bwd(float *dgx, float *dgh, float *dh_prev, const float *dh,
                                 const float *act, const float *gh, const float *h_prev,
                                 const float *mask, int B, int H) {
  nnc_each("gru_cell_bwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, g = b * 3 * H + j % H;
    if (mask && mask[b] == 0) { // h = h_prev
      if (dh_prev) dh_prev[j] += dh[j];
      return;
    }
    float r = act[g], z = act[g + H], n = act[g + 2 * H];
    float dn = dh[j] * (1 - z) * (1 - n * n); // n's pre-activation
    float dz = dh[j] * (h_prev[j] - n) * z * (1 - z);
    float dr = dn * gh[g + 2 * H] * r * (1 - r);
    if (dgx) dgx[g] += dr, dgx[g + H] += dz, dgx[g + 2 * H] += dn;
    if (dgh) dgh[g] += dr, dgh[g + H] += dz, dgh[g + 2 * H] += dn * r;
    if (dh_prev) dh_prev[j] += dh[j] * z;
  });
}
