/* The RHN family (Parmar & Devi, paper 003): RHN layers (nn/cells/rhn.h) of
 * recurrence depth L in Luong's frame, as the paper builds on Luong et al.
 * 2015. Encoder: stacked RHN layers over the embeddings, unidirectional,
 * bidirectional (H/2 per direction, concatenated) or bi-unidirectional, as the
 * Luong family. Decoder: stacked RHN layers, layer l starting from encoder
 * layer l's final state (zeros beyond the encoder's depth); micro-step 1 of
 * layer 0 reads y_{t-1} and, with input feeding, h̃_{t-1} beside s in R_1;
 * Luong attention (dot, general, MLP, local-p) on the top state gives h̃,
 * then out.W. Dropout on embeddings, between layers and on h̃.
 *
 * Reconstructor (Tu et al. 2017; training only, recon_beta > 0): one RHN
 * layer of the decoder's depth regenerates the source x_1..x_n from the
 * decoder's top states (T*B,H), attending over them with attention weights of
 * its own (rec.attn.*) and input feeding; it reads <s> x_1 .. x_{n-1} through
 * the source embeddings and predicts through rec.out.*. The loss is
 * L_d + β·L_r, *ntokens counting L_d's tokens only. Encode and step ignore the
 * rec.* weights. */
#include "models/rhn_recon.h"
#include "models/encoder.h"
#include "models/parts.h"
#include "base/err.h"
#include "nn/ops.h"
#include "nn/cells/rhn.h"
#include <stdio.h>
#include <string.h>

enum { MAX_LAYERS = 4, LAYER_SLOTS = 1 + 2 * NN_RHN_MAX_DEPTH, ATTN_SLOTS = 6 };
/* m->slot indices. A layer's block: W, then R_1..R_L, then b_1..b_L at
 * 1 + NN_RHN_MAX_DEPTH; an attention block follows nn_attn_w's order. */
enum {
  SRC_EMB, TGT_EMB, OUT_W, OUT_B, REC_OUT_W, REC_OUT_B,
  ATTN,                                   /* Wa, Wq, v, Wp, vp, Wc */
  REC_ATTN = ATTN + ATTN_SLOTS,
  ENC = REC_ATTN + ATTN_SLOTS,            /* layer l, or its forward direction */
  ENC_R = ENC + MAX_LAYERS * LAYER_SLOTS, /* backward directions */
  DEC = ENC_R + MAX_LAYERS * LAYER_SLOTS,
  REC = DEC + MAX_LAYERS * LAYER_SLOTS,   /* the reconstructor's layer */
  NSLOTS = REC + LAYER_SLOTS
};
_Static_assert((int)NSLOTS <= (int)NMT_NET_MAX_VIEWS, "rhn: more views than nmt_net holds");

/* Encoder layers [0, n) run in both directions. */
static bool reconstructs(const nmt_net_cfg *c) { return c->opt.recon_beta > 0; }

static int check_cfg(const nmt_net_cfg *c) {
  if (nmt_net_cells(c, 1u << NMT_CELL_RHN))
    return NMT_EUSAGE;
  if (c->enc_cell_depth < 1 || c->enc_cell_depth > NN_RHN_MAX_DEPTH || c->dec_cell_depth < 1 ||
      c->dec_cell_depth > NN_RHN_MAX_DEPTH)
    return nmt_fail(NMT_EUSAGE, "rhn: --enc-cell-depth and --dec-cell-depth must be 1..%d (got %d, %d)",
                    NN_RHN_MAX_DEPTH, c->enc_cell_depth, c->dec_cell_depth);
  if (c->opt.recon_beta < 0) return nmt_fail(NMT_EUSAGE, "rhn: --reconstructor-beta must be >= 0");
  if (reconstructs(c) && c->no_attention)
    return nmt_fail(NMT_EUSAGE, "rhn: --reconstructor-beta needs attention (not --attention none)");
  bool attn_sized = c->no_attention || !(c->attn.score == NN_ATTN_MLP || c->attn.local);
  if (c->enc_layers < 1 || c->enc_layers > MAX_LAYERS || c->dec_layers < 1 ||
      c->dec_layers > MAX_LAYERS || c->emb < 1 || c->hidden < 1 || c->src_vocab < 1 ||
      c->tgt_vocab < 1 || !(attn_sized || c->attn_size >= 1) || c->enc_type < NMT_ENC_UNI ||
      c->enc_type > NMT_ENC_BI_UNI || (c->enc_type != NMT_ENC_UNI && c->hidden % 2))
    return nmt_fail(NMT_EUSAGE, "rhn: bad configuration (layers 1..%d, sizes >= 1, an even hidden "
                                "size with a bidirectional encoder)", MAX_LAYERS);
  return NMT_OK;
}

