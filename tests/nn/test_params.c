/* The parameter buffer: views, init, clipping. */
#include "base/err.h"
#include "nn/optim.h"
#include "nn/params.h"
#include "test.h"
#include <math.h>
#include <stdint.h>

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
