/* The RNNSearch family (Bahdanau et al. 2015 as paper 001 and Nematus build
 * it) with ATR, GRU or LSTM cells; docs/models.md has the equations.
 * Encoder: embeddings, a bidirectional first layer (H per direction,
 * concatenated) or the context-aware layer, further layers per enc_type,
 * residual (--skip) where a layer's input and output widths match: the
 * annotations Hs (S*B,F). Decoder: s_0 = tanh(mean(Hs)·W_init + b) for every
 * layer; layer 0 is the two-level cell s̃ = cell(y_{j-1}, s_{j-1}),
 * c_j = MLP attention of s̃ over Hs, s_j = cell(c_j, s̃); layer l >= 1 reads
 * [s^{l-1}_j; c_j]; deep output t_j = tanh(s_j·W_s + y_{j-1}·W_y + c_j·W_c + b)
 * of the embedding size, then out.W. */
#include "base/err.h"
#include "nn/cells/atr.h"
#include "nn/cells/gru.h"
#include "nn/cells/lstm.h"
#include "models/rnnsearch.h"
#include "models/encoder.h"
#include "models/parts.h"
#include "nn/ops.h"
#include <stdio.h>
#include <string.h>

/* m->slot indices. Each cell has three consecutive views Wx, Wh, b from
 * CELLS + 3*k, k one of the cell numbers below. */
enum {
  SRC_EMB, TGT_EMB,
  INIT_W, INIT_B,                     /* (F,H), (1,H) */
  ATT_WQ, ATT_WA, ATT_BA, ATT_V,      /* (H,A), (F,A), (1,A), (1,A) */
  DEEP_WS, DEEP_WY, DEEP_WC, DEEP_B,  /* (H,E), (E,E), (F,E), (1,E) */
  OUT_W, OUT_B,                       /* (E,Vt), (1,Vt) */
  CELLS
};
enum { ENC_FW = 0, ENC_BW = NMT_MAX_LAYERS, DEC = 2 * NMT_MAX_LAYERS, DEC_CTX = 3 * NMT_MAX_LAYERS };

static int gates(enum nmt_cell cell) { return cell == NMT_CELL_LSTM ? 4 : cell == NMT_CELL_GRU ? 3 : 1; }

/* Encoder layers [0, n) are bidirectional (the context-aware layer 0 aside). */

/* The output width of encoder layer l; the last one's is the annotation size F. */
static int enc_width(const nmt_net_cfg *c, int l) {
  return (l || !c->opt.context_aware) && l < nmt_enc_bi_layers(c) ? 2 * c->hidden : c->hidden;
}
static int enc_in(const nmt_net_cfg *c, int l) { return l ? enc_width(c, l - 1) : c->emb; }
static int mem_width(const nmt_net_cfg *c) { return enc_width(c, c->enc_layers - 1); }

static int check_cfg(const nmt_net_cfg *c) {
  /* --cond-gru and --local-attention are read only to say why they do not apply */
  if (nmt_net_cells(c, 1u << NMT_CELL_LSTM | 1u << NMT_CELL_GRU | 1u << NMT_CELL_ATR))
    return NMT_EUSAGE;
  if (c->opt.cond_gru)
    return nmt_fail(NMT_EUSAGE, "rnnsearch: --cond-gru is implied: the decoder is always the two-level "
                                "conditional cell (with --dec-cell gru, Nematus' cGRU)");
  if (c->no_attention) return nmt_fail(NMT_EUSAGE, "rnnsearch: the decoder needs attention (--attention mlp, not none)");
  if (c->attn.score != NN_ATTN_MLP)
    return nmt_fail(NMT_EUSAGE, "rnnsearch: attention is additive (Bahdanau): --attention mlp, not dot or general");
  if (c->attn.local) return nmt_fail(NMT_EUSAGE, "rnnsearch: --local-attention is Luong's; rnnsearch attends globally");
  if (c->enc_layers < 1 || c->enc_layers > NMT_MAX_LAYERS || c->dec_layers < 1 ||
      c->dec_layers > NMT_MAX_LAYERS || c->emb < 1 || c->hidden < 1 || c->attn_size < 1 ||
      c->src_vocab < 1 || c->tgt_vocab < 1 || c->enc_type < NMT_ENC_UNI || c->enc_type > NMT_ENC_BI_UNI)
    return nmt_fail(NMT_EUSAGE, "rnnsearch: bad configuration (layers 1..%d, sizes >= 1)", NMT_MAX_LAYERS);
  return NMT_OK;
}

