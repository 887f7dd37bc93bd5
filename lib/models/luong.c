/* The Luong model: parameter layout, encoder, decoder step and the training forward pass. */
#include "models/luong.h"
#include "models/encoder.h"
#include "models/parts.h"
#include "base/err.h"
#include "nn/cells/lstm.h"
#include "nn/ops.h"
#include <stdio.h>
#include <string.h>

/* One LSTM layer's weights "<prefix>.{Wx,Wh,b}": input `in`, recurrent input `rec`, size H. */
static void add_layer(nn_params *p, int *st, const char *prefix, int in, int rec, int H, int *wx,
                      int *wh, int *b) {
  char name[64];
  snprintf(name, sizeof name, "%s.Wx", prefix);
  nmt_net_add(p, st, wx, name, in, 4 * H);
  snprintf(name, sizeof name, "%s.Wh", prefix);
  nmt_net_add(p, st, wh, name, rec, 4 * H);
  snprintf(name, sizeof name, "%s.b", prefix);
  nmt_net_add(p, st, b, name, 1, 4 * H);
}

/* Encoder layers [0, n) run in both directions. */
static bool valid_cfg(const nmt_net_cfg *c) {
  bool attn_sized = c->no_attention || !(c->attn.score == NN_ATTN_MLP || c->attn.local);
  return c->enc_layers >= 1 && c->enc_layers <= NMT_MAX_LAYERS && c->dec_layers >= 1 &&
         c->dec_layers <= NMT_MAX_LAYERS && c->emb >= 1 && c->hidden >= 1 &&
         c->src_vocab >= 1 && c->tgt_vocab >= 1 && (attn_sized || c->attn_size >= 1) &&
         c->enc_type >= NMT_ENC_UNI && c->enc_type <= NMT_ENC_BI_UNI &&
         (c->enc_type == NMT_ENC_UNI || c->hidden % 2 == 0);
}

static void layout_encoder(nmt_net *m, nn_params *p, int *st) {
  const nmt_net_cfg *c = &m->cfg;
  int E = c->emb, H = c->hidden, nbi = nmt_enc_bi_layers(c);
  char prefix[32];
  for (int l = 0; l < c->enc_layers; l++) {
    snprintf(prefix, sizeof prefix, "enc.l%d", l);
    if (l >= nbi) {
      add_layer(p, st, prefix, l ? H : E, H, H, &m->luong.enc_wx[l], &m->luong.enc_wh[l], &m->luong.enc_b[l]);
      continue;
    }
    add_layer(p, st, prefix, l ? H / 2 : E, H / 2, H / 2, &m->luong.enc_wx[l], &m->luong.enc_wh[l], &m->luong.enc_b[l]);
    snprintf(prefix, sizeof prefix, "enc.l%dr", l);
    add_layer(p, st, prefix, l ? H / 2 : E, H / 2, H / 2, &m->luong.enc_rwx[l], &m->luong.enc_rwh[l], &m->luong.enc_rb[l]);
  }
}

static void layout_attention(nmt_net *m, nn_params *p, int *st) {
  const nmt_net_cfg *c = &m->cfg;
  int H = c->hidden, A = c->attn_size;
  if (c->attn.score == NN_ATTN_GENERAL) nmt_net_add(p, st, &m->luong.attn_wa, "attn.Wa", H, H);
  if (c->attn.score == NN_ATTN_MLP) {
    nmt_net_add(p, st, &m->luong.attn_wa, "attn.Wa", H, A);
    nmt_net_add(p, st, &m->luong.attn_wq, "attn.Wq", H, A);
    nmt_net_add(p, st, &m->luong.attn_v, "attn.v", 1, A);
  }
  if (c->attn.local) {
    nmt_net_add(p, st, &m->luong.attn_wp, "attn.Wp", H, A);
    nmt_net_add(p, st, &m->luong.attn_vp, "attn.vp", A, 1);
  }
  nmt_net_add(p, st, &m->luong.attn_wc, "attn.Wc", 2 * H, H);
}

