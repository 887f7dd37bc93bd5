/* The peephole LSTM cell of Deep-Att / Deep-ED (Zhou et al. 2016): values by
 * hand, gradients with and without a padded row. */
#include "nn/cells/cell_case.h"
#include "nn/cells/lstm_peep.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "test.h"

static const float row_mask[B] = {1, 0, 1}; /* row 1 is padding at this step */

/* One peephole cell from params gx, gh, peep, h_prev, c_prev; output [h c]. */
static nn_tensor *build_peep_cell(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *h = nn_new(g, B, H), *c = nn_new(g, B, H);
  const float *mask = ctx ? nn_floats(g, B, row_mask) : NULL;
  nn_lstm_peep_cell(g, P(g, p, 0), P(g, p, 1), P(g, p, 2), P(g, p, 3), P(g, p, 4), mask, h, c);
  return nn_concat(g, h, c);
}

TEST(nn_lstm_peep_cell_values) {
  float gx[4] = {0.1f, -0.2f, 0.3f, 0.4f}, gh[4] = {0.05f, 0.1f, -0.1f, 0.2f};
  float peep[3] = {0.5f, -0.3f, 0.7f}, hp[1] = {0.7f}, cp[1] = {-0.5f}, h[1], c[1], act[5];
  nn_lstm_peep_fwd(h, c, act, gx, gh, peep, hp, cp, NULL, 1, 1);
  double i = 1 / (1 + exp(-(0.15 + 0.5 * -0.5))), f = 1 / (1 + exp(-(-0.1 + -0.3 * -0.5)));
  double cw = f * -0.5 + i * tanh(0.6), o = 1 / (1 + exp(-(0.2 + 0.7 * cw)));
  CHECK_NEAR(c[0], cw, 1e-6);
  CHECK_NEAR(h[0], o * tanh(cw), 1e-6);
  float zero[1] = {0};
  nn_lstm_peep_fwd(h, c, act, gx, gh, peep, hp, cp, zero, 1, 1); /* padding: carried */
  CHECK(h[0] == 0.7f && c[0] == -0.5f);
}

TEST(nn_lstm_peep_cell_grad) {
  int shapes[5][2] = {{B, 4 * H}, {B, 4 * H}, {1, 3 * H}, {B, H}, {B, H}};
  nn_params p;
  t_nn_params(&p, 5, shapes, 31);
  T_NN_GRADCHECK(&p, build_peep_cell, NULL);
  T_NN_GRADCHECK(&p, build_peep_cell, (void *)1);
  nn_params_free(&p);
}
