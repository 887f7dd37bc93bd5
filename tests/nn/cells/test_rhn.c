/* The RHN micro-step (paper 003): the fused cell by hand and by finite
 * differences, coupled or not, and a masked layer of depth 1 to 3. */
#include "nn/cells/cell_case.h"
#include "nn/cells/rhn.h"
#include "nn/kernels.h"
#include "test.h"

TEST(nn_rhn_cell_values) {
  float z[3] = {0.3f, -0.4f, 0.8f}, sp[1] = {0.6f}, bias[3] = {0.1f, 0.2f, -0.3f}, s[1], act[3];
  nn_rhn_cell_fwd(s, act, z, NULL, NULL, sp, NULL, 1, 1, false);
  double h = tanh(0.3), t = 1 / (1 + exp(0.4)), c = 1 / (1 + exp(-0.8));
  CHECK_NEAR(s[0], h * t + 0.6 * c, 1e-6);
  nn_rhn_cell_fwd(s, act, z, NULL, bias, sp, NULL, 1, 1, true); /* coupled: c = 1 - t */
  h = tanh(0.4), t = 1 / (1 + exp(0.2));
  CHECK_NEAR(s[0], h * t + 0.6 * (1 - t), 1e-6);
  float zero[1] = {0};
  nn_rhn_cell_fwd(s, act, z, NULL, NULL, sp, zero, 1, 1, false); /* padding: carried */
  CHECK(s[0] == 0.6f);
}

typedef struct {
  bool coupled, sums, masked;
} cell_case;

/* One micro-step from params z, s_prev, z2, bias. */
static nn_tensor *build_cell(nn_graph *g, nn_params *p, void *ctx) {
  const cell_case *cc = ctx;
  nn_tensor *s = nn_new(g, B, H);
  const float *mask = cc->masked ? nn_floats(g, B, step_mask + 2 * B) : NULL;
  nn_rhn_cell(g, P(g, p, 0), cc->sums ? P(g, p, 2) : NULL, cc->sums ? P(g, p, 3) : NULL,
              P(g, p, 1), mask, cc->coupled, s);
  return s;
}

TEST(nn_rhn_cell_grad) {
  for (int coupled = 0; coupled < 2; coupled++) {
    int G = nn_rhn_gates(coupled) * H, shapes[4][2] = {{B, G}, {B, H}, {B, G}, {1, G}};
    nn_params p;
    t_nn_params(&p, 4, shapes, 31 + coupled);
    cell_case plain = {coupled, false, false}, biased = {coupled, true, true};
    T_NN_GRADCHECK(&p, build_cell, &plain);
    T_NN_GRADCHECK(&p, build_cell, &biased); /* sentence 2 padded at this step */
    nn_params_free(&p);
  }
}

typedef struct {
  int depth;
  bool coupled;
} layer_case;

/* A layer over T steps with masking and a given initial state. Params: X, s0, W, then R_l, b_l. */
static nn_tensor *build_layer(nn_graph *g, nn_params *p, void *ctx) {
  const layer_case *lc = ctx;
  nn_rhn_w w = {.W = P(g, p, 2), .depth = lc->depth, .coupled = lc->coupled};
  for (int l = 0; l < lc->depth; l++) {
    w.R[l] = P(g, p, 3 + 2 * l);
    w.b[l] = P(g, p, 4 + 2 * l);
  }
  return nn_rhn_layer(g, &w, P(g, p, 0), nn_floats(g, T * B, step_mask), T, P(g, p, 1));
}

TEST(nn_rhn_layer_grad_masked) {
  layer_case cases[3] = {{1, false}, {3, false}, {2, true}};
  for (int i = 0; i < 3; i++) {
    int G = nn_rhn_gates(cases[i].coupled) * H, n = 3 + 2 * cases[i].depth;
    int shapes[3 + 2 * NN_RHN_MAX_DEPTH][2] = {{T * B, E}, {B, H}, {E, G}};
    for (int l = 0; l < cases[i].depth; l++) {
      shapes[3 + 2 * l][0] = H, shapes[3 + 2 * l][1] = G;
      shapes[4 + 2 * l][0] = 1, shapes[4 + 2 * l][1] = G;
    }
    nn_params p;
    t_nn_params(&p, n, shapes, 40 + i);
    T_CELL_CHECK_LAYER(&p, 2, n - 1, build_layer, &cases[i]);
    nn_params_free(&p);
  }
}