static int layout(nmt_net *m, nn_params *p) {
  const nmt_net_cfg *c = &m->cfg;
  if (nmt_net_cells(c, 0)) return NMT_EUSAGE;
  if (c->enc_type != NMT_ENC_UNI && c->hidden % 2)
    return nmt_fail(NMT_EUSAGE, "--dim-rnn must be even with a bidirectional encoder (half per direction)");
  if (!valid_cfg(c))
    return nmt_fail(NMT_EUSAGE, "luong: bad configuration (layers 1..%d, sizes >= 1, an even "
                                "hidden size with a bidirectional encoder)", NMT_MAX_LAYERS);
  m->cfg.input_feed = c->input_feed && !c->no_attention;
  int st = NMT_OK, E = c->emb, H = c->hidden;
  nmt_net_add_embeddings(p, &st, &m->luong.src_emb, &m->luong.tgt_emb, c);
  layout_encoder(m, p, &st);
  char prefix[32];
  for (int l = 0; l < c->dec_layers; l++) {
    snprintf(prefix, sizeof prefix, "dec.l%d", l);
    add_layer(p, &st, prefix, l ? H : E, !l && m->cfg.input_feed ? 2 * H : H, H, &m->luong.dec_wx[l],
              &m->luong.dec_wh[l], &m->luong.dec_b[l]);
  }
  if (!c->no_attention) layout_attention(m, p, &st);
  nmt_net_add_output(p, &st, &m->luong.out_w, &m->luong.out_b, H, m->luong.tgt_emb, c);
  return st;
}

static nn_lstm_w layer_w(nn_graph *g, nn_params *p, int wx, int wh, int b) {
  return (nn_lstm_w){nmt_net_param(g, p, wx), nmt_net_param(g, p, wh), nmt_net_param(g, p, b)};
}

static nn_attn_w nn_luong_attn_w(nn_graph *g, const nmt_net *m, nn_params *p) {
  return (nn_attn_w){nmt_net_param(g, p, m->luong.attn_wa), nmt_net_param(g, p, m->luong.attn_wq), nmt_net_param(g, p, m->luong.attn_v),
                     nmt_net_param(g, p, m->luong.attn_wp), nmt_net_param(g, p, m->luong.attn_vp), nmt_net_param(g, p, m->luong.attn_wc)};
}

/* One direction of encoder layer l over X: outputs (S*B,H'), final h and c into fin. */
static nn_tensor *enc_layer(nn_graph *g, const nmt_net *m, nn_params *p, int l, int dir, nn_tensor *X,
                            const float *mask, int S, nn_tensor **fin) {
  const struct nmt_luong_views *v = &m->luong;
  nn_lstm_w w = dir ? layer_w(g, p, v->enc_rwx[l], v->enc_rwh[l], v->enc_rb[l])
                    : layer_w(g, p, v->enc_wx[l], v->enc_wh[l], v->enc_b[l]);
  nn_tensor *Cs, *Hs = nn_lstm_layer(g, &w, X, mask, S, NULL, NULL, &Cs);
  if (!Hs) return NULL;
  int B = X->rows / S;
  fin[0] = nn_rows(g, Hs, (S - 1) * B, B);
  fin[1] = nn_rows(g, Cs, (S - 1) * B, B);
  return Hs;
}

static nn_tensor *nn_luong_encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src,
                           const int *src_len, int S, int B, const float *mask, nn_tensor **h0,
                           nn_tensor **c0) {
  nn_tensor **fin[NMT_ENC_MAX_FINALS] = {h0, c0};
  return nmt_encode_stack(g, m, p, nmt_net_param(g, p, m->luong.src_emb), src, src_len, S, B, mask, enc_layer, 2,
                         fin);
}

static void nn_luong_init_state(nn_graph *g, const nmt_net *m, nn_tensor **h0, nn_tensor **c0,
                         nn_tensor **h, nn_tensor **c, int B) {
  for (int l = 0; l < m->cfg.dec_layers; l++) {
    bool from_enc = l < m->cfg.enc_layers;
    h[l] = from_enc ? h0[l] : nn_zeros(g, B, m->cfg.hidden);
    c[l] = from_enc ? c0[l] : nn_zeros(g, B, m->cfg.hidden);
  }
}

