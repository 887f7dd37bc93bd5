/* Max-pooling over time with padding (Deep-Att's encoder summary): gradients,
 * and padding is never the max. */
#include "nn/maxpool.h"
#include "test.h"
#include "nn/grad_check.h"
#include <math.h>

static nn_tensor *P(nn_graph *g, nn_params *p, int i) { return nn_param(g, p, i); }

/* Max over 3 steps of 2 sentences (the second of length 2). */
static const float pool_mask[3 * 2] = {1, 1, 1, 1, 1, 0};

static nn_tensor *build_pool(nn_graph *g, nn_params *p, void *ctx) {
  return nn_max_over_time(g, P(g, p, 0), nn_floats(g, 6, pool_mask), 3);
}

TEST(nn_maxpool_over_time) {
  int shapes[1][2] = {{3 * 2, 5}};
  nn_params p;
  t_nn_params(&p, 1, shapes, 32);
  T_NN_GRADCHECK(&p, build_pool, NULL);
  p.w[(2 * 2 + 1) * 5] = 10; /* padding of sentence 1: never the max */
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  nn_tensor *y = build_pool(&g, &p, NULL);
  for (int b = 0; b < 2 && y; b++)
    for (int k = 0; k < 5; k++) {
      float want = -2;
      for (int s = 0; s < 3 - b; s++)
        want = fmaxf(want, p.w[(s * 2 + b) * 5 + k]);
      CHECK(y->v[b * 5 + k] == want);
    }
  nn_graph_free(&g);
  nn_params_free(&p);
}
