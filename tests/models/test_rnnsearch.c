/* The RNNSearch family (paper 001; its ATR and GRU cells: tests/nn/cells/). */
#include "base/err.h"
#include "models/rnnsearch.h"
#include "nn/ops.h"
#include "test.h"
#include "nn/grad_check.h"
#include "models/model_case.h"

enum { PAD = 0, BOS = 1, EOS = 2, V = 7, MB = 3, MS = 4, MT = 5 };

/* Three sentences of lengths 4, 2, 3 (source) and their copies as targets. */
static const int *const src = copy_src, *const src_len = copy_src_len; /* models/model_case.h */
static const int *const tgt_in = copy_tgt_in, *const tgt_out = copy_tgt_out;

static nmt_net_cfg tiny_cfg(enum nmt_cell cell) {
  return (nmt_net_cfg){.family = &nmt_family_rnnsearch, .src_vocab = V, .tgt_vocab = V, .emb = 5,
                      .hidden = 6, .enc_layers = 1, .dec_layers = 1, .enc_type = NMT_ENC_BI,
                      .attn = {NN_ATTN_MLP, false, 0}, .attn_size = 4, .input_feed = true,
                      .label_smoothing = 0.1f, .pad = PAD, .enc_cell = cell, .dec_cell = cell};
}

/* The configurations the tests run: each cell; the context-aware encoder
 * with dropout; GNMT-style stacks with residuals; mixed cells. */
enum { NCFG = 6 };
static nmt_net_cfg test_cfg(int i) {
  static const enum nmt_cell cells[NCFG] = {NMT_CELL_ATR, NMT_CELL_GRU, NMT_CELL_LSTM, NMT_CELL_ATR,
                                           NMT_CELL_ATR, NMT_CELL_GRU};
  nmt_net_cfg c = tiny_cfg(cells[i]);
  if (i == 3) c.opt.context_aware = true, c.dropout = 0.2f;
  if (i == 4) c.enc_type = NMT_ENC_BI_UNI, c.enc_layers = 3, c.dec_layers = 3, c.opt.skip = true;
  if (i == 5) c.dec_cell = NMT_CELL_LSTM, c.enc_layers = 2, c.dec_layers = 2, c.opt.skip = true, c.opt.context_aware = true;
  return c;
}

static bool setup(model_case *mc, nn_params *p, const nmt_net_cfg *cfg, uint64_t seed) {
  return model_setup(mc, p, cfg, (nmt_batch){MB, MS, MT, src, src_len, tgt_in, tgt_out}, seed);
}

TEST(nn_rnnsearch_model_grad) {
  for (int i = 0; i < NCFG; i++) {
    nmt_net_cfg cfg = test_cfg(i);
    model_case mc;
    nn_params p;
    if (setup(&mc, &p, &cfg, 60 + i)) {
      T_NN_GRADCHECK(&p, build_model, &mc);
      CHECK_INT(mc.ntokens, 12);
    }
    nn_params_free(&p);
  }
}

/* Teacher-forced decoding through encode and step scores the batch as forward does. */
static double forced_loss(const nmt_net *m, nn_params *p) {
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  float mask[MB * MS];
  for (int b = 0; b < MB; b++)
    for (int s = 0; s < MS; s++) mask[b * MS + s] = s < src_len[b];
  float smask[MS * MB];
  for (int i = 0; i < MS * MB; i++) smask[i] = mask[(i % MB) * MS + i / MB];
  nmt_enc_out eo = {0};
  double loss = 0;
  if (m->cfg.family->encode(&g, m, p, src, src_len, MS, MB, smask, &eo)) return NAN;
  nmt_dec_ctx ctx = {eo.mem, mask, src_len, MS, MB, NULL, MB};
  nn_tensor *Wo = nn_param(&g, p, nn_params_find(p, "out.W")), *bo = nn_param(&g, p, nn_params_find(p, "out.b"));
  for (int t = 0; t < MT; t++) {
    nn_tensor *a = NULL;
    nn_tensor *o = m->cfg.family->step(&g, m, p, tgt_in + t * MB, eo.state, &ctx, &a);
    long n = 0;
    nn_tensor *l = nn_xent(&g, nn_linear(&g, o, Wo, bo), tgt_out + t * MB, PAD, m->cfg.label_smoothing, &n);
    if (!l || !a || a->rows != MB || a->cols != MS) return NAN;
    loss += l->v[0];
  }
  nn_graph_free(&g);
  return loss;
}

