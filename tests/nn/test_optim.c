/* The optimiser over the parameter buffer: Adam and SGD against their formulas, the
 * gradient norm the same bits on any thread count. */
#include "base/err.h"
#include "nn/optim.h"
#include "nn/parallel.h"
#include "nn/rng.h"
#include "test.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Plain SGD: w - lr·g in floats, bit for bit, on any thread count; a recurrent view
 * at lr times the recurrent scale; the update counted as Adam's is. */
TEST(nn_sgd_matches_formula) {
  for (int threads = 1; threads <= 3; threads += 2) {
    nn_params p = {0};
    int rec = nn_params_add(&p, "rec", 97, 31);
    nn_params_add(&p, "w", 53, 89);
    nn_params_mark_recurrent(&p, rec);
    CHECK_INT(nn_params_alloc(&p), NMT_OK);
    for (size_t i = 0; i < p.n; i++)
      p.w[i] = nn_rng_uniform(5, 1, i) - 0.5f, p.g[i] = (nn_rng_uniform(6, 1, i) - 0.5f) * 3;
    float *w0 = malloc(sizeof *w0 * p.n);
    memcpy(w0, p.w, sizeof *w0 * p.n);
    nn_set_threads(threads);
    nn_sgd_step(&p, 0.7f, 0.25f);
    nn_set_threads(0);
    CHECK_INT(p.step, 1);
    const nn_view *r = &p.views[rec];
    size_t bad = 0;
    for (size_t i = 0; i < p.n; i++) {
      bool in_rec = i >= r->off && i < r->off + (size_t)r->rows * r->cols;
      float lr = in_rec ? 0.7f * 0.25f : 0.7f, want = w0[i] - lr * p.g[i];
      bad += memcmp(&p.w[i], &want, sizeof want) != 0;
    }
    CHECK_INT(bad, 0);
    free(w0);
    nn_params_free(&p);
  }
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

/* The weights' moving average after a step: ema = (1 - d) ema + d w, with
 * d = max(factor, 9 / (t + 9)) at update t (Marian's early-training rule). */
TEST(nn_ema_matches_formula) {
  CHECK_NEAR(nn_ema_decay(1e-4, 1), 0.9, 1e-7);
  CHECK_NEAR(nn_ema_decay(1e-4, 91), 0.09, 1e-7);
  CHECK_NEAR(nn_ema_decay(0.5, 91), 0.5, 0);
  CHECK_NEAR(nn_ema_decay(1e-4, 100000), 1e-4, 1e-9); /* 9/100009 < 1e-4 */
  nn_params p = {0};
  nn_params_add(&p, "w", 3, 5);
  CHECK_INT(nn_params_alloc(&p), NMT_OK);
  for (int i = 0; i < 15; i++) p.w[i] = (float)i / 4 - 1;
  CHECK_INT(nn_params_keep_ema(&p, true), NMT_OK);
  CHECK(!memcmp(p.ema, p.w, sizeof(float) * p.n)); /* it starts as the weights */
  nn_adam opt = {0.1f, 0.9f, 0.999f, 1e-8f, 1};
  float before[16];
  for (int t = 1; t <= 3; t++) {
    for (int i = 0; i < 15; i++) p.g[i] = p.w[i] * (float)(i % 3) - 0.5f;
    memcpy(before, p.ema, sizeof before);
    nn_adam_step(&p, &opt);
    float d = nn_ema_decay(0.01, p.step);
    CHECK_NEAR(d, 9.0 / (t + 9), 1e-7);
    nn_ema_step(&p, d);
    for (int i = 0; i < 15; i++) CHECK_NEAR(p.ema[i], (1 - (double)d) * before[i] + (double)d * p.w[i], 1e-6);
  }
  float *w = p.w, *e = p.ema;
  nn_params_swap_ema(&p);
  CHECK(p.w == e && p.ema == w);
  CHECK_INT(nn_params_keep_ema(&p, false), NMT_OK);
  CHECK(p.ema == NULL);
  nn_params_free(&p);
}
