/* The vector-math loops at one width: included once by each of vmath_sse.c,
 * vmath_avx2.c and vmath_avx512.c after they define
 *   NN_LANES       4, 8 or 16 floats per vector
 *   NN_VMATH_NAME  the name of the nn_vmath table to define ("sse", ...)
 * and, for the wide ones, NN_COMPILE_FOR (nn/compile_for.h). The same operations run on
 * every lane and no FMA is enabled (the AVX targets leave it out; -std=c11
 * keeps a*b+c unfused), so an element's value is the same bits at every
 * width; the exp sum and the sum of squares add element i into partial sum
 * i mod 16 at every width and fold the 16 in one order, so they are width-free
 * too.
 * exp: x = k·ln2 + r with |r| <= ln2/2, e^r by Cephes' degree-6 polynomial,
 * 2^k put in the exponent bits. Not a header with a guard: a template. */
#ifndef NMT_NN_VMATH_LANES_H
#define NMT_NN_VMATH_LANES_H
#include "nn/vmath.h"
#include <math.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#define INLINE static inline
#define W NN_LANES
typedef float vf __attribute__((vector_size(4 * W)));
typedef int vi __attribute__((vector_size(4 * W)));
typedef double vd __attribute__((vector_size(8 * W))); /* W doubles: a vf widened */
enum { SUMS = 16, ACC = SUMS / W }; /* the sums' partial sums, in ACC vectors */
/* part[0] = Σ part[0..SUMS), the same tree at every width. */
#define FOLD(part)                                                        \
  for (int half = SUMS / 2; half > 0; half /= 2)                          \
    for (int k = 0; k < half; k++) part[k] += part[k + half]

/* a - 0 is a for every a (-0 included), broadcast to all lanes. */
INLINE vf splat(float a) { return a - (vf){0}; }
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
#if W == 16
  return (vf)_mm512_sqrt_ps((__m512)x);
#elif W == 8
  return (vf)_mm256_sqrt_ps((__m256)x);
#elif defined(__SSE__)
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
INLINE size_t lanes_left(size_t n, size_t i) { return n - i < W ? n - i : W; }

/* A loop's name says its width in profiles: vtanh_avx512. */
#define LOOP__(f, width) f##_##width
#define LOOP_(f, width) LOOP__(f, width)
#define LOOP(f) LOOP_(f, NN_VMATH_NAME)

#define MAP(y, x, n, f)                                                   \
  for (size_t i = 0; i < (n); i += W) {                                   \
    size_t m = lanes_left(n, i);                                          \
    store((y) + i, f(load((x) + i, m, 0.0f)), m);                         \
  }

static void LOOP(vsigmoid)(float *y, const float *x, size_t n) { MAP(y, x, n, vsigmoid) }
static void LOOP(vtanh)(float *y, const float *x, size_t n) { MAP(y, x, n, vtanh) }

static float LOOP(vexp_sum)(float *y, const float *x, float shift, size_t n) {
  vf acc[ACC], s = splat(shift);
  for (int j = 0; j < ACC; j++) acc[j] = splat(0.0f);
  for (size_t i = 0; i < n; i += W) {
    size_t m = lanes_left(n, i);
    vf e = vexp(load(x + i, m, 0.0f) - s);
    store(y + i, e, m);
    for (size_t k = m; k < W; k++) e[k] = 0;
    acc[i / W % ACC] += e;
  }
  float part[SUMS];
  memcpy(part, acc, sizeof part);
  FOLD(part);
  return part[0];
}

/* The sum of squares in double, partial sums as the exp sum's. */
static double LOOP(vsumsq)(const float *x, size_t n) {
  vd acc[ACC];
  for (int j = 0; j < ACC; j++) acc[j] = (vd){0};
  for (size_t i = 0; i < n; i += W) {
    vd d = __builtin_convertvector(load(x + i, lanes_left(n, i), 0.0f), vd);
    acc[i / W % ACC] += d * d; /* exact: a float's square fits a double */
  }
  double part[SUMS];
  memcpy(part, acc, sizeof part);
  FOLD(part);
  return part[0];
}

static void LOOP(vadam)(float *w, float *m, float *v, const float *g, size_t n, float b1,
                        float b2, float lr, float eps) {
  vf B1 = splat(b1), B2 = splat(b2), C1 = splat(1 - b1), C2 = splat(1 - b2);
  vf L = splat(lr), E = splat(eps);
  for (size_t i = 0; i < n; i += W) {
    size_t k = lanes_left(n, i);
    vf gi = load(g + i, k, 0.0f), mi = B1 * load(m + i, k, 0.0f) + C1 * gi;
    vf vi_ = B2 * load(v + i, k, 0.0f) + C2 * gi * gi;
    store(m + i, mi, k);
    store(v + i, vi_, k);
    store(w + i, load(w + i, k, 0.0f) - L * mi / (vsqrt(vi_) + E), k);
  }
}

static float LOOP(vmax)(const float *x, size_t n) {
  vf m = splat(-__builtin_inff());
  for (size_t i = 0; i < n; i += W) m = vmax(m, load(x + i, lanes_left(n, i), -__builtin_inff()));
  float r = m[0];
  for (int k = 1; k < W; k++) r = m[k] > r ? m[k] : r;
  return r;
}

#define NN_VMATH_STR_(name) #name
#define NN_VMATH_STR(name) NN_VMATH_STR_(name)
#define NN_VMATH_TABLE_(name) nn_vmath_##name
#define NN_VMATH_TABLE(name) NN_VMATH_TABLE_(name)
const nn_vmath NN_VMATH_TABLE(NN_VMATH_NAME) = {
    .name = NN_VMATH_STR(NN_VMATH_NAME), .lanes = W, .exp_sum = LOOP(vexp_sum),
    .sigmoid = LOOP(vsigmoid), .tanh = LOOP(vtanh), .max = LOOP(vmax), .sumsq = LOOP(vsumsq),
    .adam = LOOP(vadam)};
#endif
