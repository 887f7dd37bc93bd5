/* Vectorised exp, sigmoid, tanh, max, Σ x² and the Adam update over arrays, at the
 * width the core has: 16 lanes (AVX-512), 8 (AVX2) or 4 (SSE2, the x86-64
 * baseline and the reference), chosen once at start-up (libm's scalar calls
 * were ~8% of a training step). exp is within 2e-7 relative of libm over
 * [-85, 88], tanh and sigmoid within 3e-7 absolute (tests/nn/test_vmath.c).
 * Every width gives the same bits (nn/vmath_lanes.h says why), and the same
 * code handles the tail, so a value depends neither on its position nor on
 * the core: threads, --resume and machines agree. */
#ifndef NMT_NN_VMATH_H
#define NMT_NN_VMATH_H
#include <stddef.h>

/* y = exp(x - shift); returns the sum of y (y may be x). */
float nn_vexp_sum(float *y, const float *x, float shift, size_t n);
void nn_vsigmoid(float *y, const float *x, size_t n);
void nn_vtanh(float *y, const float *x, size_t n);
/* The largest of x[0..n), n >= 1. */
float nn_vmax(const float *x, size_t n);
/* Σ x² in double (16 partial sums: an add chain would be latency-bound). */
double nn_vsumsq(const float *x, size_t n);
/* nn_vadam, the CPU's Adam row, is declared in nn/kernels.h. */

/* One width's loops, the same contracts as above. */
typedef struct {
  const char *name; /* NMT_ISA's spelling: "sse", "avx2", "avx512" */
  int lanes;
  float (*exp_sum)(float *y, const float *x, float shift, size_t n);
  void (*sigmoid)(float *y, const float *x, size_t n);
  void (*tanh)(float *y, const float *x, size_t n);
  float (*max)(const float *x, size_t n);
  double (*sumsq)(const float *x, size_t n);
  void (*adam)(float *w, float *m, float *v, const float *g, size_t n, float b1, float b2, float lr,
               float eps);
} nn_vmath;

typedef enum { NN_SIMD_SSE, NN_SIMD_AVX2, NN_SIMD_AVX512, NN_SIMD_N } nn_simd;
/* Width s's loops, or NULL where this core (or build) lacks it. */
const nn_vmath *nn_vmath_at(nn_simd s);
/* The loops the nn_v* calls use: $NMT_ISA's width when the core has it
 * (benchmarks and tests force one so), else the widest the core has. */
const nn_vmath *nn_vmath_used(void);

/* The tables (nn/vmath_{sse,avx2,avx512}.c); reach them through nn_vmath_at. */
extern const nn_vmath nn_vmath_sse, nn_vmath_avx2, nn_vmath_avx512;

#endif
