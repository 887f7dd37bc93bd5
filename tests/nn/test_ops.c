/* Engine ops: values against naive loops, gradients against finite differences. */
#include "nn/gemm_rows.h"
#include "nn/kernels.h"
#include "nn/ops.h"
#include "nn/rng.h"
#include "test.h"
#include "nn/grad_check.h"
#include <math.h>
#include <stdint.h>
#include "base/err.h"

static nn_tensor *P(nn_graph *g, nn_params *p, int i) { return nn_param(g, p, i); }

/* ---- matmul, all four transpose combinations ---- */
typedef struct { bool ta, tb; } tr;

static nn_tensor *build_matmul(nn_graph *g, nn_params *p, void *ctx) {
  tr *t = ctx;
  return nn_matmul(g, P(g, p, 0), t->ta, P(g, p, 1), t->tb);
}

TEST(nn_matmul_values_and_grad) {
  for (int k = 0; k < 4; k++) {
    tr t = {k & 1, k >> 1};
    int M = 3, K = 4, N = 2;
    int shapes[2][2] = {{t.ta ? K : M, t.ta ? M : K}, {t.tb ? N : K, t.tb ? K : N}};
    nn_params p;
    t_nn_params(&p, 2, shapes, 10 + k);
    nn_graph g = {0};
    nn_graph_reset(&g, false, 0);
    nn_tensor *c = build_matmul(&g, &p, &t);
    const float *A = p.w + p.views[0].off, *B = p.w + p.views[1].off;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int q = 0; q < K; q++)
          s += (t.ta ? A[q * M + i] : A[i * K + q]) * (t.tb ? B[j * K + q] : B[q * N + j]);
        CHECK_NEAR(c->v[i * N + j], s, 1e-5);
      }
    nn_graph_free(&g);
    T_NN_GRADCHECK(&p, build_matmul, &t);
    nn_params_free(&p);
  }
}

/* ---- pointwise ---- */
typedef nn_tensor *(*unop)(nn_graph *, nn_tensor *);
typedef nn_tensor *(*binop)(nn_graph *, nn_tensor *, nn_tensor *);

static nn_tensor *build_unary(nn_graph *g, nn_params *p, void *ctx) {
  return (*(unop *)ctx)(g, P(g, p, 0));
}
static nn_tensor *build_binary(nn_graph *g, nn_params *p, void *ctx) {
  return (*(binop *)ctx)(g, P(g, p, 0), P(g, p, 1));
}
static nn_tensor *scale3(nn_graph *g, nn_tensor *x) { return nn_scale(g, x, -3.0f); }
static nn_tensor *build_bias(nn_graph *g, nn_params *p, void *ctx) {
  return nn_add_bias(g, P(g, p, 0), P(g, p, 1));
}
static nn_tensor *build_linear(nn_graph *g, nn_params *p, void *ctx) {
  return nn_linear(g, P(g, p, 0), P(g, p, 2), P(g, p, 1));
}

TEST(nn_pointwise_grad) {
  int shapes[2][2] = {{3, 5}, {3, 5}};
  nn_params p;
  t_nn_params(&p, 2, shapes, 3);
  unop un[] = {nn_sigmoid, nn_tanh, scale3};
  for (int i = 0; i < 3; i++) T_NN_GRADCHECK(&p, build_unary, &un[i]);
  binop bin[] = {nn_add, nn_sub, nn_mul};
  for (int i = 0; i < 3; i++) T_NN_GRADCHECK(&p, build_binary, &bin[i]);
  nn_params_free(&p);
  int bshapes[2][2] = {{4, 3}, {1, 3}};
  t_nn_params(&p, 2, bshapes, 4);
  T_NN_GRADCHECK(&p, build_bias, NULL);
  nn_params_free(&p);
  int lshapes[3][2] = {{4, 3}, {1, 2}, {3, 2}};
  t_nn_params(&p, 3, lshapes, 4);
  T_NN_GRADCHECK(&p, build_linear, NULL);
  nn_params_free(&p);
}

