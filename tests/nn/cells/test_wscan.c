/* The weakly-recurrent scan and the highway of SRU / SR-NMT (paper 000): values
 * by hand, gradients in both directions, state carried through padding. */
#include "nn/cells/cell_case.h"
#include "nn/cells/highway.h"
#include "nn/cells/wscan.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "test.h"

TEST(nn_wscan_values) {
  /* One unit, forward: c1 = σ(g1)x1, c2 = c1 + σ(g2)(x2 - c1); then the
   * same two steps backward in time. */
  float G[2 * 2] = {0.5f, 0.3f, -1.0f, -0.2f}, c[2], sg[2];
  nn_wscan_fwd(c, sg, G, 2, NULL, NULL, 2, 1, 1, 1);
  double s1 = 1 / (1 + exp(-0.3)), s2 = 1 / (1 + exp(0.2)), c1 = s1 * 0.5;
  CHECK_NEAR(c[0], c1, 1e-6);
  CHECK_NEAR(c[1], c1 + s2 * (-1.0 - c1), 1e-6);
  nn_wscan_fwd(c, sg, G, 2, NULL, NULL, 2, 1, 1, 0);
  double b2 = s2 * -1.0;
  CHECK_NEAR(c[1], b2, 1e-6);
  CHECK_NEAR(c[0], b2 + s1 * (0.5 - b2), 1e-6);
  float Z[1] = {0.4f}, a[1] = {2.0f}, x[1] = {-1.0f}, y[1], sz[1];
  nn_highway_fwd(y, sz, Z, 1, a, x, 1, 1);
  double sw = 1 / (1 + exp(-0.4));
  CHECK_NEAR(y[0], (1 - sw) * 2.0 + sw * -1.0, 1e-6);
}

/* The scan over params G (T*B, 3H) and c0, units [0, Hf) forward; output
 * the states c, then the highway of c with z = G's last H columns. */
typedef struct {
  int Hf;
  bool c0, mask;
} scan_case;

static nn_tensor *build_scan(nn_graph *g, nn_params *p, void *ctx) {
  const scan_case *sc = ctx;
  const float *mask = sc->mask ? nn_floats(g, T * B, step_mask) : NULL;
  nn_tensor *G = P(g, p, 0), *c = nn_wscan(g, G, sc->c0 ? P(g, p, 1) : NULL, mask, T, H, sc->Hf);
  return nn_concat(g, c, nn_highway(g, G, 2 * H, c, P(g, p, 2)));
}

TEST(nn_wscan_grad) {
  int shapes[3][2] = {{T * B, 3 * H}, {B, H}, {T * B, H}};
  nn_params p;
  t_nn_params(&p, 3, shapes, 31);
  scan_case cases[] = {{H, false, false}, {H, true, true}, {H / 2, false, true}, {H / 2, true, true},
                       {0, true, true}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) T_NN_GRADCHECK(&p, build_scan, &cases[i]);
  nn_params_free(&p);
}

/* Through padding the forward units keep their last state; the backward ones
 * start at each sentence's last real step. */
TEST(nn_wscan_padding) {
  int shapes[3][2] = {{T * B, 3 * H}, {B, H}, {T * B, H}};
  nn_params p;
  t_nn_params(&p, 3, shapes, 32);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  const float *mask = nn_floats(&g, T * B, step_mask);
  nn_tensor *c = nn_wscan(&g, P(&g, &p, 0), NULL, mask, T, H, H / 2);
  CHECK(c != NULL);
  for (int k = 0; c && k < H / 2; k++) {
    CHECK(c->v[(3 * B + 1) * H + k] == c->v[(1 * B + 1) * H + k]);
    CHECK(c->v[(3 * B + 2) * H + k] == c->v[(2 * B + 2) * H + k]);
    CHECK(c->v[(3 * B + 1) * H + H / 2 + k] == 0); /* backward units: zero until the last token */
  }
  /* Sentence 1's backward state at its last token (step 1) is σ(g)·x̃ of that step. */
  const float *G = p.w + p.views[0].off + (size_t)(1 * B + 1) * 3 * H;
  for (int k = H / 2; c && k < H; k++)
    CHECK_NEAR(c->v[(1 * B + 1) * H + k], G[k] / (1 + exp(-G[H + k])), 1e-6);
  nn_graph_free(&g);
  nn_params_free(&p);
}
