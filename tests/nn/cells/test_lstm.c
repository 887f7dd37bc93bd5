/* The fused LSTM cell and layer: values by hand, gradients with masking. */
#include "nn/cells/cell_case.h"
#include "nn/cells/lstm.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "test.h"

/* One cell from params gx, gh, h_prev, c_prev; output [h c]. */
static nn_tensor *build_cell(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *h = nn_new(g, B, H), *c = nn_new(g, B, H);
  const float *mask = ctx ? nn_floats(g, B, step_mask + 2 * B) : NULL;
  nn_lstm_cell(g, P(g, p, 0), P(g, p, 1), P(g, p, 2), P(g, p, 3), mask, h, c);
  return nn_concat(g, h, c);
}

TEST(nn_lstm_cell_values) {
  float gx[4] = {0.1f, -0.2f, 0.3f, 0.4f}, gh[4] = {0.05f, 0.1f, -0.1f, 0.2f};
  float hp[1] = {0.7f}, cp[1] = {-0.5f}, h[1], c[1], act[5];
  nn_lstm_cell_fwd(h, c, act, gx, gh, hp, cp, NULL, 1, 1);
  double i = 1 / (1 + exp(-0.15)), f = 1 / (1 + exp(0.1)), o = 1 / (1 + exp(-0.2)), gg = tanh(0.6);
  double cw = f * -0.5 + i * gg;
  CHECK_NEAR(c[0], cw, 1e-6);
  CHECK_NEAR(h[0], o * tanh(cw), 1e-6);
  float zero[1] = {0};
  nn_lstm_cell_fwd(h, c, act, gx, gh, hp, cp, zero, 1, 1); /* padding: carried */
  CHECK(h[0] == 0.7f && c[0] == -0.5f);
}

TEST(nn_lstm_cell_grad) {
  int shapes[4][2] = {{B, 4 * H}, {B, 4 * H}, {B, H}, {B, H}};
  nn_params p;
  t_nn_params(&p, 4, shapes, 21);
  T_NN_GRADCHECK(&p, build_cell, NULL);
  T_NN_GRADCHECK(&p, build_cell, (void *)1); /* sentence 2 padded at this step */
  nn_params_free(&p);
}

/* A layer over T steps with masking and a given initial state; output [Hs Cs]. */
static nn_tensor *build_layer(nn_graph *g, nn_params *p, void *ctx) {
  nn_lstm_w w = {P(g, p, 1), P(g, p, 2), P(g, p, 3)};
  nn_tensor *Cs, *Hs = nn_lstm_layer(g, &w, P(g, p, 0), nn_floats(g, T * B, step_mask), T,
                                     P(g, p, 4), P(g, p, 5), &Cs);
  return nn_concat(g, Hs, Cs);
}

TEST(nn_lstm_layer_grad_masked) {
  int shapes[6][2] = {{T * B, E}, {E, 4 * H}, {H, 4 * H}, {1, 4 * H}, {B, H}, {B, H}};
  nn_params p;
  t_nn_params(&p, 6, shapes, 22);
  T_CELL_CHECK_LAYER(&p, 1, 2, build_layer, NULL);
  nn_params_free(&p);
}
