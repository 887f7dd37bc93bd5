/* Deep-Att and Deep-ED: layout, encoder, decoder step and training forward. */
#include "models/deepatt.h"
#include "models/parts.h"
#include "base/err.h"
#include "nn/cells/lstm.h"
#include "nn/cells/lstm_peep.h"
#include "nn/maxpool.h"
#include "nn/ops.h"
#include <stdio.h>
#include <string.h>

/* Each layer's views: f's W and b, the recurrent Wr, the peepholes. */
enum { LW_W, LW_B, LW_R, LW_PEEP, LW };
/* m->slot indices. */
enum {
  SRC_EMB, TGT_EMB,
  ANN_WP,                                 /* Deep-Att with F-F: (10H, 10H/4) */
  ATT_WA, ATT_WQ, ATT_V,                  /* mlp: (P,A), (H,A), (1,A); general: Wa (P,H) */
  DEC_WC,                                 /* the context's part of the decoder's first f */
  OUT_W, OUT_B,
  ENC_L,                                  /* column c, layer l: ENC_L + (c*NMT_MAX_LAYERS + l)*LW */
  DEC_L = ENC_L + 2 * NMT_MAX_LAYERS * LW, /* layer l: DEC_L + l*LW */
  NSLOTS = DEC_L + NMT_MAX_LAYERS * LW
};
_Static_assert((int)NSLOTS <= (int)NMT_NET_MAX_VIEWS, "deep-att slots");

static int enc_slot(int col, int l) { return ENC_L + (col * NMT_MAX_LAYERS + l) * LW; }
static int dec_slot(int l) { return DEC_L + l * LW; }

static bool attends(const nmt_net *m) { return m->cfg.family == &nmt_family_deep_att; }

/* Widths: the annotations [h_a1, h_a2(, f_a1, f_a2)] and the context the
 * decoder reads (Deep-Att with F-F: projected to 1/4; without, Bahdanau's
 * unprojected [h_a1, h_a2]; Deep-ED: all of it). */
static int ann_width(const nmt_net_cfg *c) { return (c->opt.fast_forward ? 10 : 2) * c->hidden; }
static int ctx_width(const nmt_net *m) {
  return attends(m) && m->cfg.opt.fast_forward ? ann_width(&m->cfg) / 4 : ann_width(&m->cfg);
}

/* NMT_OK, or NMT_EUSAGE naming what the configuration gets wrong. */
static int check_cfg(const nmt_net *m) {
  const nmt_net_cfg *c = &m->cfg;
  const char *fam = c->family->name;
  if (c->enc_layers < 1 || c->enc_layers > NMT_MAX_LAYERS || c->dec_layers < 1 ||
      c->dec_layers > NMT_MAX_LAYERS || c->emb < 1 || c->hidden < 1 || c->src_vocab < 1 ||
      c->tgt_vocab < 1)
    return nmt_fail(NMT_EUSAGE, "%s: bad configuration (layers 1..%d, sizes >= 1)", fam,
                    NMT_MAX_LAYERS);
  if (nmt_net_cells(c, 0)) return NMT_EUSAGE; /* LSTM columns */
  if (!attends(m))
    return c->no_attention ? NMT_OK
                           : nmt_fail(NMT_EUSAGE, "deep-ed: --attention must be none: Deep-ED reads a "
                                                  "fixed max-pooled context (--type deep-att attends)");
  if (c->no_attention) return nmt_fail(NMT_EUSAGE, "deep-att: --attention none: use --type deep-ed");
  if (c->attn.score == NN_ATTN_DOT)
    return nmt_fail(NMT_EUSAGE, "deep-att: --attention dot: mlp or general scores only");
  if (c->attn.score == NN_ATTN_MLP && c->attn_size < 1)
    return nmt_fail(NMT_EUSAGE, "deep-att: the MLP attention size must be >= 1");
  if (c->opt.fast_forward && c->hidden % 2)
    return nmt_fail(NMT_EUSAGE, "deep-att: --dim-rnn must be even with --fast-forward "
                                "(annotations of 10H projected to 10H/4)");
  return NMT_OK;
}

/* Layer views "<prefix>.{W,b,Wr,peep}" into slots [base, base+LW): f reads
 * `in` features; Wr and the peepholes are the recurrent part. */
