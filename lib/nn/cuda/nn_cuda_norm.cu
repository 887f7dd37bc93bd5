// Layer norm over the C features of each row (lib/nn/norm.c): one block per row.
#include "nn/cuda/nn_cuda_internal.cuh"

__global__ static void layernorm_fwd_kernel(float *y, float *mean, float *rstd, const float *x,
                                            const float *gain, const float *bias, int C, float eps) {
  size_t row = (size_t)blockIdx.x * C;
  const float *xr = x + row;
  float s = 0;
  for (int c = threadIdx.x; c < C; c += blockDim.x) s += xr[c];
  float m = nnc_block_all(s, nnc_sum_op()) / C, s2 = 0;
  for (int c = threadIdx.x; c < C; c += blockDim.x) s2 += (xr[c] - m) * (xr[c] - m);
  float rs = rsqrtf(nnc_block_all(s2, nnc_sum_op()) / C + eps);
  for (int c = threadIdx.x; c < C; c += blockDim.x) y[row + c] = (xr[c] - m) * rs * gain[c] + bias[c];
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = m;
    rstd[blockIdx.x] = rs;
  }
}

extern "C" void nnc_layernorm_fwd(float *y, float *mean, float *rstd, const float *x,
                                  const float *gain, const float *bias, int R, int C, float eps) {
  if (R <= 0) return;
  layernorm_fwd_kernel<<<R, NNC_THREADS, 0, nnc_stream>>>(y, mean, rstd, x, gain, bias, C, eps);
  nnc_launched("layernorm_fwd");
}

// With x̂ = (x-mean)·rstd and d = dy·gain: dx = rstd·(d - mean(d) - x̂·mean(d·x̂)).
__global__ static void layernorm_dx_kernel(float *dx, const float *dy, const float *x,
                                           const float *mean, const float *rstd, const float *gain,
                                           int C) {
  size_t row = (size_t)blockIdx.x * C;
  float m = mean[blockIdx.x], rs = rstd[blockIdx.x], sd = 0, sdx = 0;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float d = dy[row + c] * gain[c];
    sd += d;
    sdx += d * (x[row + c] - m) * rs;
  }
  float md = nnc_block_all(sd, nnc_sum_op()) / C, mdx = nnc_block_all(sdx, nnc_sum_op()) / C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float xh = (x[row + c] - m) * rs;
    dx[row + c] += rs * (dy[row + c] * gain[c] - md - xh * mdx);
  }
}

extern "C" void nnc_layernorm_bwd(float *dx, float *dgain, float *dbias, const float *dy,
                                  const float *x, const float *mean, const float *rstd,
                                  const float *gain, int R, int C) {
  if (R <= 0) return;
  if (dx) {
    layernorm_dx_kernel<<<R, NNC_THREADS, 0, nnc_stream>>>(dx, dy, x, mean, rstd, gain, C);
    nnc_launched("layernorm_bwd");
  }
  if (dgain)
    nnc_col_sums("layernorm_bwd", dgain, 1, R, C, [=] __device__(int, int r, int c) {
      size_t i = (size_t)r * C + c;
      return dy[i] * (x[i] - mean[r]) * rstd[r];
    });
  nnc_bias_bwd(NULL, dbias, dy, R, C);
}