TEST(nn_pointwise_values) {
  float x[3] = {-1, 0, 2}, y[3];
  nn_sigmoid_fwd(y, x, 3);
  CHECK_NEAR(y[0], 1 / (1 + exp(1.0)), 1e-6);
  CHECK_NEAR(y[1], 0.5, 1e-7);
  nn_tanh_fwd(y, x, 3);
  CHECK_NEAR(y[2], tanh(2.0), 1e-6);
}

/* ---- shapes: concat, slice, stack, embed ---- */
static nn_tensor *build_concat_slice(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *c = nn_concat(g, P(g, p, 0), P(g, p, 1)); /* (3, 2+4) */
  return nn_mul(g, nn_slice(g, c, 1, 4), nn_slice(g, c, 2, 4)); /* overlapping slices */
}
static nn_tensor *build_stack(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *a = P(g, p, 1), *xs[3] = {a, nn_tanh(g, a), a};
  return nn_stack(g, xs, 3);
}
static const int embed_ids[6] = {2, 0, 2, 3, 1, 2};
static nn_tensor *build_embed(nn_graph *g, nn_params *p, void *ctx) {
  return nn_embed(g, P(g, p, 2), nn_ints(g, 6, embed_ids), 6);
}

TEST(nn_shape_ops_grad) {
  int shapes[3][2] = {{3, 2}, {3, 4}, {4, 3}};
  nn_params p;
  t_nn_params(&p, 3, shapes, 5);
  T_NN_GRADCHECK(&p, build_concat_slice, NULL);
  T_NN_GRADCHECK(&p, build_stack, NULL);
  T_NN_GRADCHECK(&p, build_embed, NULL);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  nn_tensor *y = build_embed(&g, &p, NULL);
  CHECK(y->v[3 * 3 + 1] == p.w[p.views[2].off + 3 * 3 + 1]);
  nn_tensor *c = nn_concat(&g, P(&g, &p, 0), P(&g, &p, 1));
  CHECK(c->v[6 + 2] == p.w[p.views[1].off + 4]);
  nn_graph_free(&g);
  nn_params_free(&p);
}

/* ---- layer norm, masked softmax, cross-entropy, dropout ---- */
static nn_tensor *build_layernorm(nn_graph *g, nn_params *p, void *ctx) {
  return nn_layernorm(g, P(g, p, 0), P(g, p, 1), P(g, p, 2), 1e-5f);
}

TEST(nn_layernorm_grad) {
  int shapes[3][2] = {{3, 5}, {1, 5}, {1, 5}};
  nn_params p;
  t_nn_params(&p, 3, shapes, 6);
  T_NN_GRADCHECK(&p, build_layernorm, NULL);
  nn_params_free(&p);
}

static const float sm_mask[12] = {1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0};
static nn_tensor *build_softmax(nn_graph *g, nn_params *p, void *ctx) {
  return nn_softmax(g, P(g, p, 0), ctx ? nn_floats(g, 12, sm_mask) : NULL);
}

TEST(nn_softmax_masked) {
  int shapes[1][2] = {{3, 4}};
  nn_params p;
  t_nn_params(&p, 1, shapes, 7);
  T_NN_GRADCHECK(&p, build_softmax, NULL);
  T_NN_GRADCHECK(&p, build_softmax, (void *)1);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  nn_tensor *y = build_softmax(&g, &p, (void *)1);
  for (int r = 0; r < 3; r++) {
    double s = 0;
    for (int c = 0; c < 4; c++) s += y->v[r * 4 + c];
    CHECK_NEAR(s, 1, 1e-6);
  }
  CHECK(y->v[2] == 0 && y->v[8] == 0 && y->v[9] == 0);
  CHECK_NEAR(y->v[10], 1, 1e-7);
  nn_graph_free(&g);
  nn_params_free(&p);
}

static const int xent_tgt[4] = {2, 0, 9, 4}; /* 9 = pad */
static long xent_ntok;
static nn_tensor *build_xent(nn_graph *g, nn_params *p, void *ctx) {
  float ls = *(float *)ctx;
  return nn_xent(g, P(g, p, 0), nn_ints(g, 4, xent_tgt), 9, ls, &xent_ntok);
}