/* Cell k's views "<name>.{Wx,Wh,b}": input `in`, state H. */
static void add_cell(nmt_net *m, nn_params *p, int *st, int k, enum nmt_cell cell, const char *name,
                     int in) {
  int H = m->cfg.hidden, G = gates(cell) * H;
  const char *part[3] = {"Wx", "Wh", "b"};
  int rows[3] = {in, H, 1};
  char full[64];
  for (int i = 0; i < 3; i++) {
    snprintf(full, sizeof full, "%s.%s", name, part[i]);
    nmt_net_add(p, st, &m->slot[CELLS + 3 * k + i], full, rows[i], G);
  }
  nn_params_mark_recurrent(p, m->slot[CELLS + 3 * k + 1]); /* --learn-rate-recurrent */
}

static int layout(nmt_net *m, nn_params *p) {
  const nmt_net_cfg *c = &m->cfg;
  int st = check_cfg(c);
  if (st) return st;
  int E = c->emb, H = c->hidden, F = mem_width(c), A = c->attn_size;
  char name[32];
  nmt_net_add_embeddings(p, &st, &m->slot[SRC_EMB], &m->slot[TGT_EMB], c);
  for (int l = 0; l < c->enc_layers; l++) {
    bool ca = !l && c->opt.context_aware, bi = !ca && l < nmt_enc_bi_layers(c);
    snprintf(name, sizeof name, "enc.l%d", l);
    add_cell(m, p, &st, ENC_FW + l, c->enc_cell, name, enc_in(c, l) + (ca ? H : 0));
    snprintf(name, sizeof name, "enc.l%dr", l);
    if (ca || bi) add_cell(m, p, &st, ENC_BW + l, c->enc_cell, name, enc_in(c, l));
  }
  nmt_net_add(p, &st, &m->slot[INIT_W], "dec.init.W", F, H);
  nmt_net_add(p, &st, &m->slot[INIT_B], "dec.init.b", 1, H);
  for (int l = 0; l < c->dec_layers; l++) {
    snprintf(name, sizeof name, "dec.l%d", l);
    add_cell(m, p, &st, DEC + l, c->dec_cell, name, l ? H + F : E);
  }
  add_cell(m, p, &st, DEC_CTX, c->dec_cell, "dec.l0ctx", F);
  nmt_net_add(p, &st, &m->slot[ATT_WQ], "attn.Wq", H, A);
  nmt_net_add(p, &st, &m->slot[ATT_WA], "attn.Wa", F, A);
  nmt_net_add(p, &st, &m->slot[ATT_BA], "attn.ba", 1, A);
  nmt_net_add(p, &st, &m->slot[ATT_V], "attn.v", 1, A);
  nmt_net_add(p, &st, &m->slot[DEEP_WS], "deep.Ws", H, E);
  nmt_net_add(p, &st, &m->slot[DEEP_WY], "deep.Wy", E, E);
  nmt_net_add(p, &st, &m->slot[DEEP_WC], "deep.Wc", F, E);
  nmt_net_add(p, &st, &m->slot[DEEP_B], "deep.b", 1, E);
  nmt_net_add_output(p, &st, &m->slot[OUT_W], &m->slot[OUT_B], E, m->slot[TGT_EMB], c);
  return st;
}

typedef struct {
  nn_tensor *Wx, *Wh, *b;
} cell_w;

static cell_w cell_of(nn_graph *g, const nmt_net *m, nn_params *p, int k) {
  const int *s = &m->slot[CELLS + 3 * k];
  return (cell_w){nmt_net_param(g, p, s[0]), nmt_net_param(g, p, s[1]), nmt_net_param(g, p, s[2])};
}

static nn_tensor *W(nn_graph *g, const nmt_net *m, nn_params *p, int slot) {
  return nmt_net_param(g, p, m->slot[slot]);
}