TEST(nn_rnnsearch_step_matches_forward) {
  for (int i = 0; i < NCFG; i++) {
    nmt_net_cfg cfg = test_cfg(i);
    cfg.dropout = 0;
    model_case mc;
    nn_params p;
    if (setup(&mc, &p, &cfg, 70 + i)) {
      nn_graph g = {0};
      nn_graph_reset(&g, false, 0);
      nn_tensor *loss = build_model(&g, &p, &mc);
      CHECK(loss != NULL);
      if (loss) CHECK_NEAR(forced_loss(&mc.m, &p), loss->v[0], 1e-4 * fabs(loss->v[0]));
      nn_graph_free(&g);
    }
    nn_params_free(&p);
  }
}

/* Floats in the cells' weight matrices (views named *.Wx, *.Wh). */
static long cell_weights(enum nmt_cell cell) {
  nmt_net_cfg cfg = tiny_cfg(cell);
  cfg.emb = 256, cfg.hidden = 512, cfg.attn_size = 512;
  nmt_net m;
  nn_params p = {0};
  long n = 0;
  CHECK_INT(nmt_net_layout(&m, &cfg, &p), 0);
  for (int i = 0; i < p.nviews; i++) {
    const char *dot = strrchr(p.views[i].name, '.');
    if (dot && (!strcmp(dot, ".Wx") || !strcmp(dot, ".Wh"))) n += (long)p.views[i].rows * p.views[i].cols;
  }
  nn_params_free(&p);
  return n;
}

TEST(nn_rnnsearch_atr_quarter_of_lstm) {
  long atr = cell_weights(NMT_CELL_ATR), gru = cell_weights(NMT_CELL_GRU), lstm = cell_weights(NMT_CELL_LSTM);
  CHECK(atr > 0 && 4 * atr <= lstm);
  CHECK_INT(3 * atr, gru);
  CHECK_INT(4 * atr, lstm);
}

/* Flags of other families and impossible settings fail in layout with one line. */
TEST(nn_rnnsearch_rejects_bad_configs) {
  static const char *const want[] = {"--cond-gru", "--enc-cell sru", "attention", "--peephole",
                                     "--local-attention", "--reverse-source"};
  for (int i = 0; i < 6; i++) {
    nmt_net_cfg c = tiny_cfg(NMT_CELL_ATR);
    if (i == 0) c.opt.cond_gru = true;
    if (i == 1) c.enc_cell = NMT_CELL_SRU;
    if (i == 2) c.attn.score = NN_ATTN_GENERAL;
    if (i == 3) c.opt.peephole = true;
    if (i == 4) c.attn.local = true;
    if (i == 5) c.opt.reverse_source = true;
    nmt_net m;
    nn_params p = {0};
    CHECK_INT(nmt_net_layout(&m, &c, &p), NMT_EUSAGE);
    CHECK(strstr(nmt_errmsg(), want[i]) != NULL);
    nn_params_free(&p);
  }
}

/* Adam on the copy batch: the per-token loss falls well below its start. (With
 * ATR's bias on the input side instead, h gained a constant every step and the
 * deep output saturated: stuck at the unigram loss 1.70.) */
static void learns_copy(enum nmt_cell cell, float lr, int steps, double below) {
  model_case mc;
  nn_params p;
  nmt_net_cfg cfg = tiny_cfg(cell);
  cfg.hidden = 8;
  if (!setup(&mc, &p, &cfg, 7)) return;
  nn_params_init(&p, NN_INIT_UNIFORM, 0.1f, 7);
  double first, last;
  model_train(&mc, &p, steps, lr, &first, &last);
  /* Label smoothing 0.1 over 7 words bounds the loss below by about 0.33. */
  CHECK(first > 1.8);
  if (!(last < below)) T_FAIL("cell %d: loss %.3f -> %.3f after %d steps", cell, first, last, steps);
  nn_params_free(&p);
}

TEST(nn_rnnsearch_learns_copy) {
  learns_copy(NMT_CELL_GRU, 0.02f, 200, 0.6);
  learns_copy(NMT_CELL_LSTM, 0.02f, 200, 0.6);
  learns_copy(NMT_CELL_ATR, 0.02f, 200, 0.6);
}

/* A step on a subset of the rows (dead beam rows skipped) gives those rows'
 * outputs, states and attention of the step on all rows. */
