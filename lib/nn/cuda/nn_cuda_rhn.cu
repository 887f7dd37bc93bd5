// The fused RHN micro-step, forward and backward (lib/nn/cells/rhn.c): one thread
// per (sentence b, unit k). Gates per row in the order H, T, C (coupled: H, T),
// act keeps h, t, c; s = h⊙t + s_prev⊙c, coupled s = s_prev + t⊙(h - s_prev).
// The bias gradient, a sum over sentences, is a column sum over the rows.
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_rhn_cell_fwd(float *s, float *act, const float *z, const float *z2,
                                 const float *bias, const float *s_prev, const float *mask, int B,
                                 int H, bool coupled) {
  int gates = coupled ? 2 : 3;
  nnc_each("rhn_cell_fwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, k = j % H;
    if (mask && mask[b] == 0) { // padding: the state is carried
      s[j] = s_prev[j];
      return;
    }
    float g[3];
    for (int q = 0; q < gates; q++) {
      size_t col = q * H + k, at = b * gates * H + col;
      float pre = z[at] + (z2 ? z2[at] : 0.0f) + (bias ? bias[col] : 0.0f);
      g[q] = q ? nnc_sigmoid(pre) : tanhf(pre);
      act[at] = g[q];
    }
    float sp = s_prev[j];
    s[j] = coupled ? sp + g[1] * (g[0] - sp) : g[0] * g[1] + sp * g[2];
  });
}

// The pre-activation gradients (H, T, C) of unit j, a real row.
struct rhn_grad {
  float dz[3];
};
__device__ static rhn_grad rhn_grads(size_t j, int H, bool coupled, const float *ds,
                                     const float *act, const float *s_prev) {
  int gates = coupled ? 2 : 3;
  const float *a = act + j / H * gates * H + j % H;
  float h = a[0], t = a[H], d = ds[j], sp = s_prev[j];
  rhn_grad r;
  r.dz[0] = d * t * (1 - h * h);
  r.dz[1] = d * (coupled ? h - sp : h) * t * (1 - t);
  r.dz[2] = coupled ? 0.0f : d * sp * a[2 * H] * (1 - a[2 * H]);
  return r;
}

extern "C" void nnc_rhn_cell_bwd(float *dz, float *dz2, float *dbias, float *ds_prev,
                                 const float *ds, const float *act, const float *s_prev,
                                 const float *mask, int B, int H, bool coupled) {
  int gates = coupled ? 2 : 3;
  nnc_each("rhn_cell_bwd", (size_t)B * H, [=] __device__(size_t j) {
    size_t b = j / H, k = j % H;
    if (mask && mask[b] == 0) { // s = s_prev
      if (ds_prev) ds_prev[j] += ds[j];
      return;
    }
    rhn_grad r = rhn_grads(j, H, coupled, ds, act, s_prev);
    for (int q = 0; q < gates; q++) {
      size_t at = b * gates * H + q * H + k;
      if (dz) dz[at] += r.dz[q];
      if (dz2) dz2[at] += r.dz[q];
    }
    const float *a = act + b * gates * H + k; // ds_prev sees c, or 1 - t coupled
    if (ds_prev) ds_prev[j] += ds[j] * (coupled ? 1 - a[H] : a[2 * H]);
  });
  if (dbias)
    nnc_col_sums("rhn_cell_bwd", dbias, 1, B, gates * H, [=] __device__(int, int b, int col) {
      if (mask && mask[b] == 0) return 0.0f;
      return rhn_grads((size_t)b * H + col % H, H, coupled, ds, act, s_prev).dz[col / H];
    });
}