/* ---- encoder ---- */

/* One direction of a layer over X (T*B, in) → (T*B, H). */
static nn_tensor *enc_run(nn_graph *g, enum nmt_cell cell, cell_w w, nn_tensor *X, const float *mask,
                          int T) {
  if (g->failed) return NULL;
  if (cell == NMT_CELL_LSTM) return nn_lstm_layer(g, &(nn_lstm_w){w.Wx, w.Wh, w.b}, X, mask, T, NULL, NULL, NULL);
  if (cell == NMT_CELL_GRU) return nn_gru_layer(g, &(nn_gru_w){w.Wx, w.Wh, w.b}, X, mask, T, NULL);
  return nn_atr_layer(g, &(nn_atr_w){w.Wx, w.Wh, w.b}, X, mask, T, NULL);
}

/* A backward pass over X, its outputs back in source order. */
static nn_tensor *enc_backward(nn_graph *g, enum nmt_cell cell, cell_w w, nn_tensor *X,
                               const int *rev, const float *mask, int S) {
  if (g->failed) return NULL;
  return nn_embed(g, enc_run(g, cell, w, nn_embed(g, X, rev, X->rows), mask, S), rev, X->rows);
}

/* The annotations Hs (S*B, F); src and src_len in host memory, mask in the backend's. */
static nn_tensor *encoder(nn_graph *g, const nmt_net *m, nn_params *p, const int *src,
                          const int *src_len, int S, int B, const float *mask) {
  const nmt_net_cfg *c = &m->cfg;
  enum nmt_cell cell = c->enc_cell;
  int *host_rev = nmt_net_reversal(g, src_len, S, B);
  const int *rev = host_rev ? nn_ints(g, (size_t)S * B, host_rev) : NULL;
  nn_tensor *x = nn_dropout(g, nn_embed(g, W(g, m, p, SRC_EMB), nn_ints(g, (size_t)S * B, src), S * B), c->dropout);
  for (int l = 0; l < c->enc_layers && !g->failed; l++) {
    nn_tensor *in = l ? nn_dropout(g, x, c->dropout) : x, *out;
    cell_w fw = cell_of(g, m, p, ENC_FW + l), bw = cell_of(g, m, p, ENC_BW + l);
    if (!l && c->opt.context_aware) /* a backward pass, then a forward pass over [x_i; h←_i] */
      out = enc_run(g, cell, fw, nn_concat(g, in, enc_backward(g, cell, bw, in, rev, mask, S)), mask, S);
    else if (l < nmt_enc_bi_layers(c))
      out = nn_concat(g, enc_run(g, cell, fw, in, mask, S), enc_backward(g, cell, bw, in, rev, mask, S));
    else
      out = enc_run(g, cell, fw, in, mask, S);
    x = c->opt.skip && l && out && out->cols == x->cols ? nn_add(g, out, x) : out;
  }
  return g->failed ? NULL : x;
}

/* s_0 = tanh(mean_s Hs·W_init + b): the mean as attention with weights 1/len
 * (src_len in host memory). */
static nn_tensor *init_state(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *Hs,
                             const int *src_len, int S, int B) {
  float *w = nn_alloc(g, sizeof(float) * (size_t)B * S);
  if (!w) return NULL;
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++) w[b * S + s] = s < src_len[b] ? 1.0f / src_len[b] : 0;
  nn_tensor *mean = nn_attn_context(g, nn_input(g, B, S, w), Hs);
  return nn_tanh(g, nn_linear(g, mean, W(g, m, p, INIT_W), W(g, m, p, INIT_B)));
}

/* ---- decoder ---- */

typedef struct {
  enum nmt_cell cell;
  int L;
  cell_w dec[NMT_MAX_LAYERS], ctx; /* layer l; layer 0's second cell */
  nn_tensor *Wq, *v;
  nn_tensor *Ws, *Wy, *Wc, *bd;   /* deep output */
  float dropout;
  bool skip;
} dec_w;

