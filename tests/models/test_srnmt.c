/* SR-NMT and SRU: the weakly-recurrent scan, the highway, the attention
 * batched over steps, and the srnmt family (whole-model gradients, forced
 * decoding through encode/step against forward). */
#include "base/err.h"
#include "nn/cells/attn.h"
#include "nn/kernels.h"
#include "models/srnmt.h"
#include "nn/ops.h"
#include "nn/cells/highway.h"
#include "nn/cells/wscan.h"
#include "nn/cells/srnmt_attn.h"
#include "test.h"
#include "nn/grad_check.h"
#include "models/model_case.h"

static nn_tensor *P(nn_graph *g, nn_params *p, int i) { return nn_param(g, p, i); }

enum { B = 3, H = 4, T = 4, S = 3, A = 5 };
/* Sentence 0 has 4 steps, sentence 1 has 2, sentence 2 has 3. */
static const float step_mask[T * B] = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0};

TEST(nn_srnmt_scan_values) {
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

TEST(nn_srnmt_scan_grad) {
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
TEST(nn_srnmt_scan_padding) {
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

/* ---- the srnmt family ---- */

enum { PAD = 0, BOS = 1, EOS = 2, V = 7, MB = 3, MS = 4, MT = 5 };
/* Three sentences of lengths 4, 2, 3 (source) and their copies as targets. */
static const int *const src = copy_src, *const src_len = copy_src_len; /* models/model_case.h */
static const int *const tgt_in = copy_tgt_in, *const tgt_out = copy_tgt_out;

static nn_net_cfg tiny_cfg(enum nn_cell cell) {
  return (nn_net_cfg){.family = &nn_family_srnmt, .src_vocab = V, .tgt_vocab = V, .emb = 5,
                      .hidden = 6, .enc_layers = 2, .dec_layers = 2, .enc_type = NN_ENC_BI,
                      .attn = {NN_ATTN_MLP, false, 0}, .attn_size = 4, .label_smoothing = 0.1f,
                      .pad = PAD, .enc_cell = cell, .dec_cell = cell};
}

/* Layer norm's curvature grows as 1/σ² of its input: with small matrices the
 * ε = 5e-3 differences of the checker are off by a few percent. Where the
 * layers are normalised the matrices (the output layer's aside) are scaled up
 * ×8; the norms keep the gates and tanh inputs in range. */
static void setup(model_case *mc, nn_params *p, const nn_net_cfg *cfg, uint64_t seed) {
  if (!model_setup(mc, p, cfg, (nn_batch){MB, MS, MT, src, src_len, tgt_in, tgt_out}, seed)) return;
  for (int v = 0; v < p->nviews && (cfg->dec_cell == NN_CELL_SRNMT || cfg->layer_norm); v++)
    if (p->views[v].rows > 1 && strcmp(p->views[v].name, "out.W"))
      for (int k = 0; k < p->views[v].rows * p->views[v].cols; k++) p->w[p->views[v].off + k] *= 8;
}

/* The variants: SR-NMT bidirectional with dropout, emb != hidden (the
 * highway projections); unidirectional with emb == hidden, 3 decoder layers;
 * SRU bi-unidirectional; SRU with layer norm, one layer each. */
static nn_net_cfg variant(int i) {
  nn_net_cfg c = tiny_cfg(i < 2 ? NN_CELL_SRNMT : NN_CELL_SRU);
  if (i == 0) c.dropout = 0.2f;
  if (i == 1) c.emb = 6, c.enc_type = NN_ENC_UNI, c.enc_layers = 1, c.dec_layers = 3;
  if (i == 2) c.enc_type = NN_ENC_BI_UNI, c.enc_layers = 3, c.dropout = 0.1f;
  if (i == 3) c.layer_norm = true, c.enc_layers = c.dec_layers = 1;
  return c;
}
enum { NVARIANTS = 4 };

TEST(nn_srnmt_model_grad) {
  for (int i = 0; i < NVARIANTS; i++) {
    nn_net_cfg cfg = variant(i);
    model_case mc;
    nn_params p;
    setup(&mc, &p, &cfg, 60 + i);
    T_NN_GRADCHECK(&p, build_model, &mc);
    CHECK_INT(mc.ntokens, 12);
    nn_params_free(&p);
  }
}

/* Step-by-step decoding with the reference targets gives forward's loss, and
 * a step on a subset of the rows (dead beam rows skipped) gives those rows'
 * outputs. */
TEST(nn_srnmt_step_matches_forward) {
  for (int i = 0; i < NVARIANTS; i++) {
    nn_net_cfg cfg = variant(i);
    cfg.dropout = 0;
    model_case mc;
    nn_params p;
    setup(&mc, &p, &cfg, 70 + i);
    nn_graph g = {0};
    nn_graph_reset(&g, false, 0);
    long ntok = 0;
    double want = nn_net_forward(&g, &mc.m, &p, &mc.batch, &ntok)->v[0], got = 0;
    float src_mask[MS * MB], attn_mask[MB * MS];
    for (int s = 0; s < MS; s++)
      for (int b = 0; b < MB; b++) src_mask[s * MB + b] = attn_mask[b * MS + s] = s < src_len[b];
    nn_enc_out out;
    CHECK_INT(nn_family_srnmt.encode(&g, &mc.m, &p, src, src_len, MS, MB, src_mask, &out), 0);
    nn_dec_ctx ctx = {out.mem, attn_mask, src_len, MS, MB, NULL, MB};
    nn_tensor *W = nn_param(&g, &p, nn_params_find(&p, "out.W"));
    nn_tensor *bias = nn_param(&g, &p, nn_params_find(&p, "out.b"));
    for (int t = 0; t < MT; t++) {
      nn_tensor *before[NN_NET_MAX_STATE], *a = NULL;
      memcpy(before, out.state, sizeof before);
      nn_tensor *top = nn_family_srnmt.step(&g, &mc.m, &p, tgt_in + t * MB, out.state, &ctx, &a);
      nn_tensor *logits = nn_linear(&g, top, W, bias);
      long n = 0;
      got += nn_xent(&g, logits, tgt_out + t * MB, PAD, cfg.label_smoothing, &n)->v[0];
      CHECK(a && a->rows == MB && a->cols == MS);
      /* Rows 0 and 2 alone. */
      static const int live[2] = {0, 2};
      nn_dec_ctx sub = ctx;
      sub.rows = live;
      sub.n = 2;
      for (int l = 0; l < out.nstate; l++) before[l] = nn_dec_gather(&g, &sub, before[l]);
      int prev[2] = {tgt_in[t * MB], tgt_in[t * MB + 2]};
      nn_tensor *part = nn_family_srnmt.step(&g, &mc.m, &p, prev, before, &sub, NULL);
      for (int r = 0; r < 2; r++)
        for (int k = 0; k < top->cols; k++)
          CHECK_NEAR(part->v[r * top->cols + k], top->v[live[r] * top->cols + k], 1e-5);
    }
    CHECK_NEAR(got, want, 1e-4 * want);
    CHECK(!g.failed);
    nn_graph_free(&g);
    nn_params_free(&p);
  }
}

/* 200 Adam steps on the copy batch: per-token loss from about log 7. */
TEST(nn_srnmt_learns_copy) {
  for (int i = 0; i < NVARIANTS; i += 2) { /* SR-NMT, SRU */
    nn_net_cfg cfg = variant(i);
    cfg.hidden = 8;
    cfg.dropout = 0;
    model_case mc;
    nn_params p;
    setup(&mc, &p, &cfg, 7);
    nn_params_init(&p, NN_INIT_UNIFORM, 0.1f, 7);
    double first, last;
    CHECK(model_train(&mc, &p, 200, 0.02f, &first, &last) && first > 1.8);
    if (!(last < 0.6)) T_FAIL("variant %d: loss %.3f -> %.3f after 200 steps", i, first, last);
    nn_params_free(&p);
  }
}

/* Combinations the family cannot run fail in layout with one line. */
TEST(nn_srnmt_layout_rejects) {
  static const struct {
    const char *flag; /* in the message */
    int what;
  } cases[] = {{"--enc-cell and --dec-cell", 0}, {"--attention none", 1}, {"at most 7", 2},
               {"--skip", 3}, {"--dim-rnn must be even", 4}, {"--dec-cell atr", 5},
               {"--reverse-source", 6}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    nn_net_cfg c = tiny_cfg(NN_CELL_SRNMT);
    switch (cases[i].what) {
    case 0: c.enc_cell = NN_CELL_SRU; break;
    case 1: c.no_attention = true; break;
    case 2: c.dec_layers = 8; break;
    case 3: c.skip = true; break;
    case 4: c.hidden = 7; break;
    case 5: c.dec_cell = NN_CELL_ATR; break;
    case 6: c.reverse_source = true; break;
    }
    nn_net m;
    nn_params p = {0};
    CHECK_INT(nn_net_layout(&m, &c, &p), NMT_EUSAGE);
    if (!strstr(nmt_errmsg(), cases[i].flag)) T_FAIL("'%s' does not name %s", nmt_errmsg(), cases[i].flag);
    nn_params_free(&p);
  }
}