static void add_layer(nmt_net *m, nn_params *p, int *st, int base, const char *prefix, int in) {
  int H = m->cfg.hidden;
  char name[64];
  static const char *const names[LW] = {"W", "b", "Wr", "peep"};
  int rows[LW] = {in, 1, H, 1}, cols[LW] = {4 * H, 4 * H, 4 * H, 3 * H};
  for (int k = 0; k < LW; k++) {
    if (k == LW_PEEP && !m->cfg.opt.peephole) continue;
    snprintf(name, sizeof name, "%s.%s", prefix, names[k]);
    nmt_net_add(p, st, &m->slot[base + k], name, rows[k], cols[k]);
    if (k >= LW_R && m->slot[base + k] >= 0) nn_params_mark_recurrent(p, m->slot[base + k]);
  }
}

static int layout(nmt_net *m, nn_params *p) {
  int st = check_cfg(m);
  if (st) return st;
  nmt_net_cfg *c = &m->cfg;
  c->input_feed = false; /* the context enters the first layer's f instead */
  c->no_attention = !attends(m);
  int E = c->emb, H = c->hidden, A = c->attn_size, C = ctx_width(m);
  int deep_in = c->opt.fast_forward ? 3 * H : H; /* [Half(f), h] or h */
  nmt_net_add_embeddings(p, &st, &m->slot[SRC_EMB], &m->slot[TGT_EMB], c);
  char prefix[32];
  for (int col = 0; col < 2; col++)
    for (int l = 0; l < c->enc_layers; l++) {
      snprintf(prefix, sizeof prefix, "enc.a%d.l%d", col + 1, l);
      add_layer(m, p, &st, enc_slot(col, l), prefix, l ? deep_in : E);
    }
  if (attends(m)) {
    if (c->opt.fast_forward) nmt_net_add(p, &st, &m->slot[ANN_WP], "enc.Wp", ann_width(c), C);
    bool mlp = c->attn.score == NN_ATTN_MLP;
    nmt_net_add(p, &st, &m->slot[ATT_WA], "attn.Wa", C, mlp ? A : H);
    if (mlp) {
      nmt_net_add(p, &st, &m->slot[ATT_WQ], "attn.Wq", H, A);
      nmt_net_add(p, &st, &m->slot[ATT_V], "attn.v", 1, A);
    }
  }
  nmt_net_add(p, &st, &m->slot[DEC_WC], "dec.l0.Wc", C, 4 * H);
  for (int l = 0; l < c->dec_layers; l++) {
    snprintf(prefix, sizeof prefix, "dec.l%d", l);
    add_layer(m, p, &st, dec_slot(l), prefix, l ? deep_in : E);
  }
  nmt_net_add_output(p, &st, &m->slot[OUT_W], &m->slot[OUT_B], H, m->slot[TGT_EMB], c);
  return st;
}

typedef struct {
  nn_tensor *W, *b, *Wr, *peep;
} layer_w;

static layer_w layer(nn_graph *g, const nmt_net *m, nn_params *p, int base) {
  const int *s = m->slot + base;
  return (layer_w){nmt_net_param(g, p, s[LW_W]), nmt_net_param(g, p, s[LW_B]),
                   nmt_net_param(g, p, s[LW_R]), nmt_net_param(g, p, s[LW_PEEP])};
}

/* f^k for all rows from layer k-1's f and (dropped-out) h: Eq. 6's
 * W^k [Half(f^{k-1}), h^{k-1}] + b, or W^k h^{k-1} + b without F-F links. */
static nn_tensor *next_f(nn_graph *g, const nmt_net *m, const layer_w *w, nn_tensor *f, nn_tensor *h) {
  if (g->failed) return NULL;
  nn_tensor *x = m->cfg.opt.fast_forward ? nn_concat(g, nn_slice(g, f, 0, f->cols / 2), h) : h;
  return nn_linear(g, x, w->W, w->b);
}

/* One step of a layer: gates f_t + h·Wr (the product through rec at step t),
 * then the cell; *h, *c become the new state, written into h_out, c_out. */
static void layer_step(nn_graph *g, const layer_w *w, nn_recur *rec, int t, nn_tensor *f_t,
                       const float *mask, nn_tensor **h, nn_tensor **c, nn_tensor *h_out,
                       nn_tensor *c_out) {
  nn_tensor *gh = nn_recur_step(g, rec, t, *h);
  if (g->failed || !f_t || !h_out || !c_out) return;
  nn_lstm_peep_cell(g, f_t, gh, w->peep, *h, *c, mask, h_out, c_out);
  *h = h_out;
  *c = c_out;
}

/* The first decoder layer of Deep-Att, step by step: products of the
 * previous h (query h·Wq, gates h·Wr) and the context's c·Wc added into f. */
