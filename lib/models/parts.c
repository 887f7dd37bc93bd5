/* What the families build from; see models/parts.h. */
#include "models/parts.h"
#include "base/err.h"
#include "nn/ops.h"
#include <string.h>

int nmt_net_cells(const nmt_net_cfg *c, unsigned cells) {
  const char *const *cell_names = nmt_option_by_key("enc-cell")->names;
  const char *name = c->family ? c->family->name : "?";
  unsigned ok = cells ? cells : 1u << NMT_CELL_LSTM;
  if ((ok >> c->enc_cell & 1) && (ok >> c->dec_cell & 1)) return NMT_OK;
  char list[64] = "";
  for (int k = 0; k < nmt_option_by_key("enc-cell")->nnames; k++)
    if (ok >> k & 1) strcat(strcat(list, list[0] ? ", " : ""), cell_names[k]);
  return nmt_fail(NMT_EUSAGE, "--type %s does not support --%s-cell %s (its cells: %s)", name,
                  ok >> c->enc_cell & 1 ? "dec" : "enc",
                  cell_names[ok >> c->enc_cell & 1 ? c->dec_cell : c->enc_cell], list);
}

void nmt_net_add(nn_params *p, int *status, int *index, const char *name, int rows, int cols) {
  *index = nn_params_add(p, name, rows, cols);
  if (*index < 0) *status = NMT_EUSAGE;
}

void nmt_net_add_embeddings(nn_params *p, int *status, int *src, int *tgt, const nmt_net_cfg *c) {
  if (c->opt.tied_embeddings_all && c->src_vocab != c->tgt_vocab) {
    *status = nmt_fail(NMT_EUSAGE, "--tied-embeddings-all needs a joint vocabulary (source %d, target %d "
                       "tokens): give --vocabs V V", c->src_vocab, c->tgt_vocab);
    return;
  }
  if (!c->opt.tied_embeddings_all) nmt_net_add(p, status, src, "enc.emb", c->src_vocab, c->emb);
  nmt_net_add(p, status, tgt, nmt_net_tgt_emb_name(c), c->tgt_vocab, c->emb);
  if (c->opt.tied_embeddings_all) *src = *tgt;
  nn_params_mark_lookup(p, *src);
  nn_params_mark_lookup(p, *tgt);
}

void nmt_net_add_output(nn_params *p, int *status, int *out_w, int *out_b, int in, int tgt_emb,
                       const nmt_net_cfg *c) {
  if (!nmt_net_tied_output(c)) nmt_net_add(p, status, out_w, "out.W", in, c->tgt_vocab);
  else if (in != c->emb)
    *status = nmt_fail(NMT_EUSAGE, "--%s: the output layer takes %d features (--dim-rnn), the embeddings "
                       "have %d (--dim-emb): make them equal", c->opt.tied_embeddings_all ? "tied-embeddings-all"
                       : "tied-embeddings", in, c->emb);
  else *out_w = tgt_emb;
  nmt_net_add(p, status, out_b, "out.b", 1, c->tgt_vocab);
}

nn_tensor *nmt_net_logits(nn_graph *g, nn_tensor *x, nn_tensor *W, nn_tensor *b, bool tied) {
  if (!tied) return nn_linear(g, x, W, b);
  return nn_add_bias(g, nn_matmul(g, x, false, W, true), b);
}

int *nmt_net_reversal(nn_graph *g, const int *len, int S, int B) {
  int *perm = nn_alloc(g, sizeof(int) * (size_t)S * B);
  for (int b = 0; b < B && perm; b++) {
    if (!nn_require(g, len[b] >= 1 && len[b] <= S, "source length %d of %d", len[b], S)) return NULL;
    for (int s = 0; s < S; s++) perm[s * B + b] = (s < len[b] ? len[b] - 1 - s : s) * B + b;
  }
  return perm;
}

nmt_targets nmt_net_targets(nn_graph *g, const nmt_net *m, const int *targets, int n_all) {
  int n = 0, *rows = nn_alloc(g, sizeof(int) * (size_t)n_all), *ids = nn_alloc(g, sizeof(int) * (size_t)n_all);
  for (int i = 0; rows && ids && i < n_all; i++)
    if (targets[i] != m->cfg.pad) rows[n] = i, ids[n++] = targets[i];
  if (g->failed || !nn_require(g, n > 0, "%s: a batch without target tokens", m->cfg.family->name))
    return (nmt_targets){0};
  nmt_targets t = {nn_ints(g, (size_t)n, rows), nn_ints(g, (size_t)n, ids), n};
  return g->failed ? (nmt_targets){0} : t;
}

nn_tensor *nmt_dec_scatter(nn_graph *g, const nmt_dec_ctx *ctx, nn_tensor *x) {
  if (!ctx->rows || !x) return x;
  nn_tensor *y = nn_zeros(g, ctx->R, x->cols);
  if (y) g->be->scatter_rows(y->v, ctx->rows, x->v, ctx->n, x->cols);
  return y;
}

nn_tensor *nmt_dec_gather(nn_graph *g, const nmt_dec_ctx *ctx, nn_tensor *x) {
  if (!ctx->rows || !x) return x;
  nn_tensor *y = nn_new(g, ctx->n, x->cols);
  if (y) g->be->gather_fwd(y->v, x->v, ctx->rows, ctx->n, x->cols);
  return y;
}