/* One decoder step; with rec (training), layer l's recurrent product goes
 * through rec[l] at step t so its weight gradient is one GEMM per batch. */
static nn_tensor *dec_step(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *gx0,
                           nn_tensor *feed, const float *mask, nn_tensor **h, nn_tensor **c,
                           nn_recur *rec, int t) {
  const nmt_net_cfg *cf = &m->cfg;
  int B = gx0->rows, H = cf->hidden;
  for (int l = 0; l < cf->dec_layers && !g->failed; l++) {
    nn_lstm_w w = layer_w(g, p, m->luong.dec_wx[l], m->luong.dec_wh[l], m->luong.dec_b[l]);
    nn_tensor *gx = l ? nn_linear(g, nn_dropout(g, h[l - 1], cf->dropout), w.Wx, w.b) : gx0;
    nn_tensor *rin = !l && cf->input_feed ? nn_concat(g, feed, h[l]) : h[l];
    nn_tensor *gh = rec ? nn_recur_step(g, &rec[l], t, rin) : nn_matmul(g, rin, false, w.Wh, false);
    nn_tensor *hn = nn_new(g, B, H), *cn = nn_new(g, B, H);
    if (g->failed) break;
    nn_lstm_cell(g, gx, rec && !l ? NULL : gh, h[l], c[l], mask, hn, cn); /* rec[0] adds into gx0 */
    h[l] = hn;
    c[l] = cn;
  }
  return g->failed ? NULL : h[cf->dec_layers - 1];
}

static nn_tensor *nn_luong_output(nn_graph *g, const nmt_net *m, const nn_attn_w *aw, nn_tensor *top,
                           nn_tensor *K, nn_tensor *Hs, const float *mask, const int *len) {
  if (m->cfg.no_attention) return top;
  return nn_attn_step(g, &m->cfg.attn, aw, top, K, Hs, mask, len, NULL);
}

static nn_tensor *nn_luong_forward(nn_graph *g, const nmt_net *m, nn_params *p,
                            const nmt_batch *bt, long *ntokens) {
  const nmt_net_cfg *c = &m->cfg;
  int B = bt->B, T = bt->T, H = c->hidden;
  nn_tensor *h0[NMT_MAX_LAYERS], *c0[NMT_MAX_LAYERS];
  nn_tensor *h[NMT_MAX_LAYERS], *cs[NMT_MAX_LAYERS];
  nmt_batch d; /* bt's arrays as the ops take them */
  if (!nmt_batch_upload(g, bt, &d)) return NULL;
  nn_tensor *Hs = nn_luong_encode(g, m, p, bt->src, bt->src_len, bt->S, B, d.src_mask, h0, c0); /* (S*B,H) */
  if (Hs) nn_luong_init_state(g, m, h0, c0, h, cs, B);
  nn_attn_w aw = nn_luong_attn_w(g, m, p);
  nn_tensor *K = Hs && !c->no_attention ? nn_attn_keys(g, &c->attn, &aw, Hs) : NULL;
  /* The decoder's first-layer input projection for all steps at once. */
  nn_tensor *Ey = nn_dropout(g, nn_embed(g, nmt_net_param(g, p, m->luong.tgt_emb), d.tgt_in, T * B), c->dropout);
  nn_tensor *G0 = nn_linear(g, Ey, nmt_net_param(g, p, m->luong.dec_wx[0]), nmt_net_param(g, p, m->luong.dec_b[0])); /* (T*B,4H) */
  nn_tensor **outs = nn_alloc(g, sizeof *outs * (size_t)T);
  nn_tensor *feed = nn_zeros(g, B, H);
  nn_recur rec[NMT_MAX_LAYERS], wc;
  for (int l = 0; l < c->dec_layers && G0; l++)
    nn_recur_begin(g, &rec[l], nmt_net_param(g, p, m->luong.dec_wh[l]), l ? NULL : G0, T, B);
  if (!c->no_attention) nn_attn_steps_begin(g, &aw, &wc, T, B);
  if (g->failed) return NULL;
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *top = dec_step(g, m, p, nn_rows(g, G0, t * B, B), feed, d.tgt_mask + (size_t)t * B, h, cs, rec, t);
    if (!top) break;
    aw.t = t;
    feed = outs[t] = nn_luong_output(g, m, &aw, top, K, Hs, d.src_rows, d.src_len);
  }
  /* The output layer only on the rows with a target (padding costs ~12% of them). */
  nmt_targets tg = nmt_net_targets(g, m, bt->tgt_out, T * B);
  if (!tg.n) return NULL;
  nn_tensor *Ht = nn_dropout(g, nn_embed(g, nn_stack(g, outs, T), tg.rows, tg.n), c->dropout); /* (n,H) */
  nn_tensor *logits = nmt_net_logits(g, Ht, nmt_net_param(g, p, m->luong.out_w), nmt_net_param(g, p, m->luong.out_b),
                                    nmt_net_tied_output(c)); /* (n,Vt) */
  return g->failed ? NULL : nn_xent(g, logits, tg.ids, c->pad, c->label_smoothing, ntokens);
}