typedef struct {
  nn_recur q, c, r;
} att_rec;

/* Sequence outputs (T*B, H) and cell states of a layer. */
typedef struct {
  nn_tensor *Hs, *Cs;
} seq;

static seq new_seq(nn_graph *g, int rows, int H) {
  return (seq){nn_new(g, rows, H), nn_new(g, rows, H)};
}

/* A layer over all T steps of F (T*B, 4H) from the zero state, forward or
 * backward in time; the mask (T*B) carries the state through padding, so a
 * backward layer starts at each sentence's last token. Returns the outputs
 * (T*B, H); *last gets the final state (each sentence's whole-sentence h). */
static nn_tensor *run_layer(nn_graph *g, const layer_w *w, nn_tensor *F, const float *mask, int T,
                            bool backward, nn_tensor **last) {
  if (g->failed) return NULL;
  int B = F->rows / T, H = w->Wr->rows;
  seq out = new_seq(g, T * B, H);
  nn_tensor *h = nn_zeros(g, B, H), *c = nn_zeros(g, B, H);
  nn_recur rec;
  if (g->failed || !nn_recur_begin(g, &rec, w->Wr, NULL, T, B)) return NULL;
  for (int i = 0; i < T && !g->failed; i++) {
    int t = backward ? T - 1 - i : i;
    layer_step(g, w, &rec, t, nn_rows(g, F, t * B, B), mask ? mask + (size_t)t * B : NULL, &h,
               &c, nn_rows(g, out.Hs, t * B, B), nn_rows(g, out.Cs, t * B, B));
  }
  if (last) *last = h;
  return g->failed ? NULL : out.Hs;
}

/* Column col (0: a1, 1: a2) over the embedded source x (S*B, E): layer l runs
 * backward in time when l + col is odd. Returns the top layer's h after
 * dropout; *f_top its f, *last its final h. */
static nn_tensor *enc_column(nn_graph *g, const nmt_net *m, nn_params *p, int col, nn_tensor *x,
                             const float *mask, int S, nn_tensor **f_top, nn_tensor **last) {
  nn_tensor *f = NULL, *h = NULL;
  for (int l = 0; l < m->cfg.enc_layers && !g->failed; l++) {
    layer_w w = layer(g, m, p, enc_slot(col, l));
    f = l ? next_f(g, m, &w, f, h) : nn_linear(g, x, w.W, w.b);
    h = nn_dropout(g, run_layer(g, &w, f, mask, S, (l + col) % 2, last), m->cfg.dropout);
  }
  *f_top = f;
  return g->failed ? NULL : h;
}

/* The encoder over src (S*B ids, mask (S*B)): Deep-Att's memory (S*B, C),
 * W_p [h_a1, h_a2, f_a1, f_a2] (without F-F links [h_a1, h_a2]), or Deep-ED's
 * context (B, C), [h_a1 final, max h_a2, max f_a1, max f_a2] (without F-F
 * links the first two). */
static nn_tensor *encoder(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, int S,
                          int B, const float *mask) {
  const nmt_net_cfg *c = &m->cfg;
  nn_tensor *x = nn_embed(g, nmt_net_param(g, p, m->slot[SRC_EMB]), src, S * B);
  nn_tensor *f[2], *h[2], *last[2];
  for (int col = 0; col < 2; col++) h[col] = enc_column(g, m, p, col, x, mask, S, &f[col], &last[col]);
  if (g->failed) return NULL;
  if (attends(m)) {
    if (!c->opt.fast_forward) return nn_concat(g, h[0], h[1]);
    nn_tensor *e = nn_concat(g, nn_concat(g, h[0], h[1]), nn_concat(g, f[0], f[1]));
    return nn_matmul(g, e, false, nmt_net_param(g, p, m->slot[ANN_WP]), false);
  }
  nn_tensor *hmax = nn_concat(g, nn_dropout(g, last[0], c->dropout), nn_max_over_time(g, h[1], mask, S));
  if (!c->opt.fast_forward) return hmax;
  nn_tensor *fmax = nn_concat(g, nn_max_over_time(g, f[0], mask, S), nn_max_over_time(g, f[1], mask, S));
  return nn_concat(g, hmax, fmax);
}

/* Deep-Att's attention keys for the memory V: V·Wa. */
static nn_tensor *att_keys(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *V) {
  return nn_matmul(g, V, false, nmt_net_param(g, p, m->slot[ATT_WA]), false);
}