static dec_w dec_weights(nn_graph *g, const nmt_net *m, nn_params *p) {
  const nmt_net_cfg *c = &m->cfg;
  dec_w w = {.cell = c->dec_cell, .L = c->dec_layers, .ctx = cell_of(g, m, p, DEC_CTX),
             .Wq = W(g, m, p, ATT_WQ), .v = W(g, m, p, ATT_V), .Ws = W(g, m, p, DEEP_WS),
             .Wy = W(g, m, p, DEEP_WY), .Wc = W(g, m, p, DEEP_WC), .bd = W(g, m, p, DEEP_B),
             .dropout = c->dropout, .skip = c->opt.skip};
  for (int l = 0; l < w.L; l++) w.dec[l] = cell_of(g, m, p, DEC + l);
  return w;
}

/* Training's per-step products whose weight gradients are one GEMM per batch:
 * layer l's recurrent Wh (h), layer 0's query (q) and second cell (x2, h2), the
 * input side of layers >= 1 (x). NULL at inference: plain GEMMs. */
typedef struct {
  nn_recur h[NMT_MAX_LAYERS], x[NMT_MAX_LAYERS], q, x2, h2;
} dec_rec;

/* A cell's bias joins its input side, or for ATR its history side (nn/cells/atr.h). */
static nn_tensor *in_bias(enum nmt_cell cell, cell_w w) { return cell == NMT_CELL_ATR ? NULL : w.b; }
static nn_tensor *hist_bias(enum nmt_cell cell, cell_w w) { return cell == NMT_CELL_ATR ? w.b : NULL; }

/* x·W (+ b) at step t: into the training record r (whose rows start at b), or a GEMM. */
static nn_tensor *proj(nn_graph *g, nn_recur *r, int t, nn_tensor *x, nn_tensor *Wt, nn_tensor *b) {
  if (r) return nn_recur_step(g, r, t, x);
  return b ? nn_linear(g, x, Wt, b) : nn_matmul(g, x, false, Wt, false);
}

/* One step of the cell: gx the input side with its bias, gh the recurrent
 * side; *h (and *c for the LSTM) replaced by the new state. */
static void cell_step(nn_graph *g, enum nmt_cell cell, nn_tensor *gx, nn_tensor *gh, nn_tensor **h,
                      nn_tensor **c) {
  if (g->failed) return;
  nn_tensor *hn = nn_new(g, (*h)->rows, (*h)->cols);
  if (!hn) return;
  if (cell == NMT_CELL_LSTM) {
    nn_tensor *cn = nn_new(g, hn->rows, hn->cols);
    if (!cn) return;
    nn_lstm_cell(g, gx, gh, *h, *c, NULL, hn, cn);
    *c = cn;
  } else if (cell == NMT_CELL_GRU) {
    nn_gru_cell(g, gx, gh, *h, NULL, hn);
  } else {
    nn_atr_cell(g, gx, gh, *h, NULL, hn);
  }
  *h = hn;
}

/* The attention of one step: keys K (S*R,A), annotations Hs (S*R,F), mask
 * (R,S); at inference on a row subset (ctx) the query is scattered to the R
 * rows and the context gathered back. */
typedef struct {
  nn_tensor *K, *Hs;
  const float *mask;
  const nmt_dec_ctx *ctx;
  nn_tensor **align;
} attn_in;

static nn_tensor *attend(nn_graph *g, const dec_w *w, nn_tensor *q, const attn_in *at) {
  if (at->ctx) q = nmt_dec_scatter(g, at->ctx, q);
  nn_tensor *a = nn_softmax(g, nn_attn_mlp(g, q, at->K, w->v), at->mask); /* (R,S) */
  nn_tensor *cx = nn_attn_context(g, a, at->Hs);                          /* (R,F) */
  if (at->align) *at->align = at->ctx ? nmt_dec_gather(g, at->ctx, a) : a;
  return at->ctx ? nmt_dec_gather(g, at->ctx, cx) : cx;
}

/* One decoder step from gx1 (B,G), layer 0's input side for y_{j-1}; h[l],
 * c[l] replaced by the new states. Returns the top layer's output, *cx the context. */