/* An RHN layer's views "<prefix>.{W,R<l>,b<l>}" into slot[]: input `in`,
 * micro-step 1's recurrent input `rec`, H units. */
static void add_layer(const nmt_net_cfg *c, nn_params *p, int *st, int *slot, const char *prefix,
                      int in, int rec, int H, int depth) {
  int G = nn_rhn_gates(c->opt.rhn_coupled) * H;
  char name[64];
  snprintf(name, sizeof name, "%s.W", prefix);
  nmt_net_add(p, st, &slot[0], name, in, G);
  for (int l = 0; l < depth; l++) {
    snprintf(name, sizeof name, "%s.R%d", prefix, l + 1);
    nmt_net_add(p, st, &slot[1 + l], name, l ? H : rec, G);
    nn_params_mark_recurrent(p, slot[1 + l]); /* --learn-rate-recurrent */
    snprintf(name, sizeof name, "%s.b%d", prefix, l + 1);
    nmt_net_add(p, st, &slot[1 + NN_RHN_MAX_DEPTH + l], name, 1, G);
  }
}

static nn_rhn_w layer_w(nn_graph *g, nn_params *p, const nmt_net *m, int base, int depth) {
  nn_rhn_w w = {.W = nmt_net_param(g, p, m->slot[base]), .depth = depth, .coupled = m->cfg.opt.rhn_coupled};
  for (int l = 0; l < depth; l++) {
    w.R[l] = nmt_net_param(g, p, m->slot[base + 1 + l]);
    w.b[l] = nmt_net_param(g, p, m->slot[base + 1 + NN_RHN_MAX_DEPTH + l]);
  }
  return w;
}

/* Luong's attention weights "<prefix>.*" for queries and memories of H. */
static void add_attention(const nmt_net_cfg *c, nn_params *p, int *st, int *slot, const char *prefix) {
  int H = c->hidden, A = c->attn_size;
  const struct { const char *name; int rows, cols; bool used; } views[ATTN_SLOTS] = {
      {"Wa", H, c->attn.score == NN_ATTN_MLP ? A : H, c->attn.score != NN_ATTN_DOT},
      {"Wq", H, A, c->attn.score == NN_ATTN_MLP}, {"v", 1, A, c->attn.score == NN_ATTN_MLP},
      {"Wp", H, A, c->attn.local}, {"vp", A, 1, c->attn.local}, {"Wc", 2 * H, H, true}};
  char name[64];
  for (int i = 0; i < ATTN_SLOTS; i++) {
    if (!views[i].used) continue;
    snprintf(name, sizeof name, "%s.%s", prefix, views[i].name);
    nmt_net_add(p, st, &slot[i], name, views[i].rows, views[i].cols);
  }
}

static nn_attn_w attn_w(nn_graph *g, nn_params *p, const nmt_net *m, int base) {
  nn_tensor *t[ATTN_SLOTS];
  for (int i = 0; i < ATTN_SLOTS; i++) t[i] = nmt_net_param(g, p, m->slot[base + i]);
  return (nn_attn_w){t[0], t[1], t[2], t[3], t[4], t[5]};
}

