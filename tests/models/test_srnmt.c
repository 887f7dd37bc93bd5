/* The srnmt family, SR-NMT and SRU (paper 000): whole-model gradients, forced
 * decoding through encode/step against forward (the scan, highway and batched
 * attention: tests/nn/cells/). */
#include "base/err.h"
#include "models/parts.h"
#include "models/srnmt.h"
#include "nn/ops.h"
#include "test.h"
#include "nn/grad_check.h"
#include "models/model_case.h"

enum { PAD = 0, BOS = 1, EOS = 2, V = 7, MB = 3, MS = 4, MT = 5 };
/* Three sentences of lengths 4, 2, 3 (source) and their copies as targets. */
static const int *const src = copy_src, *const src_len = copy_src_len; /* models/model_case.h */
static const int *const tgt_in = copy_tgt_in, *const tgt_out = copy_tgt_out;

static nmt_net_cfg tiny_cfg(enum nmt_cell cell) {
  return (nmt_net_cfg){.family = &nmt_family_srnmt, .src_vocab = V, .tgt_vocab = V, .emb = 5,
                      .hidden = 6, .enc_layers = 2, .dec_layers = 2, .enc_type = NMT_ENC_BI,
                      .attn = {NN_ATTN_MLP, false, 0}, .attn_size = 4, .label_smoothing = 0.1f,
                      .pad = PAD, .enc_cell = cell, .dec_cell = cell};
}

/* Layer norm's curvature grows as 1/σ² of its input: with small matrices the
 * ε = 5e-3 differences of the checker are off by a few percent. Where the
 * layers are normalised the matrices (the output layer's aside) are scaled up
 * ×8; the norms keep the gates and tanh inputs in range. */
static void setup(model_case *mc, nn_params *p, const nmt_net_cfg *cfg, uint64_t seed) {
  if (!model_setup(mc, p, cfg, (nmt_batch){MB, MS, MT, src, src_len, tgt_in, tgt_out}, seed)) return;
  for (int v = 0; v < p->nviews && (cfg->dec_cell == NMT_CELL_SRNMT || cfg->opt.layer_norm); v++)
    if (p->views[v].rows > 1 && strcmp(p->views[v].name, "out.W"))
      for (int k = 0; k < p->views[v].rows * p->views[v].cols; k++) p->w[p->views[v].off + k] *= 8;
}

/* The variants: SR-NMT bidirectional with dropout, emb != hidden (the
 * highway projections); unidirectional with emb == hidden, 3 decoder layers;
 * SRU bi-unidirectional; SRU with layer norm, one layer each. */
static nmt_net_cfg variant(int i) {
  nmt_net_cfg c = tiny_cfg(i < 2 ? NMT_CELL_SRNMT : NMT_CELL_SRU);
  if (i == 0) c.dropout = 0.2f;
  if (i == 1) c.emb = 6, c.enc_type = NMT_ENC_UNI, c.enc_layers = 1, c.dec_layers = 3;
  if (i == 2) c.enc_type = NMT_ENC_BI_UNI, c.enc_layers = 3, c.dropout = 0.1f;
  if (i == 3) c.opt.layer_norm = true, c.enc_layers = c.dec_layers = 1;
  return c;
}
enum { NVARIANTS = 4 };

TEST(nn_srnmt_model_grad) {
  for (int i = 0; i < NVARIANTS; i++) {
    nmt_net_cfg cfg = variant(i);
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
    nmt_net_cfg cfg = variant(i);
    cfg.dropout = 0;
    model_case mc;
    nn_params p;
    setup(&mc, &p, &cfg, 70 + i);
    nn_graph g = {0};
    nn_graph_reset(&g, false, 0);
    long ntok = 0;
    double want = nmt_net_forward(&g, &mc.m, &p, &mc.batch, &ntok)->v[0], got = 0;
    float src_mask[MS * MB], attn_mask[MB * MS];
    for (int s = 0; s < MS; s++)
      for (int b = 0; b < MB; b++) src_mask[s * MB + b] = attn_mask[b * MS + s] = s < src_len[b];
    nmt_enc_out out;
    CHECK_INT(nmt_family_srnmt.encode(&g, &mc.m, &p, src, src_len, MS, MB, src_mask, &out), 0);
    nmt_dec_ctx ctx = {out.mem, attn_mask, src_len, MS, MB, NULL, MB};
    nn_tensor *W = nn_param(&g, &p, nn_params_find(&p, "out.W"));
    nn_tensor *bias = nn_param(&g, &p, nn_params_find(&p, "out.b"));
    for (int t = 0; t < MT; t++) {
      nn_tensor *before[NMT_NET_MAX_STATE], *a = NULL;
      memcpy(before, out.state, sizeof before);
      nn_tensor *top = nmt_family_srnmt.step(&g, &mc.m, &p, tgt_in + t * MB, out.state, &ctx, &a);
      nn_tensor *logits = nn_linear(&g, top, W, bias);
      long n = 0;
      got += nn_xent(&g, logits, tgt_out + t * MB, PAD, cfg.label_smoothing, &n)->v[0];
      CHECK(a && a->rows == MB && a->cols == MS);
      /* Rows 0 and 2 alone. */
      static const int live[2] = {0, 2};
      nmt_dec_ctx sub = ctx;
      sub.rows = live;
      sub.n = 2;
      for (int l = 0; l < out.nstate; l++) before[l] = nmt_dec_gather(&g, &sub, before[l]);
      int prev[2] = {tgt_in[t * MB], tgt_in[t * MB + 2]};
      nn_tensor *part = nmt_family_srnmt.step(&g, &mc.m, &p, prev, before, &sub, NULL);
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
    nmt_net_cfg cfg = variant(i);
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
    nmt_net_cfg c = tiny_cfg(NMT_CELL_SRNMT);
    switch (cases[i].what) {
    case 0: c.enc_cell = NMT_CELL_SRU; break;
    case 1: c.no_attention = true; break;
    case 2: c.dec_layers = 8; break;
    case 3: c.opt.skip = true; break;
    case 4: c.hidden = 7; break;
    case 5: c.dec_cell = NMT_CELL_ATR; break;
    case 6: c.opt.reverse_source = true; break;
    }
    nmt_net m;
    nn_params p = {0};
    CHECK_INT(nmt_net_layout(&m, &c, &p), NMT_EUSAGE);
    if (!strstr(nmt_errmsg(), cases[i].flag)) T_FAIL("'%s' does not name %s", nmt_errmsg(), cases[i].flag);
    nn_params_free(&p);
  }
}
