/* The Luong model: parameter layout and the training forward pass. */
#include "nn_model_luong.h"
#include "err.h"
#include "nn_lstm.h"
#include "nn_ops.h"
#include <stdio.h>
#include <string.h>

static int add(nn_params *p, int *status, const char *name, int rows, int cols) {
  int i = nn_params_add(p, name, rows, cols);
  if (i < 0) *status = NMT_EUSAGE;
  return i;
}

static int add_layer(nn_params *p, int *st, const char *side, int l, int in, int rec, int H,
                     int *wx, int *wh, int *b) {
  char name[64];
  snprintf(name, sizeof name, "%s.l%d.Wx", side, l);
  *wx = add(p, st, name, in, 4 * H);
  snprintf(name, sizeof name, "%s.l%d.Wh", side, l);
  *wh = add(p, st, name, rec, 4 * H);
  snprintf(name, sizeof name, "%s.l%d.b", side, l);
  *b = add(p, st, name, 1, 4 * H);
  return *st;
}

int nn_luong_layout(nn_luong *m, const nn_luong_cfg *c, nn_params *p) {
  if (c->layers < 1 || c->layers > NN_LUONG_MAX_LAYERS || c->emb < 1 || c->hidden < 1 ||
      c->src_vocab < 1 || c->tgt_vocab < 1 ||
      ((c->attn.score == NN_ATTN_MLP || c->attn.local) && c->attn_size < 1))
    return nmt_fail(NMT_EUSAGE, "luong: bad configuration (layers 1..%d, sizes >= 1)",
                    NN_LUONG_MAX_LAYERS);
  memset(m, -1, sizeof *m);
  m->cfg = *c;
  int st = NMT_OK, E = c->emb, H = c->hidden, A = c->attn_size;
  m->src_emb = add(p, &st, "enc.emb", c->src_vocab, E);
  m->tgt_emb = add(p, &st, "dec.emb", c->tgt_vocab, E);
  for (int l = 0; l < c->layers; l++) {
    add_layer(p, &st, "enc", l, l ? H : E, H, H, &m->enc_wx[l], &m->enc_wh[l], &m->enc_b[l]);
    add_layer(p, &st, "dec", l, l ? H : E, !l && c->input_feed ? 2 * H : H, H, &m->dec_wx[l],
              &m->dec_wh[l], &m->dec_b[l]);
  }
  if (c->attn.score == NN_ATTN_GENERAL) m->attn_wa = add(p, &st, "attn.Wa", H, H);
  if (c->attn.score == NN_ATTN_MLP) {
    m->attn_wa = add(p, &st, "attn.Wa", H, A);
    m->attn_wq = add(p, &st, "attn.Wq", H, A);
    m->attn_v = add(p, &st, "attn.v", 1, A);
  }
  if (c->attn.local) {
    m->attn_wp = add(p, &st, "attn.Wp", H, A);
    m->attn_vp = add(p, &st, "attn.vp", A, 1);
  }
  m->attn_wc = add(p, &st, "attn.Wc", 2 * H, H);
  m->out_w = add(p, &st, "out.W", H, c->tgt_vocab);
  m->out_b = add(p, &st, "out.b", 1, c->tgt_vocab);
  return st;
}

static nn_tensor *param(nn_graph *g, nn_params *p, int index) {
  return index < 0 ? NULL : nn_param(g, p, index);
}

static nn_lstm_w layer_w(nn_graph *g, nn_params *p, int wx, int wh, int b) {
  return (nn_lstm_w){param(g, p, wx), param(g, p, wh), param(g, p, b)};
}

/* Masks from the batch, in the arena: source steps (S*B), attention (B,S),
 * target steps (T*B). */
typedef struct {
  float *src, *attn, *tgt;
  int *len;
} masks;

static masks make_masks(nn_graph *g, const nn_luong_batch *bt, int pad) {
  int B = bt->B, S = bt->S, T = bt->T;
  masks mk = {nn_floats(g, (size_t)S * B, NULL), nn_floats(g, (size_t)B * S, NULL),
              nn_floats(g, (size_t)T * B, NULL), nn_ints(g, (size_t)B, bt->src_len)};
  if (g->failed) return mk;
  for (int b = 0; b < B; b++) {
    nn_require(g, bt->src_len[b] >= 1 && bt->src_len[b] <= S, "luong: source length %d of %d",
               bt->src_len[b], S);
    for (int s = 0; s < S; s++) mk.attn[b * S + s] = mk.src[s * B + b] = s < bt->src_len[b];
  }
  for (int i = 0; i < T * B; i++) mk.tgt[i] = bt->tgt_out[i] != pad;
  return mk;
}

nn_attn_w nn_luong_attn_w(nn_graph *g, const nn_luong *m, nn_params *p) {
  return (nn_attn_w){param(g, p, m->attn_wa), param(g, p, m->attn_wq), param(g, p, m->attn_v),
                     param(g, p, m->attn_wp), param(g, p, m->attn_vp), param(g, p, m->attn_wc)};
}