static int layout(nmt_net *m, nn_params *p) {
  nmt_net_cfg *c = &m->cfg;
  int st = check_cfg(c);
  if (st) return st;
  c->input_feed = c->input_feed && !c->no_attention;
  int E = c->emb, H = c->hidden, nbi = nmt_enc_bi_layers(c);
  char prefix[32];
  nmt_net_add_embeddings(p, &st, &m->slot[SRC_EMB], &m->slot[TGT_EMB], c);
  for (int l = 0; l < c->enc_layers; l++) {
    int h = l < nbi ? H / 2 : H, in = !l ? E : l < nbi ? H / 2 : H;
    snprintf(prefix, sizeof prefix, "enc.l%d", l);
    add_layer(c, p, &st, &m->slot[ENC + l * LAYER_SLOTS], prefix, in, h, h, c->enc_cell_depth);
    snprintf(prefix, sizeof prefix, "enc.l%dr", l);
    if (l < nbi)
      add_layer(c, p, &st, &m->slot[ENC_R + l * LAYER_SLOTS], prefix, in, h, h, c->enc_cell_depth);
  }
  for (int l = 0; l < c->dec_layers; l++) {
    snprintf(prefix, sizeof prefix, "dec.l%d", l);
    add_layer(c, p, &st, &m->slot[DEC + l * LAYER_SLOTS], prefix, l ? H : E,
              !l && c->input_feed ? 2 * H : H, H, c->dec_cell_depth);
  }
  if (!c->no_attention) add_attention(c, p, &st, &m->slot[ATTN], "attn");
  nmt_net_add_output(p, &st, &m->slot[OUT_W], &m->slot[OUT_B], H, m->slot[TGT_EMB], c);
  if (reconstructs(c)) {
    add_layer(c, p, &st, &m->slot[REC], "rec.l0", E, c->input_feed ? 2 * H : H, H, c->dec_cell_depth);
    add_attention(c, p, &st, &m->slot[REC_ATTN], "rec.attn");
    nmt_net_add(p, &st, &m->slot[REC_OUT_W], "rec.out.W", H, c->src_vocab);
    nmt_net_add(p, &st, &m->slot[REC_OUT_B], "rec.out.b", 1, c->src_vocab);
  }
  return st;
}

/* Rows ids[0..n) of the embedding table `slot`, with dropout. */
static nn_tensor *embed(nn_graph *g, nn_params *p, const nmt_net *m, int slot, const int *ids, int n) {
  return nn_dropout(g, nn_embed(g, nmt_net_param(g, p, m->slot[slot]), ids, n), m->cfg.dropout);
}

/* One direction of encoder layer l: its states (S*B,H'), the final ones into fin[0]. */
static nn_tensor *enc_layer(nn_graph *g, const nmt_net *m, nn_params *p, int l, int dir, nn_tensor *X,
                            const float *mask, int S, nn_tensor **fin) {
  nn_rhn_w w = layer_w(g, p, m, (dir ? ENC_R : ENC) + l * LAYER_SLOTS, m->cfg.enc_cell_depth);
  nn_tensor *Ss = nn_rhn_layer(g, &w, X, mask, S, NULL);
  int B = X->rows / S;
  fin[0] = Ss ? nn_rows(g, Ss, (S - 1) * B, B) : NULL;
  return Ss;
}

/* The encoder: top states (S*B,H); layer l's final state (B,H) into fin[l]. */
static nn_tensor *encoder(nn_graph *g, const nmt_net *m, nn_params *p, const int *src,
                          const int *src_len, int S, int B, const float *mask, nn_tensor **fin) {
  nn_tensor **fins[NMT_ENC_MAX_FINALS] = {fin};
  return nmt_encode_stack(g, m, p, nmt_net_param(g, p, m->slot[SRC_EMB]), src, src_len, S, B, mask, enc_layer, 1,
                         fins);
}

/* The decoder's initial states s[l] (B,H). */
static void init_state(nn_graph *g, const nmt_net *m, nn_tensor **fin, nn_tensor **s, int B) {
  for (int l = 0; l < m->cfg.dec_layers; l++)
    s[l] = l < m->cfg.enc_layers ? fin[l] : nn_zeros(g, B, m->cfg.hidden);
}

/* One decoder step over the layers: z1 layer 0's input projection (NULL when
 * rec[0]'s sequence holds it), feed h̃_{t-1} or NULL, mask (B) or NULL; s[l]
 * replaced by the new states; with rec (training) the recurrent products go
 * through rec[l] at step t. Returns the top state. */
static nn_tensor *dec_step(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *z1,
                           nn_tensor *feed, const float *mask, nn_tensor **s, nn_rhn_recur *rec,
                           int t) {
  const nmt_net_cfg *c = &m->cfg;
  for (int l = 0; l < c->dec_layers && !g->failed; l++) {
    nn_rhn_w w = layer_w(g, p, m, DEC + l * LAYER_SLOTS, c->dec_cell_depth);
    nn_tensor *zl = l ? nn_linear(g, nn_dropout(g, s[l - 1], c->dropout), w.W, w.b[0]) : z1;
    nn_tensor *r1 = !l && feed ? nn_concat(g, feed, s[0]) : s[l];
    s[l] = nn_rhn_step(g, &w, zl, r1, s[l], mask, rec ? &rec[l] : NULL, t, NULL);
  }
  return g->failed ? NULL : s[c->dec_layers - 1];
}

