/* RNG, parameter buffer, optimiser and arena. */
#include "base/err.h"
#include "nn/arena.h"
#include "nn/optim.h"
#include "nn/parallel.h"
#include "nn/params.h"
#include "nn/rng.h"
#include "test.h"
#include <stdint.h>

TEST(nn_rng_philox_known_answers) {
  /* Random123's kat_vectors for philox4x32-10. */
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int i = 0; i < 3; i++) {
    uint32_t out[4];
    nn_philox4x32(kat[i], kat[i] + 4, out);
    for (int k = 0; k < 4; k++) CHECK_INT(out[k], kat[i][6 + k]);
  }
}

TEST(nn_rng_streams_and_distributions) {
  enum { N = 100001 };
  static float u[N], z[N];
  nn_rng_fill_uniform(u, N, 0, 1, 42, 3, 0);
  /* Any element is reproducible alone, from any offset. */
  CHECK(u[77777] == nn_rng_uniform(42, 3, 77777));
  float part[5];
  nn_rng_fill_uniform(part, 5, 0, 1, 42, 3, 1001);
  CHECK(part[0] == u[1001] && part[4] == u[1005]);
  CHECK(u[5] != nn_rng_uniform(42, 4, 5) && u[5] != nn_rng_uniform(43, 3, 5));
  double s = 0;
  for (int i = 0; i < N; i++) {
    CHECK(u[i] >= 0 && u[i] < 1);
    s += u[i];
  }
  CHECK_NEAR(s / N, 0.5, 0.005);
  nn_rng_fill_normal(z, N, 1, 2, 42, 5, 0);
  double m = 0, v = 0;
  for (int i = 0; i < N; i++) m += z[i];
  m /= N;
  for (int i = 0; i < N; i++) v += (z[i] - m) * (z[i] - m);
  CHECK_NEAR(m, 1, 0.03);
  CHECK_NEAR(sqrt(v / N), 2, 0.03);
}

TEST(nn_params_views_init_clip) {
  nn_params p = {0};
  CHECK_INT(nn_params_add(&p, "W", 3, 5), 0);
  CHECK_INT(nn_params_add(&p, "b", 1, 5), 1);
  CHECK_INT(nn_params_add(&p, "W", 2, 2), -1); /* duplicate */
  CHECK_INT(nn_params_add(&p, "bad", 0, 2), -1);
  CHECK_INT(nn_params_alloc(&p), 0);
  CHECK_INT(p.views[1].off, 16); /* 15 floats padded to 16 */
  CHECK_INT(p.n, 32);
  CHECK_INT(nn_params_find(&p, "b"), 1);
  nn_params_init(&p, NN_INIT_XAVIER, 0, 1);
  float lim = sqrtf(6.0f / 8);
  bool in = true, nonzero = false;
  for (int i = 0; i < 15; i++) {
    in &= fabsf(p.w[i]) <= lim;
    nonzero |= p.w[i] != 0;
  }
  CHECK(in && nonzero);
  for (int i = 16; i < 21; i++) CHECK(p.w[i] == 0); /* biases */
  nn_params_init(&p, NN_INIT_UNIFORM, 0.1f, 1);
  for (int i = 16; i < 21; i++) CHECK(fabsf(p.w[i]) <= 0.1f && p.w[i] != 0);
  for (size_t i = 0; i < p.n; i++) p.g[i] = 0;
  p.g[0] = 3;
  p.g[20] = 4;
  CHECK_NEAR(nn_params_grad_norm(&p), 5, 1e-9);
  CHECK_NEAR(nn_params_clip(&p, 1), 5, 1e-9);
  CHECK_NEAR(nn_params_grad_norm(&p), 1, 1e-6);
  CHECK_NEAR(p.g[0], 0.6, 1e-6);
  nn_params_zero_grad(&p);
  CHECK(nn_params_grad_norm(&p) == 0);
  nn_params_free(&p);
}

TEST(nn_adam_matches_formula) {
  nn_params p = {0};
  nn_params_add(&p, "w", 1, 2);
  nn_params_alloc(&p);
  p.w[0] = 1, p.w[1] = -1;
  nn_adam opt = {0.01f, 0.9f, 0.999f, 1e-8f, 1};
  double w = 1, m = 0, v = 0;
  for (int t = 1; t <= 3; t++) {
    double g = 2 * w; /* minimising w² */
    p.g[0] = (float)g;
    p.g[1] = 0;
    nn_adam_step(&p, &opt);
    m = 0.9 * m + 0.1 * g;
    v = 0.999 * v + 0.001 * g * g;
    w -= 0.01 * (m / (1 - pow(0.9, t))) / (sqrt(v / (1 - pow(0.999, t))) + 1e-8);
    CHECK_NEAR(p.w[0], w, 1e-6);
  }
  CHECK(p.w[1] == -1.0f);
  nn_params_free(&p);
}

TEST(nn_arena_grows_to_peak) {
  nn_arena a = {0};
  void *x = nn_arena_alloc(&a, 100), *y = nn_arena_alloc(&a, 1000);
  CHECK(x && y && x != y && ((uintptr_t)x & 63) == 0 && ((uintptr_t)y & 63) == 0);
  CHECK_INT(nn_arena_reset(&a), 0);
  CHECK_INT(a.cap, 128 + 1024);
  CHECK(a.spill == NULL);
  /* A step that fits allocates from the block, in order. */
  char *p1 = nn_arena_alloc(&a, 100), *p2 = nn_arena_alloc(&a, 1000);
  CHECK(p1 == a.base && p2 == a.base + 128 && a.spill == NULL);
  nn_arena_reset(&a);
  CHECK_INT(a.cap, 128 + 1024);
  nn_arena_alloc(&a, 5000); /* a bigger batch spills, then the block grows */
  CHECK(a.spill != NULL);
  nn_arena_reset(&a);
  CHECK_INT(a.cap, 5056);
  nn_arena_free(&a);
}

/* The gradient norm, and so the clipped gradient, are the same bits on any
 * thread count: squares are summed in fixed chunks, chunk after chunk. */
TEST(nn_params_grad_norm_any_threads) {
  nn_params p[5] = {{0}};
  const int threads[5] = {1, 2, 3, 5, 8};
  double norm[5];
  for (int k = 0; k < 5; k++) {
    CHECK(nn_params_add(&p[k], "w", 1031, 997) == 0 && nn_params_alloc(&p[k]) == NMT_OK);
    /* magnitudes over six decades, so the order of a double sum shows */
    for (size_t i = 0; i < p[k].n; i++)
      p[k].g[i] = k ? p[0].g[i] : (nn_rng_uniform(3, 1, i) - 0.5f) * powf(10, (float)(i % 7) - 3);
  }
  for (int k = 0; k < 5; k++) {
    nn_set_threads(threads[k]);
    norm[k] = nn_params_clip(&p[k], 1.0);
  }
  nn_set_threads(0);
  for (int k = 1; k < 5; k++) {
    CHECK(norm[k] == norm[0]);
    CHECK(!memcmp(p[k].g, p[0].g, sizeof(float) * p[0].n));
  }
  for (int k = 0; k < 5; k++) nn_params_free(&p[k]);
}
