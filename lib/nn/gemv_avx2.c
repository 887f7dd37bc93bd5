/* nn_gemv_avx2 (nn/gemv_avx2.h). Each output's sum does not depend on N or on the
 * other outputs, so a row's result is the same in any batch. */
#include "nn/gemv_avx2.h"

enum { GATHER_MAX = 8192 };

#if defined(__x86_64__) && defined(__GNUC__)
#include "nn/compile_for.h"
NN_COMPILE_FOR("avx2,fma")
#include <immintrin.h>

static float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}

static void put(float *y, float v, float alpha, float beta) { *y = alpha * v + (beta != 0 ? beta * *y : 0); }

/* y[n] = Σ_k x[k]·W[n·ldw + k]: a dot product per output, 4 sums of 8 over k. */
static void dots(int N, int K, float alpha, const float *W, int ldw, const float *x, float beta, float *y, int incy) {
  for (int n = 0; n < N; n++) {
    const float *w = W + (size_t)n * ldw;
    __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    int k = 0;
    for (; k + 32 <= K; k += 32)
      for (int q = 0; q < 4; q++)
        s[q] = _mm256_fmadd_ps(_mm256_loadu_ps(w + k + 8 * q), _mm256_loadu_ps(x + k + 8 * q), s[q]);
    float t = hsum(_mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3])));
    for (; k < K; k++) t += w[k] * x[k];
    put(y + (size_t)n * incy, t, alpha, beta);
  }
}

/* y[n] = Σ_k x[k]·W[k·ldw + n]: 64 outputs at a time in 8 registers, k inside. */
static void axpys(int N, int K, float alpha, const float *W, int ldw, const float *x, float beta, float *y, int incy) {
  int n0 = 0;
  for (; n0 + 64 <= N; n0 += 64) {
    __m256 s[8];
    for (int q = 0; q < 8; q++) s[q] = _mm256_setzero_ps();
    for (int k = 0; k < K; k++) {
      __m256 a = _mm256_broadcast_ss(x + k);
      const float *w = W + (size_t)k * ldw + n0;
      for (int q = 0; q < 8; q++) s[q] = _mm256_fmadd_ps(a, _mm256_loadu_ps(w + 8 * q), s[q]);
    }
    float v[64];
    for (int q = 0; q < 8; q++) _mm256_storeu_ps(v + 8 * q, s[q]);
    for (int i = 0; i < 64; i++) put(y + (size_t)(n0 + i) * incy, v[i], alpha, beta);
  }
  for (int n = n0; n < N; n++) { /* the last columns one at a time, each the same chain over k */
    float t = 0;
    for (int k = 0; k < K; k++) t = __builtin_fmaf(x[k], W[(size_t)k * ldw + n], t);
    put(y + (size_t)n * incy, t, alpha, beta);
  }
}

/* C's rows: row m = (alpha·a[m])·b + beta·row m, 8 columns at a time, the last ones
 * with the same roundings. */
static void outer(int M, int N, float alpha, const float *a, int inca, const float *b, float beta, float *C,
                  int ldc) {
  __m256 vb = _mm256_set1_ps(beta);
  for (int m = 0; m < M; m++) {
    float *c = C + (size_t)m * ldc, am = alpha * a[(size_t)m * inca];
    __m256 va = _mm256_set1_ps(am);
    int n = 0;
    for (; n + 8 <= N; n += 8) {
      __m256 t = _mm256_mul_ps(va, _mm256_loadu_ps(b + n));
      _mm256_storeu_ps(c + n, beta != 0 ? _mm256_fmadd_ps(vb, _mm256_loadu_ps(c + n), t) : t);
    }
    for (; n < N; n++) c[n] = beta != 0 ? __builtin_fmaf(beta, c[n], am * b[n]) : am * b[n];
  }
}
NN_COMPILE_END

/* x[k·inc] for k < K, contiguous: x itself, else gathered into packed (K <= GATHER_MAX). */
static const float *contiguous(const float *x, int inc, int K, float *packed) {
  if (inc == 1) return x;
  for (int k = 0; k < K; k++) packed[k] = x[(size_t)k * inc];
  return packed;
}

bool nn_outer_avx2(int M, int N, float alpha, const float *a, int inca, const float *b, int incb, float beta,
                   float *C, int ldc) {
  if (incb != 1 && N > GATHER_MAX) return false;
  float packed[incb == 1 ? 1 : N];
  outer(M, N, alpha, a, inca, contiguous(b, incb, N, packed), beta, C, ldc);
  return true;
}

bool nn_gemv_avx2(bool trans, int N, int K, float alpha, const float *W, int ldw, const float *x,
                  int incx, float beta, float *y, int incy) {
  if (incx != 1 && K > GATHER_MAX) return false;
  float packed[incx == 1 ? 1 : K];
  (trans ? dots : axpys)(N, K, alpha, W, ldw, contiguous(x, incx, K, packed), beta, y, incy);
  return true;
}
#else
bool nn_outer_avx2(int M, int N, float alpha, const float *a, int inca, const float *b, int incb, float beta,
                   float *C, int ldc) {
  (void)M, (void)N, (void)alpha, (void)a, (void)inca, (void)b, (void)incb, (void)beta, (void)C, (void)ldc;
  return false;
}
bool nn_gemv_avx2(bool trans, int N, int K, float alpha, const float *W, int ldw, const float *x,
                  int incx, float beta, float *y, int incy) {
  (void)trans, (void)N, (void)K, (void)alpha, (void)W, (void)ldw, (void)x, (void)incx, (void)beta, (void)y, (void)incy;
  return false;
}
#endif
