/* Attention ops and the Luong attention layer: values and gradients. */
#include "nn/cells/luong_attn.h"
#include "nn/ops.h"
#include "test.h"
#include "nn/grad_check.h"

static nn_tensor *P(nn_graph *g, nn_params *p, int i) { return nn_param(g, p, i); }

enum { B = 3, S = 4, F = 5, A = 3 };
static const int src_len[B] = {4, 2, 3};

static float *attn_mask(nn_graph *g) {
  float *m = nn_floats(g, B * S, NULL);
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++) m[b * S + s] = s < src_len[b];
  return m;
}

/* Params: 0 q (B,F), 1 K (S*B,F), 2 v/mlp-q (B,A), 3 mlp keys (S*B,A), 4 v (1,A), 5 sig (B,1). */
static const int op_shapes[6][2] = {{B, F}, {S * B, F}, {B, A}, {S * B, A}, {1, A}, {B, 1}};

static nn_tensor *build_dot(nn_graph *g, nn_params *p, void *ctx) {
  return nn_attn_dot(g, P(g, p, 0), P(g, p, 1));
}
static nn_tensor *build_mlp(nn_graph *g, nn_params *p, void *ctx) {
  return nn_attn_mlp(g, P(g, p, 2), P(g, p, 3), P(g, p, 4));
}
static nn_tensor *build_context(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *a = nn_softmax(g, nn_attn_dot(g, P(g, p, 0), P(g, p, 1)), attn_mask(g));
  return nn_attn_context(g, a, P(g, p, 1));
}
static nn_tensor *build_local(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *a = nn_softmax(g, nn_attn_dot(g, P(g, p, 0), P(g, p, 1)), attn_mask(g));
  return nn_attn_local(g, a, nn_sigmoid(g, P(g, p, 5)), nn_ints(g, B, src_len), 3.0f);
}

TEST(nn_attn_ops_grad) {
  nn_params p;
  t_nn_params(&p, 6, op_shapes, 31);
  T_NN_GRADCHECK(&p, build_dot, NULL);
  T_NN_GRADCHECK(&p, build_mlp, NULL);
  T_NN_GRADCHECK(&p, build_context, NULL);
  T_NN_GRADCHECK(&p, build_local, NULL);
  nn_params_free(&p);
}

TEST(nn_attn_ops_values) {
  nn_params p;
  t_nn_params(&p, 6, op_shapes, 32);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  const float *q = p.w + p.views[0].off, *K = p.w + p.views[1].off;
  nn_tensor *sc = build_dot(&g, &p, NULL), *ctx = build_context(&g, &p, NULL);
  nn_tensor *a = nn_softmax(&g, sc, attn_mask(&g));
  for (int b = 0; b < B; b++) {
    double want[F] = {0};
    for (int s = 0; s < S; s++) {
      double d = 0;
      for (int f = 0; f < F; f++) d += q[b * F + f] * K[(s * B + b) * F + f];
      CHECK_NEAR(sc->v[b * S + s], d, 1e-5);
      for (int f = 0; f < F; f++) want[f] += a->v[b * S + s] * K[(s * B + b) * F + f];
    }
    for (int f = 0; f < F; f++) CHECK_NEAR(ctx->v[b * F + f], want[f], 1e-5);
  }
  /* Local-p: the Gaussian peaks at p = len·σ and the window cuts at D. */
  nn_tensor *l = build_local(&g, &p, NULL);
  float sig = 1 / (1 + expf(-p.w[p.views[5].off]));
  for (int s = 0; s < S; s++) {
    float d = s - src_len[0] * sig;
    float want = fabsf(d) <= 3 ? a->v[s] * expf(-d * d / (2 * 1.5f * 1.5f)) : 0;
    CHECK_NEAR(l->v[s], want, 1e-6);
  }
  nn_graph_free(&g);
  nn_params_free(&p);
}

/* The whole attention layer for each score type, global and local-p. */
typedef struct {
  nn_attn_cfg cfg;
} layer_case;

/* Params: 0 h (B,F), 1 Hs (S*B,F), 2 Wa (F,F|A), 3 Wq (F,A), 4 v (1,A), 5 Wp (F,A), 6 vp (A,1), 7 Wc (2F,F). */
static nn_tensor *build_layer(nn_graph *g, nn_params *p, void *ctx) {
  const nn_attn_cfg *cfg = ctx;
  nn_attn_w w = {P(g, p, 2), P(g, p, 3), P(g, p, 4), P(g, p, 5), P(g, p, 6), P(g, p, 7)};
  nn_tensor *Hs = P(g, p, 1), *K = nn_attn_keys(g, cfg, &w, Hs), *align;
  nn_tensor *ht = nn_attn_step(g, cfg, &w, P(g, p, 0), K, Hs, attn_mask(g), nn_ints(g, B, src_len), &align);
  return nn_concat(g, ht, align);
}

TEST(nn_attn_luong_layer_grad) {
  nn_attn_cfg cfgs[] = {
      {NN_ATTN_DOT, false, 0}, {NN_ATTN_GENERAL, false, 0}, {NN_ATTN_MLP, false, 0},
      {NN_ATTN_DOT, true, 2}, {NN_ATTN_GENERAL, true, 3},  {NN_ATTN_MLP, true, 3},
  };
  for (size_t i = 0; i < sizeof cfgs / sizeof *cfgs; i++) {
    int wa = cfgs[i].score == NN_ATTN_MLP ? A : F;
    int shapes[8][2] = {{B, F}, {S * B, F}, {F, wa}, {F, A}, {1, A}, {F, A}, {A, 1}, {2 * F, F}};
    nn_params p;
    t_nn_params(&p, 8, shapes, 40 + i);
    for (size_t k = p.views[2].off; k < p.n; k++) p.w[k] *= 0.5f;
    T_NN_GRADCHECK(&p, build_layer, &cfgs[i]);
    nn_params_free(&p);
  }
}
