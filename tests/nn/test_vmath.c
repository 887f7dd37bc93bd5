/* The vectorised exp, sigmoid, tanh, Σ x² and Adam against plain C at every width
 * the core has, tails included; the wider widths against the 4-lane reference,
 * bit for bit; the threaded loops against one thread. */
#include "base/err.h"
#include "nn/kernels.h"
#include "nn/optim.h"
#include "nn/vmath.h"
#include "test.h"
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4003 }; /* not a multiple of the vector width */

static void against_libm(const nn_vmath *vm) {
  static float x[N], y[N];
  double sum = 0, worst_exp = 0, worst_tanh = 0, worst_sig = 0;
  for (int i = 0; i < N; i++) x[i] = -85.0f + 173.0f * (float)i / (N - 1);
  vm->exp_sum(y, x, 1.5f, N);
  for (int i = 0; i < N; i++) {
    double want = exp((double)(x[i] - 1.5f)); /* the shift rounds in float */
    worst_exp = fmax(worst_exp, fabs(y[i] - want) / want);
  }
  CHECK(worst_exp < 2e-7);
  for (int i = 0; i < N; i++) x[i] = -10.0f * (float)i / N; /* a softmax's range */
  float s = vm->exp_sum(y, x, 0, N);
  for (int i = 0; i < N; i++) sum += exp((double)x[i]);
  CHECK(fabs(s - sum) / sum < 1e-6);
  double sq = 0;
  for (int i = 0; i < N; i++) sq += (double)x[i] * x[i];
  CHECK(fabs(vm->sumsq(x, N) - sq) <= 1e-12 * sq && vm->sumsq(x, 0) == 0);
  for (int i = 0; i < N; i++) x[i] = -12.0f + 24.0f * (float)i / (N - 1);
  vm->tanh(y, x, N);
  for (int i = 0; i < N; i++) worst_tanh = fmax(worst_tanh, fabs(y[i] - tanh(x[i])));
  vm->sigmoid(y, x, N);
  for (int i = 0; i < N; i++)
    worst_sig = fmax(worst_sig, fabs(y[i] - 1 / (1 + exp(-(double)x[i]))));
  CHECK(worst_tanh < 3e-7 && worst_sig < 3e-7);
  CHECK(vm->max(x, N) == x[N - 1] && vm->max(x, 3) == x[2]);
  x[5] = NAN;
  vm->tanh(y, x, 7);
  CHECK(isnan(y[5]) && !isnan(y[6]));
  CHECK(isnan(vm->exp_sum(y, x, 0, 7)));
}

/* Every width the core has; the calls' own width is one of them. */
TEST(nn_vmath_against_libm) {
  for (int s = 0; s < NN_SIMD_N; s++)
    if (nn_vmath_at((nn_simd)s)) against_libm(nn_vmath_at((nn_simd)s));
}

/* x[i] for the bit-for-bit cases: every sign and scale, ±0, ±inf, NaN, and
 * values past exp's clamps. */
static float awkward(int i) {
  static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 89.0f, -88.0f, 1e-30f};
  if (i % 97 < 8) return special[i % 97];
  return (float)((i * 7919) % 20001 - 10000) / (float)(1 + i % 13) / 100.0f;
}

static bool same_bits(const float *a, const float *b, size_t n) { return !memcmp(a, b, n * sizeof *a); }

/* The wider widths against the 4-lane reference: the same bits for every
 * length up to 3 vectors of 16 plus one and a long odd one, so tails and
 * the exp sum's partial sums are covered. */
TEST(nn_vmath_widths_match_reference) {
  enum { L = 4003 };
  static float x[L], e[L], ref[L], got[L], w[2][L], m[2][L], v[2][L], g[L];
  const nn_vmath *r = nn_vmath_at(NN_SIMD_SSE);
  for (int i = 0; i < L; i++) x[i] = awkward(i), g[i] = awkward(i + 1) / 50;
  for (int i = 0; i < L; i++) e[i] = isfinite(x[i]) ? fminf(x[i], 5.0f) : -1.0f; /* a real sum */
  int widths = 0;
  for (int s = NN_SIMD_SSE + 1; s < NN_SIMD_N; s++) {
    const nn_vmath *t = nn_vmath_at((nn_simd)s);
    if (!t) continue;
    widths++;
    for (size_t n = 1; n <= L; n = n == 49 ? L : n + 1) { /* 1..49, then L */
      r->sigmoid(ref, x, n), t->sigmoid(got, x, n);
      CHECK(same_bits(ref, got, n));
      r->tanh(ref, x, n), t->tanh(got, x, n);
      CHECK(same_bits(ref, got, n));
      float sr = r->exp_sum(ref, e, 2.5f, n), st = t->exp_sum(got, e, 2.5f, n);
      CHECK(same_bits(ref, got, n) && same_bits(&sr, &st, 1));
      float mr = r->max(x, n), mt = t->max(x, n);
      CHECK(same_bits(&mr, &mt, 1));
      CHECK(r->sumsq(e, n) == t->sumsq(e, n));
      for (int k = 0; k < 2; k++) {
        memcpy(w[k], x, sizeof x);
        memset(m[k], 0, sizeof m[k]);
        memset(v[k], 0, sizeof v[k]);
        for (int step = 0; step < 3; step++)
          (k ? t : r)->adam(w[k], m[k], v[k], g, n, 0.9f, 0.999f, 1e-3f, 1e-8f);
      }
      CHECK(same_bits(w[0], w[1], n) && same_bits(m[0], m[1], n) && same_bits(v[0], v[1], n));
    }
  }
  if (!widths) T_SKIP("this core runs only the 4-lane reference");
}