TEST(nn_xent_label_smoothing) {
  int shapes[1][2] = {{4, 5}};
  nn_params p;
  t_nn_params(&p, 1, shapes, 8);
  float ls[2] = {0, 0.1f};
  for (int i = 0; i < 2; i++) T_NN_GRADCHECK(&p, build_xent, &ls[i]);
  /* Values against a direct computation. */
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  nn_tensor *loss = build_xent(&g, &p, &ls[1]);
  CHECK_INT(xent_ntok, 3);
  double want = 0;
  for (int r = 0; r < 4; r++) {
    if (xent_tgt[r] == 9) continue;
    const float *x = p.w + r * 5;
    double z = 0;
    for (int v = 0; v < 5; v++) z += exp(x[v]);
    double nll = log(z) - x[xent_tgt[r]], smooth = 0;
    for (int v = 0; v < 5; v++) smooth += (log(z) - x[v]) / 5;
    want += 0.9 * nll + 0.1 * smooth;
  }
  CHECK_NEAR(loss->v[0], want, 1e-4);
  nn_graph_free(&g);
  nn_params_free(&p);
}

static nn_tensor *build_dropout(nn_graph *g, nn_params *p, void *ctx) {
  nn_tensor *x = P(g, p, 0);
  return nn_add(g, nn_dropout(g, x, 0.3f), nn_dropout(g, x, 0.5f));
}

TEST(nn_dropout_mask) {
  int shapes[1][2] = {{40, 50}};
  nn_params p;
  t_nn_params(&p, 1, shapes, 9);
  nn_graph g = {.seed = 5};
  nn_graph_reset(&g, true, 3);
  nn_tensor *y = nn_dropout(&g, P(&g, &p, 0), 0.3f);
  int zeros = 0;
  for (int i = 0; i < 2000; i++) {
    if (y->v[i] == 0) zeros++;
    else CHECK_NEAR(y->v[i], p.w[i] / 0.7f, 1e-6);
  }
  CHECK(zeros > 500 && zeros < 700);
  /* The same (seed, step, op number) gives the same mask; another step another. */
  float first = 0, again = 0;
  for (int i = 0; i < 2000; i++) first += y->v[i] == 0 ? (float)i : 0;
  nn_graph_reset(&g, true, 3);
  y = nn_dropout(&g, P(&g, &p, 0), 0.3f);
  for (int i = 0; i < 2000; i++) again += y->v[i] == 0 ? (float)i : 0;
  CHECK(first == again);
  nn_graph_reset(&g, true, 4);
  y = nn_dropout(&g, P(&g, &p, 0), 0.3f);
  again = 0;
  for (int i = 0; i < 2000; i++) again += y->v[i] == 0 ? (float)i : 0;
  CHECK(first != again);
  nn_graph_reset(&g, false, 4); /* not training: identity */
  CHECK(nn_dropout(&g, P(&g, &p, 0), 0.3f)->v == p.w);
  nn_graph_free(&g);
  nn_params_free(&p);
  int small[1][2] = {{3, 4}};
  t_nn_params(&p, 1, small, 9);
  T_NN_GRADCHECK(&p, build_dropout, NULL);
  nn_params_free(&p);
}

/* Whether element i of the mask keeps, from the Philox counter words
 * (i/4, part, op, step) written out. */
static bool keeps(uint64_t seed, uint32_t step, uint32_t part, uint32_t op, uint32_t i, float p) {
  uint32_t ctr[4] = {i / 4, part, op, step}, key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)}, w[4];
  nn_philox4x32(ctr, key, w);
  return (float)(w[i % 4] >> 8) / 16777216.0f >= p;
}

/* Part 0 keeps the single-worker masks (stream step·2³² + op from element 0);
 * every part draws its own. */
