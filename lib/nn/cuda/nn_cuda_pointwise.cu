// Elementwise kernels: sigmoid, tanh, add/sub, mul, scale, bias (lib/nn/pointwise.c).
#include "nn/cuda/nn_cuda_internal.cuh"

extern "C" void nnc_sigmoid_fwd(float *y, const float *x, size_t n) {
  nnc_each("sigmoid_fwd", n, [=] __device__(size_t i) { y[i] = nnc_sigmoid(x[i]); });
}
extern "C" void nnc_sigmoid_bwd(float *dx, const float *y, const float *dy, size_t n) {
  nnc_each("sigmoid_bwd", n, [=] __device__(size_t i) { dx[i] += dy[i] * y[i] * (1 - y[i]); });
}
extern "C" void nnc_tanh_fwd(float *y, const float *x, size_t n) {
  nnc_each("tanh_fwd", n, [=] __device__(size_t i) { y[i] = tanhf(x[i]); });
}
extern "C" void nnc_tanh_bwd(float *dx, const float *y, const float *dy, size_t n) {
  nnc_each("tanh_bwd", n, [=] __device__(size_t i) { dx[i] += dy[i] * (1 - y[i] * y[i]); });
}
extern "C" void nnc_axpby_fwd(float *y, const float *a, const float *b, float sb, size_t n) {
  nnc_each("axpby_fwd", n, [=] __device__(size_t i) { y[i] = a[i] + sb * b[i]; });
}
extern "C" void nnc_axpby_bwd(float *da, float *db, const float *dy, float sb, size_t n) {
  if (da) nnc_each("axpby_bwd", n, [=] __device__(size_t i) { da[i] += dy[i]; });
  if (db) nnc_each("axpby_bwd", n, [=] __device__(size_t i) { db[i] += sb * dy[i]; });
}
extern "C" void nnc_mul_fwd(float *y, const float *a, const float *b, size_t n) {
  nnc_each("mul_fwd", n, [=] __device__(size_t i) { y[i] = a[i] * b[i]; });
}
extern "C" void nnc_mul_bwd(float *da, float *db, const float *a, const float *b, const float *dy,
                            size_t n) {
  if (da) nnc_each("mul_bwd", n, [=] __device__(size_t i) { da[i] += dy[i] * b[i]; });
  if (db) nnc_each("mul_bwd", n, [=] __device__(size_t i) { db[i] += dy[i] * a[i]; });
}
extern "C" void nnc_scale_fwd(float *y, const float *x, float s, size_t n) {
  nnc_each("scale_fwd", n, [=] __device__(size_t i) { y[i] = s * x[i]; });
}
extern "C" void nnc_scale_bwd(float *dx, const float *dy, float s, size_t n) {
  nnc_each("scale_bwd", n, [=] __device__(size_t i) { dx[i] += s * dy[i]; });
}
extern "C" void nnc_shift_fwd(float *y, const float *x, float s, size_t n) {
  nnc_each("shift_fwd", n, [=] __device__(size_t i) { y[i] = x[i] + s; });
}
extern "C" void nnc_bias_fwd(float *y, const float *x, const float *bias, int R, int C) {
  nnc_each("bias_fwd", (size_t)R * C, [=] __device__(size_t i) { y[i] = x[i] + bias[i % C]; });
}
extern "C" void nnc_bias_bwd(float *dx, float *dbias, const float *dy, int R, int C) {
  if (dx) nnc_axpby_bwd(dx, NULL, dy, 0, (size_t)R * C);
  if (dbias)
    nnc_col_sums("bias_bwd", dbias, 1, R, C,
                 [=] __device__(int, int r, int c) { return dy[(size_t)r * C + c]; });
}
