/* Forced-pass alignments; see decode_align.h. */
#include "decode_align.h"
#include "err.h"
#include "nn_ops.h"
#include "vocab.h"
#include <string.h>

/* Keeps one pass's graph (every step's tensors stay until the next reset)
 * to about this many floats by aligning fewer rows at a time. */
enum { PASS_FLOATS = 1 << 24 };

/* The source position of row b with the highest weight in a (B,S). */
static int argmax_source(const float *a, int n, bool reversed) {
  /* memory row s holds token s, or token n-s when reversed (</s> first) */
  int best = 0;
  for (int i = 1; i < n; i++)
    if (a[reversed ? n - i : i] > a[reversed ? n - best : best]) best = i;
  return best;
}

static int align_pass(nn_graph *g, const nn_luong *m, nn_params *p, const int *const *src,
                      const int *src_n, const int *const *tgt, const int *tgt_n, int B, int *const *out) {
  int S = 1, T = 0, H = m->cfg.hidden;
  for (int b = 0; b < B; b++) {
    S = src_n[b] + 1 > S ? src_n[b] + 1 : S;
    T = tgt_n[b] > T ? tgt_n[b] : T;
  }
  if (!T) return NMT_OK;
  nn_graph_reset(g, false, 0);
  int *x = nn_ints(g, (size_t)S * B, NULL), *len = nn_ints(g, (size_t)B, NULL);
  int *y = nn_ints(g, (size_t)T * B, NULL);
  float *src_mask = nn_floats(g, (size_t)S * B, NULL), *attn_mask = nn_floats(g, (size_t)B * S, NULL);
  if (g->failed) return nmt_errcode();
  for (int b = 0; b < B; b++) {
    len[b] = src_n[b] + 1;
    for (int s = 0; s < S; s++) {
      x[s * B + b] = s < src_n[b] ? src[b][s] : s == src_n[b] ? NMT_EOS : NMT_PAD;
      src_mask[s * B + b] = attn_mask[b * S + s] = s < len[b];
    }
    /* the decoder reads <s> y1 .. y_{n-1} */
    for (int t = 0; t < T; t++) y[t * B + b] = !t ? NMT_BOS : t <= tgt_n[b] ? tgt[b][t - 1] : NMT_PAD;
  }
  nn_tensor *h0[NN_LUONG_MAX_LAYERS], *c0[NN_LUONG_MAX_LAYERS];
  nn_tensor *h[NN_LUONG_MAX_LAYERS], *c[NN_LUONG_MAX_LAYERS];
  nn_tensor *Hs = nn_luong_encode(g, m, p, x, len, S, B, src_mask, h0, c0);
  if (Hs) nn_luong_init_state(g, m, h0, c0, h, c, B);
  nn_attn_w aw = nn_luong_attn_w(g, m, p);
  nn_tensor *K = Hs ? nn_attn_keys(g, &m->cfg.attn, &aw, Hs) : NULL;
  nn_tensor *E = nn_embed(g, nn_param(g, p, m->tgt_emb), y, T * B);
  nn_tensor *G0 = nn_linear(g, E, nn_param(g, p, m->dec_wx[0]), nn_param(g, p, m->dec_b[0]));
  nn_tensor *feed = nn_new(g, B, H);
  if (g->failed || !K || !G0) return nmt_errcode();
  memset(feed->v, 0, sizeof(float) * (size_t)B * H);
  for (int t = 0; t < T && !g->failed; t++) {
    nn_tensor *a = NULL;
    nn_tensor *top = nn_luong_decode_step(g, m, p, nn_rows(g, G0, t * B, B), feed, NULL, h, c);
    feed = top ? nn_attn_step(g, &m->cfg.attn, &aw, top, K, Hs, attn_mask, len, &a) : NULL;
    for (int b = 0; feed && b < B; b++)
      if (t < tgt_n[b]) out[b][t] = argmax_source(a->v + (size_t)b * S, src_n[b], m->cfg.reverse_source);
  }
  return g->failed ? nmt_errcode() : NMT_OK;
}

int nmt_align(nn_graph *g, const nn_luong *net, nn_params *p, const int *const *src,
              const int *src_n, const int *const *tgt, const int *tgt_n, int R, int *const *out) {
  if (net->cfg.no_attention) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  int T = 1;
  for (int r = 0; r < R; r++) T = tgt_n[r] > T ? tgt_n[r] : T;
  /* h, c, gates, attention and h~ of every step: about 16 H floats a row */
  long per_row = 16L * T * net->cfg.hidden, rows = PASS_FLOATS / per_row;
  int chunk = rows < 1 ? 1 : rows > R ? R : (int)rows, st = NMT_OK;
  for (int r = 0; r < R && !st; r += chunk) {
    int n = R - r < chunk ? R - r : chunk;
    st = align_pass(g, net, p, src + r, src_n + r, tgt + r, tgt_n + r, n, out + r);
  }
  return st;
}