TEST(nn_rnnsearch_step_on_live_rows) {
  for (int i = 0; i < NCFG; i++) {
    nmt_net_cfg cfg = test_cfg(i);
    model_case mc;
    nn_params p;
    if (!setup(&mc, &p, &cfg, 80 + i)) {
      nn_params_free(&p);
      continue;
    }
    nn_graph g = {0};
    nn_graph_reset(&g, false, 0);
    float mask[MB * MS], smask[MS * MB];
    for (int k = 0; k < MB * MS; k++) mask[k] = k % MS < src_len[k / MS];
    for (int k = 0; k < MS * MB; k++) smask[k] = mask[(k % MB) * MS + k / MB];
    nmt_enc_out eo = {0};
    CHECK_INT(cfg.family->encode(&g, &mc.m, &p, src, src_len, MS, MB, smask, &eo), 0);
    static const int live[2] = {0, 2}, prev[MB] = {3, 4, 5}, prev_live[2] = {3, 5};
    nn_tensor *all[NMT_NET_MAX_STATE], *some[NMT_NET_MAX_STATE], *a_all = NULL, *a_some = NULL;
    for (int s = 0; s < eo.nstate; s++) {
      all[s] = eo.state[s];
      some[s] = nn_embed(&g, eo.state[s], live, 2);
    }
    nmt_dec_ctx full = {eo.mem, mask, src_len, MS, MB, NULL, MB}, part = full;
    part.rows = live, part.n = 2;
    nn_tensor *o_all = cfg.family->step(&g, &mc.m, &p, prev, all, &full, &a_all);
    nn_tensor *o_some = cfg.family->step(&g, &mc.m, &p, prev_live, some, &part, &a_some);
    CHECK(o_all && o_some && a_all && a_some);
    for (int r = 0; o_all && o_some && a_all && a_some && r < 2; r++) {
      for (int k = 0; k < o_all->cols; k++)
        CHECK_NEAR(o_some->v[r * o_all->cols + k], o_all->v[live[r] * o_all->cols + k], 1e-6);
      for (int k = 0; k < MS; k++) CHECK_NEAR(a_some->v[r * MS + k], a_all->v[live[r] * MS + k], 1e-6);
      for (int s = 0; s < eo.nstate; s++)
        for (int k = 0; k < all[s]->cols; k++)
          CHECK_NEAR(some[s]->v[r * all[s]->cols + k], all[s]->v[live[r] * all[s]->cols + k], 1e-6);
    }
    nn_graph_free(&g);
    nn_params_free(&p);
  }
}

/* The parameter count of docs/models.md, checked on the layout:
 * e, h, a sizes, g gates per cell (LSTM 4, GRU 3, ATR 1), f annotation width. */
static long gates_of(enum nmt_cell c) { return c == NMT_CELL_LSTM ? 4 : c == NMT_CELL_GRU ? 3 : 1; }

static long formula(const nmt_net_cfg *c) {
  long e = c->emb, h = c->hidden, a = c->attn_size, g = gates_of(c->enc_cell), gd = gates_of(c->dec_cell);
  long n = 0, in = e, f = 0;
  for (int l = 0; l < c->enc_layers; l++) {
    bool ca = !l && c->opt.context_aware;
    bool bi = !ca && (c->enc_type == NMT_ENC_BI || (c->enc_type == NMT_ENC_BI_UNI && !l));
    n += ca ? g * h * (in + h + 1) + g * h * (in + h + h + 1) : (bi ? 2 : 1) * g * h * (in + h + 1);
    in = f = bi ? 2 * h : h;
  }
  n += (c->src_vocab + c->tgt_vocab) * e + f * h + h;     /* embeddings, s_0 */
  n += gd * h * (e + h + 1) + gd * h * (f + h + 1);       /* layer 0's two cells */
  n += (c->dec_layers - 1) * gd * h * (h + f + h + 1);    /* layers >= 1 */
  n += h * a + f * a + 2 * a;                             /* attention */
  n += h * e + e * e + f * e + e + e * c->tgt_vocab + c->tgt_vocab; /* deep output, out */
  return n;
}

TEST(nn_rnnsearch_param_count_formula) {
  for (int i = 0; i < NCFG; i++) {
    nmt_net_cfg cfg = test_cfg(i);
    nmt_net m;
    nn_params p = {0};
    long n = 0;
    CHECK_INT(nmt_net_layout(&m, &cfg, &p), 0);
    for (int k = 0; k < p.nviews; k++) n += (long)p.views[k].rows * p.views[k].cols;
    CHECK_INT(n, formula(&cfg));
    nn_params_free(&p);
  }
}