/* The summed loss of outs[0..T) (B,F each) against targets (T*B) through the
 * output layer W, b (tied: W is the embedding, nmt_net_logits), on the rows
 * with a target only (padding is ~12%). */
static nn_tensor *output_loss(nn_graph *g, const nmt_net *m, nn_tensor **outs, int T, int B,
                              const int *targets, nn_tensor *W, nn_tensor *b, bool tied, long *ntokens) {
  const nmt_net_cfg *c = &m->cfg;
  nmt_targets tg = nmt_net_targets(g, m, targets, T * B);
  if (!tg.n) return NULL;
  nn_tensor *X = nn_dropout(g, nn_embed(g, nn_stack(g, outs, T), tg.rows, tg.n), c->dropout); /* (n,F) */
  return nn_xent(g, nmt_net_logits(g, X, W, b, tied), tg.ids, c->pad, c->label_smoothing, ntokens);
}

/* Tu et al.'s reconstructor over the decoder's top states D (T*B,H): the
 * summed loss of regenerating the source. bt in host memory, d its copy for the ops. */
static nn_tensor *reconstruct(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *bt,
                              const nmt_batch *d, nn_tensor *D) {
  const nmt_net_cfg *c = &m->cfg;
  int B = bt->B, S = bt->S, H = c->hidden;
  int *in = nn_alloc(g, sizeof(int) * (size_t)S * B); /* <s> (the decoder's first input) x_1 .. x_{S-1} */
  nn_tensor **outs = nn_alloc(g, sizeof *outs * (size_t)S);
  if (g->failed) return NULL;
  for (int i = 0; i < S * B; i++) in[i] = i < B ? bt->tgt_in[i] : bt->src[i - B];
  nn_rhn_w w = layer_w(g, p, m, REC, c->dec_cell_depth);
  nn_tensor *Z1 = nn_linear(g, embed(g, p, m, SRC_EMB, nn_ints(g, (size_t)S * B, in), S * B), w.W, w.b[0]);
  nn_attn_w aw = attn_w(g, p, m, REC_ATTN);
  nn_tensor *K = nn_attn_keys(g, &c->attn, &aw, D);
  nn_tensor *s = nn_zeros(g, B, H), *feed = c->input_feed ? nn_zeros(g, B, H) : NULL;
  nn_rhn_recur rec;
  nn_recur wc;
  if (!Z1 || !nn_rhn_recur_begin(g, &rec, &w, Z1, S, B) || !nn_attn_steps_begin(g, &aw, &wc, S, B))
    return NULL;
  for (int i = 0; i < S && !g->failed; i++) {
    s = nn_rhn_step(g, &w, NULL, feed ? nn_concat(g, feed, s) : s, s, d->src_mask + (size_t)i * B,
                    &rec, i, NULL);
    aw.t = i;
    outs[i] = nn_attn_step(g, &c->attn, &aw, s, K, D, d->tgt_rows, d->tgt_len, NULL);
    feed = c->input_feed ? outs[i] : NULL;
  }
  long nsrc;
  return g->failed ? NULL : output_loss(g, m, outs, S, B, bt->src, nmt_net_param(g, p, m->slot[REC_OUT_W]),
                                        nmt_net_param(g, p, m->slot[REC_OUT_B]), false, &nsrc);
}