nn_tensor *nn_luong_encode(nn_graph *g, const nn_luong *m, nn_params *p, const int *src, int S,
                           int B, const float *mask, nn_tensor **h0, nn_tensor **c0) {
  const nn_luong_cfg *c = &m->cfg;
  nn_tensor *x = nn_dropout(g, nn_embed(g, param(g, p, m->src_emb), src, S * B), c->dropout);
  for (int l = 0; l < c->layers && !g->failed; l++) {
    nn_lstm_w w = layer_w(g, p, m->enc_wx[l], m->enc_wh[l], m->enc_b[l]);
    nn_tensor *Cs, *Hs = nn_lstm_layer(g, &w, l ? nn_dropout(g, x, c->dropout) : x, mask, S, NULL, NULL, &Cs);
    if (g->failed) break;
    h0[l] = nn_rows(g, Hs, (S - 1) * B, B);
    c0[l] = nn_rows(g, Cs, (S - 1) * B, B);
    x = Hs;
  }
  return g->failed ? NULL : x;
}

nn_tensor *nn_luong_decode_step(nn_graph *g, const nn_luong *m, nn_params *p, nn_tensor *gx0,
                                nn_tensor *feed, const float *mask, nn_tensor **h, nn_tensor **c) {
  const nn_luong_cfg *cf = &m->cfg;
  int B = gx0->rows, H = cf->hidden;
  for (int l = 0; l < cf->layers && !g->failed; l++) {
    nn_lstm_w w = layer_w(g, p, m->dec_wx[l], m->dec_wh[l], m->dec_b[l]);
    nn_tensor *gx = l ? nn_linear(g, nn_dropout(g, h[l - 1], cf->dropout), w.Wx, w.b) : gx0;
    nn_tensor *rin = !l && cf->input_feed ? nn_concat(g, feed, h[l]) : h[l];
    nn_tensor *gh = nn_matmul(g, rin, false, w.Wh, false);
    nn_tensor *hn = nn_new(g, B, H), *cn = nn_new(g, B, H);
    if (g->failed) break;
    nn_lstm_cell(g, gx, gh, h[l], c[l], mask, hn, cn);
    h[l] = hn;
    c[l] = cn;
  }
  return g->failed ? NULL : h[cf->layers - 1];
}

nn_tensor *nn_luong_forward(nn_graph *g, const nn_luong *m, nn_params *p,
                            const nn_luong_batch *bt, long *ntokens) {
  const nn_luong_cfg *c = &m->cfg;
  int B = bt->B, T = bt->T, H = c->hidden;
  if (g->failed || !nn_require(g, B > 0 && bt->S > 0 && T > 0, "luong: empty batch (%d,%d,%d)", B,
                               bt->S, T))
    return NULL;
  masks mk = make_masks(g, bt, c->pad);
  nn_tensor *h[NN_LUONG_MAX_LAYERS], *cs[NN_LUONG_MAX_LAYERS];
  nn_tensor *Hs = nn_luong_encode(g, m, p, bt->src, bt->S, B, mk.src, h, cs); /* (S*B,H) */
  nn_attn_w aw = nn_luong_attn_w(g, m, p);
  nn_tensor *K = Hs ? nn_attn_keys(g, &c->attn, &aw, Hs) : NULL;
  /* The decoder's first-layer input projection for all steps at once. */
  nn_tensor *Ey = nn_dropout(g, nn_embed(g, param(g, p, m->tgt_emb), bt->tgt_in, T * B), c->dropout);
  nn_tensor *G0 = nn_linear(g, Ey, param(g, p, m->dec_wx[0]), param(g, p, m->dec_b[0])); /* (T*B,4H) */
  nn_tensor **outs = nn_alloc(g, sizeof *outs * (size_t)T);
  nn_tensor *feed = nn_new(g, B, H);
  if (g->failed) return NULL;
  memset(feed->v, 0, sizeof(float) * (size_t)B * H);
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *top = nn_luong_decode_step(g, m, p, nn_rows(g, G0, t * B, B), feed, mk.tgt + (size_t)t * B, h, cs);
    if (!top) break;
    feed = outs[t] = nn_attn_step(g, &c->attn, &aw, top, K, Hs, mk.attn, mk.len, NULL);
  }
  nn_tensor *Ht = g->failed ? NULL : nn_dropout(g, nn_stack(g, outs, T), c->dropout); /* (T*B,H) */
  nn_tensor *logits = nn_linear(g, Ht, param(g, p, m->out_w), param(g, p, m->out_b)); /* (T*B,Vt) */
  return g->failed ? NULL : nn_xent(g, logits, bt->tgt_out, c->pad, c->label_smoothing, ntokens);
}
