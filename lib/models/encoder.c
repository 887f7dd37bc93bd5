/* The shared stacked encoder; see models/encoder.h. */
#include "models/encoder.h"
#include "models/parts.h"
#include "nn/ops.h"

int nmt_enc_bi_layers(const nmt_net_cfg *c) {
  return c->enc_type == NMT_ENC_BI ? c->enc_layers : c->enc_type == NMT_ENC_BI_UNI;
}

nn_tensor *nmt_encode_stack(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *E, const int *src,
                           const int *src_len, int S, int B, const float *mask, nmt_enc_layer_fn fn,
                           int nfin, nn_tensor **fin[NMT_ENC_MAX_FINALS]) {
  const nmt_net_cfg *c = &m->cfg;
  int nbi = nmt_enc_bi_layers(c);
  size_t n = (size_t)S * B;
  int *rev = c->opt.reverse_source || nbi ? nmt_net_reversal(g, src_len, S, B) : NULL;
  int *ids = c->opt.reverse_source && rev ? nn_alloc(g, sizeof(int) * n) : NULL;
  if (g->failed) return NULL;
  for (size_t i = 0; ids && i < n; i++) ids[i] = src[rev[i]];
  const int *in_ids = nn_ints(g, n, ids ? ids : src), *rows = rev ? nn_ints(g, n, rev) : NULL;
  nn_tensor *x = nn_dropout(g, nn_embed(g, E, in_ids, S * B), c->dropout);
  nn_tensor *bw = nbi ? nn_embed(g, x, rows, S * B) : NULL; /* the backward direction's rows */
  for (int l = 0; l < c->enc_layers && !g->failed; l++) {
    nn_tensor *in = l ? nn_dropout(g, x, c->dropout) : x, *ff[NMT_ENC_MAX_FINALS] = {0}, *fb[NMT_ENC_MAX_FINALS] = {0};
    x = fn(g, m, p, l, 0, in, mask, S, ff);
    if (l >= nbi) {
      for (int k = 0; k < nfin; k++) fin[k][l] = ff[k];
      continue;
    }
    bw = fn(g, m, p, l, 1, l ? nn_dropout(g, bw, c->dropout) : bw, mask, S, fb);
    if (g->failed) break;
    for (int k = 0; k < nfin; k++) fin[k][l] = nn_concat(g, ff[k], fb[k]);
    if (l == nbi - 1) x = nn_concat(g, x, nn_embed(g, bw, rows, S * B));
  }
  return g->failed ? NULL : x;
}
