/* Vectorised exp, sigmoid, tanh (see nn/vmath.h). exp: x = k·ln2 + r with
 * |r| <= ln2/2, e^r by Cephes' degree-6 polynomial, 2^k put in the exponent bits. */
#include "nn/vmath.h"
#include "nn/kernels.h" /* nn_vadam, the CPU's Adam row */
#include <math.h>
#include <string.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif

/* 4 lanes: SSE2 is the x86-64 baseline, so no ABI or CPU dispatch questions. */
#define INLINE static inline
typedef float vf __attribute__((vector_size(16)));
typedef int vi __attribute__((vector_size(16)));
enum { W = 4 };

INLINE vf splat(float a) { return (vf){a, a, a, a}; }
INLINE vf pick(vi mask, vf a, vf b) { return (vf)(((vi)a & mask) | ((vi)b & ~mask)); }
/* NaN in a stays NaN (training detects NaN losses). */
INLINE vf vmin(vf a, vf b) { return pick(b < a, b, a); }
INLINE vf vmax(vf a, vf b) { return pick(b > a, b, a); }

INLINE vf vexp(vf x) {
  x = vmax(vmin(x, splat(88.37626f)), splat(-87.33654f));
  vf kf = x * splat(1.44269504f) + splat(12582912.0f); /* round to nearest via 1.5·2^23 */
  kf -= splat(12582912.0f);
  vf r = x - kf * splat(0.693359375f) - kf * splat(-2.12194440e-4f);
  vf p = splat(1.9875691500e-4f);
  p = p * r + splat(1.3981999507e-3f);
  p = p * r + splat(8.3334519073e-3f);
  p = p * r + splat(4.1665795894e-2f);
  p = p * r + splat(1.6666665459e-1f);
  p = p * r + splat(5.0000001201e-1f);
  p = p * r * r + r + splat(1.0f);
  vi k = __builtin_convertvector(kf, vi);
  vi bits = (k + 127) << 23;
  vf scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

INLINE vf vsigmoid(vf x) { return splat(1.0f) / (splat(1.0f) + vexp(-x)); }

/* tanh x = sign(x)·(1 - e)/(1 + e), e = exp(-2|x|). */
INLINE vf vtanh(vf x) {
  vf ax = vmax(x, -x), e = vexp(splat(-2.0f) * ax), t = (splat(1.0f) - e) / (splat(1.0f) + e);
  return pick(x < splat(0.0f), -t, t);
}

/* Exact square roots (libm's sqrtf would not vectorise at -O2: errno). */
INLINE vf vsqrt(vf x) {
#ifdef __SSE__
  return (vf)_mm_sqrt_ps((__m128)x);
#else
  for (int k = 0; k < W; k++) x[k] = sqrtf(x[k]);
  return x;
#endif
}

/* Loads and stores of n <= W floats; the rest of the vector is `fill`. A
 * constant size keeps the full-vector case a single move. */
INLINE vf load(const float *x, size_t n, float fill) {
  vf v = splat(fill);
  if (n == W) memcpy(&v, x, sizeof v);
  else memcpy(&v, x, n * sizeof *x);
  return v;
}
INLINE void store(float *y, vf v, size_t n) {
  if (n == W) memcpy(y, &v, sizeof v);
  else memcpy(y, &v, n * sizeof *y);
}

#define MAP(y, x, n, f)                                                   \
  for (size_t i = 0; i < (n); i += W) {                                   \
    size_t m = (n) - i < W ? (n) - i : W;                                 \
    store((y) + i, f(load((x) + i, m, 0.0f)), m);                         \
  }

void nn_vsigmoid(float *y, const float *x, size_t n) { MAP(y, x, n, vsigmoid) }
void nn_vtanh(float *y, const float *x, size_t n) { MAP(y, x, n, vtanh) }

float nn_vexp_sum(float *y, const float *x, float shift, size_t n) {
  vf acc = splat(0.0f), s = splat(shift);
  for (size_t i = 0; i < n; i += W) {
    size_t m = n - i < W ? n - i : W;
    vf e = vexp(load(x + i, m, 0.0f) - s);
    store(y + i, e, m);
    for (size_t k = m; k < W; k++) e[k] = 0;
    acc += e;
  }
  float sum = 0;
  for (int k = 0; k < W; k++) sum += acc[k];
  return sum;
}

void nn_vadam(float *w, float *m, float *v, const float *g, size_t n, float b1, float b2,
              float lr, float eps) {
  vf B1 = splat(b1), B2 = splat(b2), C1 = splat(1 - b1), C2 = splat(1 - b2);
  vf L = splat(lr), E = splat(eps);
  for (size_t i = 0; i < n; i += W) {
    size_t k = n - i < W ? n - i : W;
    vf gi = load(g + i, k, 0.0f), mi = B1 * load(m + i, k, 0.0f) + C1 * gi;
    vf vi_ = B2 * load(v + i, k, 0.0f) + C2 * gi * gi;
    store(m + i, mi, k);
    store(v + i, vi_, k);
    store(w + i, load(w + i, k, 0.0f) - L * mi / (vsqrt(vi_) + E), k);
  }
}

float nn_vmax(const float *x, size_t n) {
  vf m = splat(-__builtin_inff());
  for (size_t i = 0; i < n; i += W) {
    size_t k = n - i < W ? n - i : W;
    m = vmax(m, load(x + i, k, -__builtin_inff()));
  }
  float r = m[0];
  for (int k = 1; k < W; k++) r = m[k] > r ? m[k] : r;
  return r;
}
