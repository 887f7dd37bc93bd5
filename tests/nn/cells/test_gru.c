/* The GRU cell (as in RNNSearch, paper 001): values by hand, gradients of the
 * cell and of a masked layer. */
#include "nn/cells/cell_case.h"
#include "nn/cells/gru.h"
#include "nn/kernels.h"
#include "test.h"

TEST(nn_gru_cell_values) {
  float gx[3] = {0.1f, -0.2f, 0.3f}, gh[3] = {0.05f, 0.1f, -0.4f}, hp[1] = {0.7f}, h[1], act[3];
  nn_gru_cell_fwd(h, act, gx, gh, hp, NULL, 1, 1);
  double r = sigm(0.15), z = sigm(-0.1), n = tanh(0.3 + r * -0.4);
  CHECK_NEAR(h[0], z * 0.7 + (1 - z) * n, 1e-6);
  float zero[1] = {0};
  nn_gru_cell_fwd(h, act, gx, gh, hp, zero, 1, 1);
  CHECK(h[0] == 0.7f);
}

/* One cell from params (inputs, recurrent part, h_prev); ctx non-NULL masks
 * sentence 2 at this step. */
static nn_tensor *build_cell(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *h = nn_new(g, B, H);
  nn_gru_cell(g, P(g, p, 0), P(g, p, 1), P(g, p, 2), ctx ? nn_floats(g, B, step_mask + 2 * B) : NULL, h);
  return h;
}

TEST(nn_gru_cell_grad) {
  int shapes[3][2] = {{B, 3 * H}, {B, 3 * H}, {B, H}};
  nn_params p;
  t_nn_params(&p, 3, shapes, 32);
  T_NN_GRADCHECK(&p, build_cell, NULL);
  T_NN_GRADCHECK(&p, build_cell, (void *)1);
  nn_params_free(&p);
}

/* A layer over T steps with padding and a given initial state. */
static nn_tensor *build_layer(nn_graph *g, nn_params *p, void *ctx) {
  nn_gru_w w = {P(g, p, 1), P(g, p, 2), P(g, p, 3)};
  return nn_gru_layer(g, &w, P(g, p, 0), nn_floats(g, T * B, step_mask), T, P(g, p, 4));
}

TEST(nn_gru_layer_grad_masked) {
  int shapes[5][2] = {{T * B, E}, {E, 3 * H}, {H, 3 * H}, {1, 3 * H}, {B, H}};
  nn_params p;
  t_nn_params(&p, 5, shapes, 34);
  T_CELL_CHECK_LAYER(&p, 1, 2, build_layer, NULL);
  nn_params_free(&p);
}