static bool att_begin(nn_graph *g, const nmt_net *m, nn_params *p, att_rec *r, nn_tensor *F, int T,
                      int B) {
  bool mlp = m->cfg.attn.score == NN_ATTN_MLP;
  return (!mlp || nn_recur_begin(g, &r->q, nmt_net_param(g, p, m->slot[ATT_WQ]), NULL, T, B)) &&
         nn_recur_begin(g, &r->c, nmt_net_param(g, p, m->slot[DEC_WC]), F, T, B) &&
         nn_recur_begin(g, &r->r, nmt_net_param(g, p, m->slot[dec_slot(0) + LW_R]), NULL, T, B);
}

/* Deep-Att's f_t of the first decoder layer: the context for the previous h
 * (mlp: vᵀtanh(h·Wq + k), general: h·k; masked softmax; Σ a·V over the
 * memories ctx->mem {V, K}), its c·Wc added into F's rows of step t. */
static nn_tensor *att_f(nn_graph *g, const nmt_net *m, nn_params *p, att_rec *r, int t,
                        nn_tensor *h, const nmt_dec_ctx *ctx, nn_tensor **align) {
  bool mlp = m->cfg.attn.score == NN_ATTN_MLP;
  nn_tensor *q = nmt_dec_scatter(g, ctx, mlp ? nn_recur_step(g, &r->q, t, h) : h);
  if (g->failed) return NULL;
  nn_tensor *score = mlp ? nn_attn_mlp(g, q, ctx->mem[1], nmt_net_param(g, p, m->slot[ATT_V]))
                         : nn_attn_dot(g, q, ctx->mem[1]);
  nn_tensor *a = nn_softmax(g, score, ctx->mask);
  nn_tensor *c = nmt_dec_gather(g, ctx, nn_attn_context(g, a, ctx->mem[0]));
  if (align) *align = nmt_dec_gather(g, ctx, a);
  return g->failed ? NULL : nn_recur_step(g, &r->c, t, c);
}

/* Deep-Att's first decoder layer over all T steps of F (T*B, 4H: y's part of f). */
static nn_tensor *att_layer(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *F,
                            const nmt_dec_ctx *ctx, const float *mask, int T) {
  int B = ctx->R, H = m->cfg.hidden;
  layer_w w = layer(g, m, p, dec_slot(0));
  seq out = new_seq(g, T * B, H);
  nn_tensor *h = nn_zeros(g, B, H), *c = nn_zeros(g, B, H);
  att_rec r;
  if (g->failed || !att_begin(g, m, p, &r, F, T, B)) return NULL;
  for (int t = 0; t < T && !g->failed; t++)
    layer_step(g, &w, &r.r, t, att_f(g, m, p, &r, t, h, ctx, NULL), mask + (size_t)t * B, &h, &c,
               nn_rows(g, out.Hs, t * B, B), nn_rows(g, out.Cs, t * B, B));
  return g->failed ? NULL : out.Hs;
}

/* The first decoder layer's f from y_{t-1}'s embeddings: W y + b, plus
 * Deep-ED's projected context cW (one row per row of Ey) when given. */
static nn_tensor *first_f(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *Ey, nn_tensor *cW) {
  layer_w w = layer(g, m, p, dec_slot(0));
  nn_tensor *F = nn_linear(g, Ey, w.W, w.b);
  return cW ? nn_add(g, F, cW) : F;
}

/* The summed loss over the batch's targets: the top decoder h of the rows
 * with a target through the output layer and nn_xent. */
static nn_tensor *loss_of(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *bt,
                          nn_tensor *top, long *ntokens) {
  const nmt_net_cfg *c = &m->cfg;
  nmt_targets tg = nmt_net_targets(g, m, bt->tgt_out, bt->T * bt->B);
  if (!tg.n) return NULL;
  nn_tensor *logits = nmt_net_logits(g, nn_embed(g, top, tg.rows, tg.n), nmt_net_param(g, p, m->slot[OUT_W]),
                                    nmt_net_param(g, p, m->slot[OUT_B]), nmt_net_tied_output(c));
  return g->failed ? NULL : nn_xent(g, logits, tg.ids, c->pad, c->label_smoothing, ntokens);
}

/* Training: the decoder layer by layer over all steps (only the first layer
 * depends on the attention, and only on its own previous state). */
