/* Which width the vector math runs at (nn/vmath.h), chosen once before main;
 * the loops themselves are in nn/vmath_lanes.h. */
#include "nn/vmath.h"
#include "nn/kernels.h" /* nn_vadam, the CPU's Adam row */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define NN_WIDE 1 /* vmath_avx2.c and vmath_avx512.c are built */
#endif

const nn_vmath *nn_vmath_at(nn_simd s) {
#ifdef NN_WIDE
  __builtin_cpu_init(); /* may run before libgcc's own constructor */
  if (s == NN_SIMD_AVX512) return __builtin_cpu_supports("avx512f") ? &nn_vmath_avx512 : NULL;
  if (s == NN_SIMD_AVX2) return __builtin_cpu_supports("avx2") ? &nn_vmath_avx2 : NULL;
#endif
  return s == NN_SIMD_SSE ? &nn_vmath_sse : NULL;
}

static const nn_vmath *used = &nn_vmath_sse;

const nn_vmath *nn_vmath_used(void) { return used; }

/* A constructor, not a lazy check: worker threads then only read `used`. An
 * unknown or unavailable NMT_ISA is said on stderr (there is no caller to
 * return it to) and the widest width runs. */
__attribute__((constructor(200))) static void choose_width(void) {
  const char *want = getenv("NMT_ISA");
  const nn_vmath *widest = NULL;
  for (int s = NN_SIMD_N - 1; s >= 0; s--) {
    const nn_vmath *t = nn_vmath_at((nn_simd)s);
    if (t && !widest) widest = t;
    if (t && want && !strcmp(want, t->name)) {
      used = t;
      return;
    }
  }
  if (want && *want)
    fprintf(stderr, "nmt: NMT_ISA=%s is not sse, avx2 or avx512 that this core runs; using %s\n",
            want, widest->name);
  used = widest;
}

float nn_vexp_sum(float *y, const float *x, float shift, size_t n) { return used->exp_sum(y, x, shift, n); }
void nn_vsigmoid(float *y, const float *x, size_t n) { used->sigmoid(y, x, n); }
void nn_vtanh(float *y, const float *x, size_t n) { used->tanh(y, x, n); }
float nn_vmax(const float *x, size_t n) { return used->max(x, n); }
double nn_vsumsq(const float *x, size_t n) { return used->sumsq(x, n); }
void nn_vadam(float *w, float *m, float *v, const float *g, size_t n, float b1, float b2, float lr,
              float eps) {
  used->adam(w, m, v, g, n, b1, b2, lr, eps);
}
