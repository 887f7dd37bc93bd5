/* The ATR cell (Zhang et al. 2018, paper 001): values by hand, gradients of the
 * cell and of a masked layer. */
#include "nn/cells/atr.h"
#include "nn/cells/cell_case.h"
#include "nn/kernels.h"
#include "test.h"

TEST(nn_atr_cell_values) {
  float q[1] = {0.3f}, p[1] = {-0.2f}, hp[1] = {0.7f}, h[1], gates[2];
  nn_atr_cell_fwd(h, gates, q, p, hp, NULL, 1, 1);
  CHECK_NEAR(h[0], sigm(0.1) * 0.3 + sigm(0.5) * 0.7, 1e-6); /* i = σ(q+p), f = σ(q-p) */
  float zero[1] = {0};
  nn_atr_cell_fwd(h, gates, q, p, hp, zero, 1, 1); /* padding: carried */
  CHECK(h[0] == 0.7f);
}

/* One cell from params (inputs, recurrent part, h_prev); ctx non-NULL masks
 * sentence 2 at this step. */
static nn_tensor *build_cell(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *h = nn_new(g, B, H);
  nn_atr_cell(g, P(g, p, 0), P(g, p, 1), P(g, p, 2), ctx ? nn_floats(g, B, step_mask + 2 * B) : NULL, h);
  return h;
}

TEST(nn_atr_cell_grad) {
  int shapes[3][2] = {{B, H}, {B, H}, {B, H}};
  nn_params p;
  t_nn_params(&p, 3, shapes, 31);
  T_NN_GRADCHECK(&p, build_cell, NULL);
  T_NN_GRADCHECK(&p, build_cell, (void *)1);
  nn_params_free(&p);
}

/* A layer over T steps with padding and a given initial state. */
static nn_tensor *build_layer(nn_graph *g, nn_params *p, void *ctx) {
  nn_atr_w w = {P(g, p, 1), P(g, p, 2), P(g, p, 3)};
  return nn_atr_layer(g, &w, P(g, p, 0), nn_floats(g, T * B, step_mask), T, P(g, p, 4));
}

TEST(nn_atr_layer_grad_masked) {
  int shapes[5][2] = {{T * B, E}, {E, H}, {H, H}, {1, H}, {B, H}};
  nn_params p;
  t_nn_params(&p, 5, shapes, 33);
  T_CELL_CHECK_LAYER(&p, 1, 2, build_layer, NULL);
  nn_params_free(&p);
}