static nn_tensor *forward(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *bt,
                          long *ntokens) {
  const nmt_net_cfg *c = &m->cfg;
  int B = bt->B, S = bt->S, T = bt->T, H = c->hidden;
  nn_tensor *fin[MAX_LAYERS], *s[MAX_LAYERS];
  nmt_batch d; /* bt's arrays as the ops take them */
  if (!nmt_batch_upload(g, bt, &d)) return NULL;
  nn_tensor *Hs = encoder(g, m, p, bt->src, bt->src_len, S, B, d.src_mask, fin); /* (S*B,H) */
  if (!Hs) return NULL;
  init_state(g, m, fin, s, B);
  nn_attn_w aw = attn_w(g, p, m, ATTN);
  nn_tensor *K = c->no_attention ? NULL : nn_attn_keys(g, &c->attn, &aw, Hs);
  /* Layer 0's input projection for all steps at once. */
  nn_rhn_w w0 = layer_w(g, p, m, DEC, c->dec_cell_depth);
  nn_tensor *Z1 = nn_linear(g, embed(g, p, m, TGT_EMB, d.tgt_in, T * B), w0.W, w0.b[0]); /* (T*B,G·H) */
  nn_tensor **outs = nn_alloc(g, sizeof *outs * (size_t)T);
  nn_tensor **tops = nn_alloc(g, sizeof *tops * (size_t)T); /* the top states, for the reconstructor */
  nn_tensor *feed = c->input_feed ? nn_zeros(g, B, H) : NULL;
  nn_rhn_recur rec[MAX_LAYERS];
  nn_recur wc;
  for (int l = 0; l < c->dec_layers && Z1; l++) {
    nn_rhn_w w = layer_w(g, p, m, DEC + l * LAYER_SLOTS, c->dec_cell_depth);
    nn_rhn_recur_begin(g, &rec[l], &w, l ? NULL : Z1, T, B);
  }
  if (!c->no_attention) nn_attn_steps_begin(g, &aw, &wc, T, B);
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *top = tops[t] = dec_step(g, m, p, NULL, feed, d.tgt_mask + (size_t)t * B, s, rec, t);
    aw.t = t;
    outs[t] = c->no_attention ? top : nn_attn_step(g, &c->attn, &aw, top, K, Hs, d.src_rows, d.src_len, NULL);
    feed = c->input_feed ? outs[t] : NULL;
  }
  if (g->failed) return NULL;
  nn_tensor *loss = output_loss(g, m, outs, T, B, bt->tgt_out, nmt_net_param(g, p, m->slot[OUT_W]),
                                nmt_net_param(g, p, m->slot[OUT_B]), nmt_net_tied_output(c), ntokens);
  if (reconstructs(c)) {
    nn_tensor *Lr = reconstruct(g, m, p, bt, &d, nn_stack(g, tops, T));
    loss = nn_add(g, loss, nn_scale(g, Lr, c->opt.recon_beta));
  }
  return g->failed ? NULL : loss;
}

/* Inference. Memories: Hs, then the attention keys unless the score is dot.
 * State: s[0..L), then h̃ with input feeding. */
static int encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len,
                  int S, int B, const float *src_mask, nmt_enc_out *out) {
  const nmt_net_cfg *c = &m->cfg;
  nn_tensor *fin[MAX_LAYERS];
  nn_tensor *Hs = encoder(g, m, p, src, src_len, S, B, src_mask, fin);
  if (!Hs) return nmt_errcode();
  init_state(g, m, fin, out->state, B);
  out->nstate = c->dec_layers;
  if (c->input_feed) out->state[out->nstate++] = nn_zeros(g, B, c->hidden);
  out->nmem = 0;
  if (!c->no_attention) {
    nn_attn_w aw = attn_w(g, p, m, ATTN);
    out->mem[out->nmem++] = Hs;
    if (c->attn.score != NN_ATTN_DOT) out->mem[out->nmem++] = nn_attn_keys(g, &c->attn, &aw, Hs);
  }
  return g->failed ? nmt_errcode() : NMT_OK;
}

/* The RHN stack runs on the live rows; the attention scores on all rows (the
 * memory is per row; a dead row gets a zero query), h̃ on the live ones. */
static nn_tensor *step(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev,
                       nn_tensor **state, const nmt_dec_ctx *ctx, nn_tensor **align) {
  const nmt_net_cfg *c = &m->cfg;
  int L = c->dec_layers;
  nn_rhn_w w0 = layer_w(g, p, m, DEC, c->dec_cell_depth);
  nn_tensor *z1 = nn_linear(g, embed(g, p, m, TGT_EMB, prev, ctx->n), w0.W, w0.b[0]);
  nn_tensor *feed = c->input_feed ? state[L] : NULL;
  nn_tensor *top = g->failed ? NULL : dec_step(g, m, p, z1, feed, NULL, state, NULL, 0);
  if (!top || c->no_attention) return top;
  nn_attn_w aw = attn_w(g, p, m, ATTN);
  nn_tensor *Hs = ctx->mem[0], *K = ctx->mem[c->attn.score == NN_ATTN_DOT ? 0 : 1];
  nn_tensor *a = NULL;
  nn_tensor *ht = nn_attn_step_rows(g, &c->attn, &aw, nmt_dec_scatter(g, ctx, top), K, Hs, ctx->mask,
                                    ctx->len, ctx->rows, ctx->n, align ? &a : NULL);
  if (align) *align = nmt_dec_gather(g, ctx, a);
  if (c->input_feed) state[L] = ht;
  return ht;
}

const nmt_family nmt_family_rhn = {"rhn", layout, forward, encode, step, "general", NMT_CELL_RHN, true};