/* NMT_ISA picks the calls' width when the core has it (make test runs so). */
TEST(nn_vmath_env_picks_width) {
  const char *want = getenv("NMT_ISA");
  const nn_vmath *widest = NULL;
  for (int s = 0; s < NN_SIMD_N; s++)
    if (nn_vmath_at((nn_simd)s)) widest = nn_vmath_at((nn_simd)s);
  bool known = false;
  for (int s = 0; s < NN_SIMD_N; s++)
    known |= want && nn_vmath_at((nn_simd)s) && !strcmp(want, nn_vmath_at((nn_simd)s)->name);
  CHECK_STR(nn_vmath_used()->name, known ? want : widest->name);
}

TEST(nn_vmath_adam_matches_scalar) {
  enum { n = 7 };
  float w[n], m[n], v[n], g[n], w2[n], m2[n], v2[n];
  for (int i = 0; i < n; i++) {
    w[i] = w2[i] = 0.1f * i - 0.3f, m[i] = m2[i] = 0.01f * i, v[i] = v2[i] = 0.001f * i;
    g[i] = 0.5f - 0.2f * i;
  }
  nn_vadam(w, m, v, g, n, 0.9f, 0.999f, 1e-3f, 1e-8f);
  for (int i = 0; i < n; i++) {
    m2[i] = 0.9f * m2[i] + (1 - 0.9f) * g[i];
    v2[i] = 0.999f * v2[i] + (1 - 0.999f) * g[i] * g[i];
    w2[i] -= 1e-3f * m2[i] / (sqrtf(v2[i]) + 1e-8f);
    CHECK(w[i] == w2[i] && m[i] == m2[i] && v[i] == v2[i]);
  }
}

/* The loops nn_parallel splits give the same results on 1 and 2 threads. */
TEST(nn_parallel_matches_one_thread) {
  enum { R = 300, V = 4000 }; /* R*V over nn_parallel's threshold */
  int saved = openblas_get_num_threads();
  nn_params p[2] = {{0}, {0}};
  static float logits[R * V], prob[2][R * V], dl[2][R * V];
  static int tgt[R];
  double norm[2], loss[2];
  long ntok[2];
  for (int i = 0; i < R * V; i++) logits[i] = (float)(((long)i * 7919) % 1000) / 100.0f - 5.0f;
  for (int r = 0; r < R; r++) tgt[r] = r % 7 ? (r * 31) % V : 0; /* 0 is padding */
  for (int k = 0; k < 2; k++) {
    openblas_set_num_threads(k + 1);
    CHECK(nn_params_add(&p[k], "w", 1100, 1000) == 0 && nn_params_alloc(&p[k]) == NMT_OK);
    nn_params_init(&p[k], NN_INIT_UNIFORM, 0.1f, 5);
    for (size_t i = 0; i < p[k].n; i++) p[k].g[i] = (float)((i * 104729) % 2001) / 1000.0f - 1.0f;
    norm[k] = nn_params_clip(&p[k], 5.0);
    nn_adam_step(&p[k], &(nn_adam){1e-3f, 0.9f, 0.999f, 1e-8f, 1});
    loss[k] = nn_xent_fwd(prob[k], logits, tgt, R, V, 0, 0.1f, &ntok[k]);
    memset(dl[k], 0, sizeof dl[k]);
    nn_xent_bwd(dl[k], prob[k], tgt, R, V, 0, 0.1f, 0.5f);
  }
  openblas_set_num_threads(saved);
  CHECK_NEAR(norm[1], norm[0], 1e-9 * norm[0]);
  CHECK_NEAR(loss[1], loss[0], 1e-9 * loss[0]);
  CHECK(ntok[0] == ntok[1] && ntok[0] < R);
  CHECK(!memcmp(p[0].w, p[1].w, sizeof(float) * p[0].n) && !memcmp(dl[0], dl[1], sizeof dl[0]));
  nn_params_free(&p[0]);
  nn_params_free(&p[1]);
}