static nn_tensor *forward(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *bt,
                          long *ntokens) {
  const nmt_net_cfg *c = &m->cfg;
  int B = bt->B, S = bt->S, T = bt->T;
  nmt_batch d; /* bt's arrays as the ops take them */
  int *sent = nn_alloc(g, sizeof(int) * (size_t)T * B); /* the sentence of each target row */
  if (!sent || !nmt_batch_upload(g, bt, &d)) return NULL;
  for (int i = 0; i < T * B; i++) sent[i] = i % B;
  nn_tensor *enc = encoder(g, m, p, d.src, S, B, d.src_mask);
  nn_tensor *Ey = nn_embed(g, nmt_net_param(g, p, m->slot[TGT_EMB]), d.tgt_in, T * B);
  nn_tensor *F, *Hs;
  if (attends(m)) {
    nn_tensor *mem[2] = {enc, att_keys(g, m, p, enc)};
    nmt_dec_ctx ctx = {mem, d.src_rows, d.src_len, S, B, NULL, B};
    F = first_f(g, m, p, Ey, NULL);
    Hs = g->failed ? NULL : att_layer(g, m, p, F, &ctx, d.tgt_mask, T);
  } else {
    nn_tensor *cW = nn_matmul(g, enc, false, nmt_net_param(g, p, m->slot[DEC_WC]), false);
    layer_w w0 = layer(g, m, p, dec_slot(0));
    F = first_f(g, m, p, Ey, nn_embed(g, cW, nn_ints(g, (size_t)T * B, sent), T * B));
    Hs = run_layer(g, &w0, F, d.tgt_mask, T, false, NULL);
  }
  nn_tensor *h = nn_dropout(g, Hs, c->dropout);
  for (int l = 1; l < c->dec_layers && !g->failed; l++) {
    layer_w w = layer(g, m, p, dec_slot(l));
    F = next_f(g, m, &w, F, h);
    h = nn_dropout(g, run_layer(g, &w, F, d.tgt_mask, T, false, NULL), c->dropout);
  }
  return g->failed ? NULL : loss_of(g, m, p, bt, h, ntokens);
}

/* Inference. Memories (Deep-Att): V, then the keys. State: h[0..L),
 * c[0..L) at zero, then (Deep-ED) the projected context cW (B, 4H). */
static int encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len,
                  int S, int B, const float *src_mask, nmt_enc_out *out) {
  const nmt_net_cfg *c = &m->cfg;
  int L = c->dec_layers;
  nn_tensor *enc = encoder(g, m, p, nn_ints(g, (size_t)S * B, src), S, B, src_mask);
  for (int i = 0; i < 2 * L; i++) out->state[i] = nn_zeros(g, B, c->hidden);
  out->nstate = 2 * L;
  out->nmem = 0;
  if (attends(m)) {
    out->mem[out->nmem++] = enc;
    out->mem[out->nmem++] = att_keys(g, m, p, enc);
  } else {
    out->state[out->nstate++] = nn_matmul(g, enc, false, nmt_net_param(g, p, m->slot[DEC_WC]), false);
  }
  return g->failed ? nmt_errcode() : NMT_OK;
}

/* One step over the live rows, the same ops as forward's. */
static nn_tensor *step(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev,
                       nn_tensor **state, const nmt_dec_ctx *ctx, nn_tensor **align) {
  const nmt_net_cfg *c = &m->cfg;
  int L = c->dec_layers, n = ctx->n, H = c->hidden;
  nn_tensor *Ey = nn_embed(g, nmt_net_param(g, p, m->slot[TGT_EMB]), prev, n);
  nn_tensor *F = first_f(g, m, p, Ey, attends(m) ? NULL : state[2 * L]), *h = NULL;
  if (align) *align = NULL;
  for (int l = 0; l < L && !g->failed; l++) {
    layer_w w = layer(g, m, p, dec_slot(l));
    nn_tensor *f = F = l ? next_f(g, m, &w, F, h) : F;
    att_rec r;
    if (!l && attends(m)) {
      if (!att_begin(g, m, p, &r, F, 1, n)) break;
      f = att_f(g, m, p, &r, 0, state[0], ctx, align);
    } else if (!nn_recur_begin(g, &r.r, w.Wr, NULL, 1, n)) {
      break;
    }
    layer_step(g, &w, &r.r, 0, f, NULL, &state[l], &state[L + l], nn_new(g, n, H), nn_new(g, n, H));
    h = nn_dropout(g, state[l], c->dropout);
  }
  return g->failed ? NULL : h;
}

const nmt_family nmt_family_deep_att = {"deep-att", layout, forward, encode, step, "mlp", NMT_CELL_LSTM, false};
const nmt_family nmt_family_deep_ed = {"deep-ed", layout, forward, encode, step, "none", NMT_CELL_LSTM, false};