/* Inference. Memories: Hs, then the attention keys when they differ from Hs.
 * State: h[0..L), c[0..L), then h̃ with input feeding. */
static int encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len,
                  int S, int B, const float *src_mask, nmt_enc_out *out) {
  const nmt_net_cfg *c = &m->cfg;
  int L = c->dec_layers;
  nn_tensor *h0[NMT_MAX_LAYERS], *c0[NMT_MAX_LAYERS];
  nn_tensor *Hs = nn_luong_encode(g, m, p, src, src_len, S, B, src_mask, h0, c0);
  if (!Hs) return nmt_errcode();
  nn_luong_init_state(g, m, h0, c0, out->state, out->state + L, B);
  out->nstate = 2 * L;
  if (c->input_feed) out->state[out->nstate++] = nn_zeros(g, B, c->hidden);
  out->nmem = 0;
  if (!c->no_attention) {
    nn_attn_w aw = nn_luong_attn_w(g, m, p);
    nn_tensor *K = nn_attn_keys(g, &c->attn, &aw, Hs);
    out->mem[out->nmem++] = Hs;
    if (K != Hs) out->mem[out->nmem++] = K;
  }
  return g->failed ? nmt_errcode() : NMT_OK;
}

/* The LSTM stack runs on the live rows; the attention scores on all rows (the
 * memory is per row; a dead row gets a zero query), h̃ on the live ones. */
static nn_tensor *step(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev,
                       nn_tensor **state, const nmt_dec_ctx *ctx, nn_tensor **align) {
  const nmt_net_cfg *c = &m->cfg;
  int L = c->dec_layers;
  nn_tensor *x = nn_embed(g, nmt_net_param(g, p, m->luong.tgt_emb), prev, ctx->n);
  nn_tensor *gx0 = nn_linear(g, x, nmt_net_param(g, p, m->luong.dec_wx[0]), nmt_net_param(g, p, m->luong.dec_b[0]));
  nn_tensor *feed = c->input_feed ? state[2 * L] : NULL;
  nn_tensor *top = g->failed ? NULL : dec_step(g, m, p, gx0, feed, NULL, state, state + L, NULL, 0);
  if (!top || c->no_attention) return top;
  nn_attn_w aw = nn_luong_attn_w(g, m, p);
  nn_tensor *Hs = ctx->mem[0], *K = ctx->mem[ctx->mem[1] ? 1 : 0];
  nn_tensor *a = NULL, **ap = align ? &a : NULL;
  nn_tensor *ht = nn_attn_step_rows(g, &c->attn, &aw, ctx->rows ? nmt_dec_scatter(g, ctx, top) : top,
                                    K, Hs, ctx->mask, ctx->len, ctx->rows, ctx->n, ap);
  if (align) *align = a && ctx->rows ? nmt_dec_gather(g, ctx, a) : a;
  if (c->input_feed) state[2 * L] = ht;
  return ht;
}

const nmt_family nmt_family_luong = {"luong", layout, nn_luong_forward, encode, step, "general", NMT_CELL_LSTM, true};
