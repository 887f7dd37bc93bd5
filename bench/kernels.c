/* The decoder's GEMM kernels alone, on one core, against what the core can do:
 * the float32 packed panels (nn/pgemm.h) and the int8 kernel (nn/qgemm.h) on
 * the output layer's shape (K 512, N 5012) at 1, 5, 32 and 320 rows, beside
 * the core's own rates for their instructions, measured by loops of 12
 * independent chains (FMA: 16 flops each; vpmaddwd: 16 multiply-adds each).
 * Built against build/libnmt.a by bench/kernels.sh; prints a markdown table. */
#include "nn/parallel.h"
#include "nn/pgemm.h"
#include "nn/qgemm.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { K = 512, N = 5012, CHAINS = 12, ROUNDS = 7 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* CHAINS_RATE: 12 chains s0..s11 of type CR_T from CR_INIT(i), each advanced n
 * times by s = CR_NEXT(s); every value goes through an empty asm, so the
 * compiler keeps every instruction and cannot fold the chains. 16 operations an
 * instruction: the rate in G/s. Each function defines the three CR_ names. */
#define CHAIN12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define CR_DECL(i) CR_T s##i = CR_INIT(i);
#define CR_STEP(i) s##i = CR_NEXT(s##i); __asm__ volatile("" : "+x"(s##i));
#define CHAINS_RATE                                                                            \
  CHAIN12(CR_DECL)                                                                             \
  double t0 = now();                                                                           \
  for (long t = 0; t < n; t++) { CHAIN12(CR_STEP) }                                            \
  return 16.0 * CHAINS * (double)n / (now() - t0) / 1e9;

__attribute__((target("avx2,fma"), noinline)) static double fma_rate(long n) { /* GFLOP/s */
  __m256 a = _mm256_set1_ps(0.5f), b = _mm256_set1_ps(1.0f);
#define CR_T __m256
#define CR_INIT(i) _mm256_set1_ps((float)(i))
#define CR_NEXT(s) _mm256_fmadd_ps(a, b, s)
  CHAINS_RATE
#undef CR_T
#undef CR_INIT
#undef CR_NEXT
}

/* The int8 kernel's multiply rate: a vpmaddwd and a vpaddd per 16 multiply-adds
 * (the chain feeds the multiply, so it cannot leave the loop). The AVX2 kernel
 * issues as many multiplies per product: a vpmaddubsw and a vpmaddwd per 32. */
__attribute__((target("avx2"), noinline)) static double madd_rate(long n) { /* GMAC/s */
  __m256i b = _mm256_set1_epi16(5);
#define CR_T __m256i
#define CR_INIT(i) _mm256_set1_epi32(i)
#define CR_NEXT(s) _mm256_add_epi32(s, _mm256_madd_epi16(s, b))
  CHAINS_RATE
#undef CR_T
#undef CR_INIT
#undef CR_NEXT
}
static int has_avx2_fma(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#else
static double fma_rate(long n) { return (void)n, 0; }
static double madd_rate(long n) { return (void)n, 0; }
static int has_avx2_fma(void) { return 0; }
#endif

static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
  return v[n / 2];
}

int main(void) {
  if (!has_avx2_fma()) {
    puts("(no AVX2 and FMA on this core: no kernel table)");
    return 0;
  }
  nn_set_threads(1);
  float *W = malloc(sizeof(float) * K * N), *A = malloc(sizeof(float) * 320 * K), *C = malloc(sizeof(float) * 320 * N);
  float *P = aligned_alloc(64, sizeof(float) * nn_packed_floats(K, N));
  nn_qmat q;
  if (!W || !A || !C || !P) return 1;
  for (size_t i = 0; i < (size_t)K * N; i++) W[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  for (int i = 0; i < 320 * K; i++) A[i] = (float)((i * 40503u) % 1000) / 1000.0f - 0.5f;
  nn_pgemm_pack_avx2(P, W, N, K, N, false);
  if (nn_qmat_pack(&q, W, K, N, N)) return 1;
  void *scratch = aligned_alloc(64, nn_qgemm_scratch(320, &q) + 64);
  double v[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) v[r] = fma_rate(20000000);
  double fma = median(v, ROUNDS);
  for (int r = 0; r < ROUNDS; r++) v[r] = madd_rate(20000000);
  double madd = median(v, ROUNDS);
  printf("| rows | float32 panels GFLOP/s | of the FMA rate (%.0f) | int8 (%s) GMAC/s | of the vpmaddwd rate (%.0f) |\n",
         fma, nn_qgemm_vnni() ? "VNNI" : "AVX2", madd);
  puts("| --- | --- | --- | --- | --- |");
  static const int rows[] = {1, 5, 32, 320};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    int M = rows[i], reps = 2000 / M + 1;
    double f[ROUNDS], g[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
      double t0 = now();
      for (int k = 0; k < reps; k++) nn_pgemm_avx2(M, N, K, A, K, P, 0, C, N);
      f[r] = 2.0 * K * N * M * reps / (now() - t0) / 1e9;
      t0 = now();
      for (int k = 0; k < reps; k++) nn_qgemm(M, N, A, K, &q, 0, C, N, scratch);
      g[r] = (double)K * N * M * reps / (now() - t0) / 1e9;
    }
    double fm = median(f, ROUNDS), gm = median(g, ROUNDS);
    printf("| %d | %.1f | %.0f%% | %.1f |", M, fm, 100 * fm / fma, gm);
    if (nn_qgemm_vnni()) puts(" - |"); /* VNNI: 64 multiply-adds an instruction */
    else printf(" %.0f%% |\n", 100 * gm / madd);
  }
  nn_qmat_free(&q);
  free(W), free(A), free(C), free(P), free(scratch);
  return 0;
}