TEST(nn_dropout_parts) {
  enum { N = 4096 };
  int shapes[1][2] = {{64, N / 64}};
  nn_params p;
  t_nn_params(&p, 1, shapes, 9);
  const uint64_t seed = 0x123456789ULL, step = 7;
  nn_graph g = {.seed = seed};
  static float mask[3][N]; /* op 0's masks (copied: the arena is reused) */
  for (uint32_t part = 0; part < 3; part++) {
    g.part = part;
    nn_graph_reset(&g, true, step);
    nn_dropout(&g, P(&g, &p, 0), 0.3f);
    memcpy(mask[part], g.tape[g.ntape - 1].save[0], sizeof mask[part]);
    nn_tensor *y = nn_dropout(&g, P(&g, &p, 0), 0.3f); /* op 1 */
    int bad = 0;
    for (uint32_t i = 0; i < N; i++) bad += (y->v[i] != 0) != keeps(seed, step, part, 1, i, 0.3f);
    CHECK_INT(bad, 0);
  }
  int same = 0, old = 0;
  for (int i = 0; i < N; i++) {
    same += (mask[0][i] == 0) == (mask[1][i] == 0);
    old += (mask[0][i] == 0) == (nn_rng_uniform(seed, step << 32, (uint64_t)i) < 0.3f);
  }
  CHECK_INT(old, N);
  CHECK(same > N * 0.5 && same < N * 0.65); /* independent masks agree on 0.3² + 0.7² = 58% */
  CHECK(memcmp(mask[1], mask[2], sizeof mask[1]));
  nn_graph_free(&g);
  nn_params_free(&p);
}

TEST(nn_tape_shape_errors) {
  int shapes[2][2] = {{3, 4}, {3, 4}};
  nn_params p;
  t_nn_params(&p, 2, shapes, 1);
  nn_graph g = {0};
  nn_graph_reset(&g, true, 0);
  nn_tensor *c = nn_matmul(&g, P(&g, &p, 0), false, P(&g, &p, 1), false);
  CHECK(c == NULL && g.failed);
  CHECK(strstr(nmt_errmsg(), "matmul: inner sizes differ (4 vs 3)") != NULL);
  CHECK(nn_tanh(&g, P(&g, &p, 0)) == NULL); /* sticky */
  CHECK(nn_tape_backward(&g, c, 1) != 0);
  nn_graph_reset(&g, true, 0); /* a reset clears it */
  CHECK(nn_matmul(&g, P(&g, &p, 0), false, P(&g, &p, 1), true) != NULL);
  nn_graph_free(&g);
  nn_params_free(&p);
}

/* The few-rows kernel (nn_gemm_rows) against a plain triple loop: odd sizes,
 * padded leading dimensions, alpha and beta (0: C is not read, so NaN stays out). */
TEST(nn_gemm_rows_matches_loop) {
  float A[8 * 45], B[41 * 140], C[8 * 140], D[8 * 140];
  uint64_t s = 12345;
  for (int it = 0; it < 300; it++) {
    int M = 2 + it % 7, N = 1 + (it * 37) % 137, K = 1 + (it * 11) % 41;
    int lda = K + it % 3, ldb = N + it % 2, ldc = N + it % 3;
    float alpha = it % 3 ? 1.0f : 0.5f, beta = it % 4 == 0 ? 0.0f : it % 2 ? 1.0f : 0.25f;
    for (int i = 0; i < M * lda; i++) A[i] = (float)((s = s * 6364136223846793005u + 1) >> 40) / (1 << 24) - 0.5f;
    for (int i = 0; i < K * ldb; i++) B[i] = (float)((s = s * 6364136223846793005u + 1) >> 40) / (1 << 24) - 0.5f;
    for (int i = 0; i < M * ldc; i++) C[i] = D[i] = beta == 0 ? NAN : (float)(i % 7) - 3;
    if (!nn_gemm_rows(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)) T_SKIP("no AVX-512 on this CPU");
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double want = 0;
        for (int k = 0; k < K; k++) want += (double)A[m * lda + k] * B[k * ldb + n];
        want = alpha * want + (beta == 0 ? 0 : beta * D[m * ldc + n]);
        if (!(fabs(C[m * ldc + n] - want) <= 1e-5 * (1 + fabs(want)))) {
          T_FAIL("M%d N%d K%d at (%d,%d): %g, want %g", M, N, K, m, n, C[m * ldc + n], want);
          return;
        }
      }
  }
}