static nn_tensor *dec_step(nn_graph *g, const dec_w *w, nn_tensor *gx1, nn_tensor **h, nn_tensor **c,
                           dec_rec *rec, int t, const attn_in *at, nn_tensor **cx) {
  enum nmt_cell cl = w->cell;
  nn_tensor *gh1 = proj(g, rec ? &rec->h[0] : NULL, t, h[0], w->dec[0].Wh, hist_bias(cl, w->dec[0]));
  cell_step(g, cl, gx1, gh1, &h[0], &c[0]);
  nn_tensor *st = h[0]; /* s̃_j */
  *cx = g->failed ? NULL : attend(g, w, proj(g, rec ? &rec->q : NULL, t, st, w->Wq, NULL), at);
  if (g->failed) return NULL;
  nn_tensor *gx2 = proj(g, rec ? &rec->x2 : NULL, t, *cx, w->ctx.Wx, in_bias(cl, w->ctx));
  cell_step(g, cl, gx2, proj(g, rec ? &rec->h2 : NULL, t, st, w->ctx.Wh, hist_bias(cl, w->ctx)), &h[0], &c[0]);
  nn_tensor *out = h[0];
  for (int l = 1; l < w->L && !g->failed; l++) {
    nn_tensor *in = nn_concat(g, nn_dropout(g, out, w->dropout), *cx);
    nn_tensor *gx = proj(g, rec ? &rec->x[l] : NULL, t, in, w->dec[l].Wx, in_bias(cl, w->dec[l]));
    nn_tensor *gh = proj(g, rec ? &rec->h[l] : NULL, t, h[l], w->dec[l].Wh, hist_bias(cl, w->dec[l]));
    cell_step(g, cl, gx, gh, &h[l], &c[l]);
    out = w->skip ? nn_add(g, h[l], out) : h[l];
  }
  return g->failed ? NULL : out;
}

/* t = tanh(s·W_s + y·W_y + c·W_c + b), dropped out: the output layer's input. */
static nn_tensor *deep_output(nn_graph *g, const dec_w *w, nn_tensor *s, nn_tensor *y, nn_tensor *cx) {
  nn_tensor *t = nn_add(g, nn_add(g, nn_linear(g, s, w->Ws, w->bd), nn_matmul(g, y, false, w->Wy, false)),
                        nn_matmul(g, cx, false, w->Wc, false));
  return nn_dropout(g, nn_tanh(g, t), w->dropout);
}

/* Layer l's state from s_0: h = s_0 and, for the LSTM, a zero cell. */
static void start_states(nn_graph *g, const nmt_net *m, nn_tensor *s0, nn_tensor **h, nn_tensor **c) {
  for (int l = 0; l < m->cfg.dec_layers; l++) {
    h[l] = s0;
    c[l] = m->cfg.dec_cell == NMT_CELL_LSTM ? nn_zeros(g, s0->rows, s0->cols) : NULL;
  }
}

/* Records for T steps of B rows; a record's rows start at the bias b when given. */
static void rec_begin(nn_graph *g, nn_recur *r, nn_tensor *Wt, nn_tensor *b, int T, int B) {
  nn_tensor *Y = b ? nn_add_bias(g, nn_zeros(g, T * B, Wt->cols), b) : NULL;
  if (!g->failed) nn_recur_begin(g, r, Wt, Y, T, B);
}

