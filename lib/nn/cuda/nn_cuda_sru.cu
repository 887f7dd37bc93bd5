// The weakly-recurrent scan and the highway of SRU / SR-NMT (lib/nn/cells/wscan.c, highway.c).
// The scan is sequential in t: one thread per (sentence b, unit k) walks the
// steps in its unit's direction (units [0, Hf) forward, [Hf, H) backward) with
// the state in a register; neighbouring threads read neighbouring columns.
//   c_t = c_{t-1} + σ(g_t)⊙(x̃_t - c_{t-1}),  y = a + σ(z)⊙(x - a)
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_wscan_fwd(float *c, float *sg, const float *G, int ldg, const float *c0,
                              const float *mask, int T, int B, int H, int Hf) {
  nnc_each("wscan_fwd", (size_t)B * H, [=] __device__(size_t j) {
    int b = (int)(j / H), k = (int)(j % H);
    float state = c0 ? c0[j] : 0.0f;
    for (int i = 0; i < T; i++) {
      int t = k < Hf ? i : T - 1 - i;
      size_t r = (size_t)t * B + b, o = r * H + k;
      if (mask && mask[r] == 0) { // padding: the state is carried
        c[o] = state, sg[o] = 0;
        continue;
      }
      float s = nnc_sigmoid(G[r * ldg + H + k]);
      state += s * (G[r * ldg + k] - state);
      c[o] = state, sg[o] = s;
    }
  });
}

// Backward walks each unit's steps in reverse with dL/dc_t in a register, so
// `work` (the CPU's carry rows) is not needed.
extern "C" void nnc_wscan_bwd(float *dG, float *dc0, float *work, const float *dc, const float *c,
                              const float *sg, const float *G, int ldg, const float *c0,
                              const float *mask, int T, int B, int H, int Hf) {
  (void)work;
  nnc_each("wscan_bwd", (size_t)B * H, [=] __device__(size_t j) {
    int b = (int)(j / H), k = (int)(j % H), dir = k < Hf ? 1 : -1;
    float carry = 0;
    for (int i = 0; i < T; i++) {
      int t = dir > 0 ? T - 1 - i : i, tp = t - dir;
      size_t r = (size_t)t * B + b, o = r * H + k;
      carry += dc[o];
      if (mask && mask[r] == 0) continue;
      float p = tp >= 0 && tp < T ? c[((size_t)tp * B + b) * H + k] : c0 ? c0[j] : 0.0f;
      float s = sg[o];
      dG[r * ldg + k] += s * carry;
      dG[r * ldg + H + k] += s * (1 - s) * (G[r * ldg + k] - p) * carry;
      carry *= 1 - s;
    }
    if (dc0) dc0[j] += carry;
  });
}

extern "C" void nnc_highway_fwd(float *y, float *sz, const float *Z, int ldz, const float *a,
                                const float *x, int R, int H) {
  nnc_each("highway_fwd", (size_t)R * H, [=] __device__(size_t j) {
    float s = nnc_sigmoid(Z[j / H * ldz + j % H]);
    sz[j] = s;
    y[j] = a[j] + s * (x[j] - a[j]);
  });
}

extern "C" void nnc_highway_bwd(float *dZ, int ldz, float *da, float *dx, const float *dy,
                                const float *sz, const float *a, const float *x, int R, int H) {
  nnc_each("highway_bwd", (size_t)R * H, [=] __device__(size_t j) {
    float s = sz[j], d = dy[j];
    if (dZ) dZ[j / H * ldz + j % H] += s * (1 - s) * (x[j] - a[j]) * d;
    if (da) da[j] += (1 - s) * d;
    if (dx) dx[j] += s * d;
  });
}
