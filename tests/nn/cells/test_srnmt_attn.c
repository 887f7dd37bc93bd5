/* SR-NMT's attention batched over decoder steps (paper 000): gradients, and each
 * step equals the per-step kernels. */
#include "nn/cells/attn.h"
#include "nn/cells/cell_case.h"
#include "nn/cells/srnmt_attn.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "test.h"

enum { S = 3, A = 5 };

/* MLP scores of T steps' queries, masked softmax and the scaled context. */
static nn_tensor *build_attn(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *Q = P(g, p, 0), *K = P(g, p, 1), *v = P(g, p, 2), *V = P(g, p, 3);
  float *mask = nn_floats(g, T * B * S, NULL);
  for (int r = 0; r < T * B; r++)
    for (int s = 0; s < S; s++) mask[r * S + s] = s < 1 + r % B; /* source lengths 1, 2, 3 */
  nn_tensor *score = nn_attn_mlp_seq(g, Q, K, v, S);
  nn_tensor *a = nn_softmax(g, score, mask);
  return nn_concat(g, nn_attn_context_seq(g, a, V, 0.5f), score);
}

TEST(nn_srnmt_attn_seq_grad) {
  int shapes[4][2] = {{T * B, A}, {S * B, A}, {1, A}, {S * B, H}};
  nn_params p;
  t_nn_params(&p, 4, shapes, 33);
  T_NN_GRADCHECK(&p, build_attn, NULL);
  nn_params_free(&p);
}

/* Step t of the batched ops equals the per-step kernels on that step. */
TEST(nn_srnmt_attn_seq_matches_step) {
  int shapes[4][2] = {{T * B, A}, {S * B, A}, {1, A}, {S * B, H}};
  nn_params p;
  t_nn_params(&p, 4, shapes, 34);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  nn_tensor *Q = P(&g, &p, 0), *K = P(&g, &p, 1), *v = P(&g, &p, 2), *V = P(&g, &p, 3);
  nn_tensor *score = nn_attn_mlp_seq(&g, Q, K, v, S), *ctx = nn_attn_context_seq(&g, score, V, 1);
  for (int t = 0; t < T; t++) {
    nn_tensor *qt = nn_rows(&g, Q, t * B, B), *st = nn_attn_mlp(&g, qt, K, v);
    nn_tensor *ct = nn_attn_context(&g, nn_rows(&g, score, t * B, B), V);
    for (int i = 0; i < B * S; i++) CHECK_NEAR(st->v[i], score->v[t * B * S + i], 1e-6);
    for (int i = 0; i < B * H; i++) CHECK_NEAR(ct->v[i], ctx->v[t * B * H + i], 1e-5);
  }
  nn_graph_free(&g);
  nn_params_free(&p);
}