static nn_tensor *forward(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *bt,
                          long *ntokens) {
  const nmt_net_cfg *c = &m->cfg;
  int B = bt->B, S = bt->S, T = bt->T;
  nmt_batch d; /* bt's arrays as the ops take them */
  if (!nmt_batch_upload(g, bt, &d)) return NULL;
  nn_tensor *Hs = encoder(g, m, p, bt->src, bt->src_len, S, B, d.src_mask);
  if (!Hs) return NULL;
  nn_tensor *h[NMT_MAX_LAYERS], *cs[NMT_MAX_LAYERS];
  nn_tensor *s0 = init_state(g, m, p, Hs, bt->src_len, S, B);
  if (!s0) return NULL;
  start_states(g, m, s0, h, cs);
  attn_in at = {nn_linear(g, Hs, W(g, m, p, ATT_WA), W(g, m, p, ATT_BA)), Hs, d.src_rows, NULL, NULL};
  dec_w w = dec_weights(g, m, p);
  /* Layer 0's input side for all steps in one GEMM. */
  nn_tensor *Ey = nn_dropout(g, nn_embed(g, W(g, m, p, TGT_EMB), d.tgt_in, T * B), c->dropout);
  nn_tensor *G1 = proj(g, NULL, 0, Ey, w.dec[0].Wx, in_bias(w.cell, w.dec[0]));
  dec_rec rec;
  for (int l = 0; l < w.L; l++) {
    rec_begin(g, &rec.h[l], w.dec[l].Wh, hist_bias(w.cell, w.dec[l]), T, B);
    if (l) rec_begin(g, &rec.x[l], w.dec[l].Wx, in_bias(w.cell, w.dec[l]), T, B);
  }
  rec_begin(g, &rec.q, w.Wq, NULL, T, B);
  rec_begin(g, &rec.x2, w.ctx.Wx, in_bias(w.cell, w.ctx), T, B);
  rec_begin(g, &rec.h2, w.ctx.Wh, hist_bias(w.cell, w.ctx), T, B);
  nn_tensor **outs = nn_alloc(g, sizeof *outs * 2 * (size_t)T), **ctxs = outs + T;
  for (int t = 0; t < T && !g->failed; t++)
    outs[t] = dec_step(g, &w, nn_rows(g, G1, t * B, B), h, cs, &rec, t, &at, &ctxs[t]);
  /* The deep output and the output layer only on the rows with a target. */
  nmt_targets tg = nmt_net_targets(g, m, bt->tgt_out, T * B);
  if (!tg.n) return NULL;
  int n = tg.n;
  const int *rows = tg.rows, *tgt = tg.ids;
  nn_tensor *t = deep_output(g, &w, nn_embed(g, nn_stack(g, outs, T), rows, n), nn_embed(g, Ey, rows, n),
                             nn_embed(g, nn_stack(g, ctxs, T), rows, n));
  nn_tensor *logits = nmt_net_logits(g, t, W(g, m, p, OUT_W), W(g, m, p, OUT_B), nmt_net_tied_output(c));
  return g->failed ? NULL : nn_xent(g, logits, tgt, c->pad, c->label_smoothing, ntokens);
}

/* Inference. Memories: Hs, the attention keys. State: h of each layer, then
 * (LSTM) c of each layer. */
static int encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len,
                  int S, int B, const float *src_mask, nmt_enc_out *out) {
  int L = m->cfg.dec_layers;
  nn_tensor *Hs = encoder(g, m, p, src, src_len, S, B, src_mask);
  nn_tensor *s0 = Hs ? init_state(g, m, p, Hs, src_len, S, B) : NULL;
  nn_tensor *K = s0 ? nn_linear(g, Hs, W(g, m, p, ATT_WA), W(g, m, p, ATT_BA)) : NULL;
  if (!K) return nmt_errcode();
  start_states(g, m, s0, out->state, out->state + L);
  out->nstate = m->cfg.dec_cell == NMT_CELL_LSTM ? 2 * L : L;
  out->nmem = 2;
  out->mem[0] = Hs;
  out->mem[1] = K;
  return g->failed ? nmt_errcode() : NMT_OK;
}

static nn_tensor *step(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev,
                       nn_tensor **state, const nmt_dec_ctx *ctx, nn_tensor **align) {
  int L = m->cfg.dec_layers;
  bool lstm = m->cfg.dec_cell == NMT_CELL_LSTM;
  dec_w w = dec_weights(g, m, p);
  nn_tensor *y = nn_embed(g, W(g, m, p, TGT_EMB), prev, ctx->n);
  nn_tensor *gx1 = proj(g, NULL, 0, y, w.dec[0].Wx, in_bias(w.cell, w.dec[0]));
  nn_tensor *no_c[NMT_MAX_LAYERS] = {0}, *cx;
  attn_in at = {ctx->mem[1], ctx->mem[0], ctx->mask, ctx, align};
  nn_tensor *top = g->failed ? NULL : dec_step(g, &w, gx1, state, lstm ? state + L : no_c, NULL, 0, &at, &cx);
  return top ? deep_output(g, &w, top, y, cx) : NULL;
}

const nmt_family nmt_family_rnnsearch = {"rnnsearch", layout, forward, encode, step, "mlp", NMT_CELL_LSTM, false};
