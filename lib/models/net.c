/* The family table and the helpers families share; see models/net.h. */
#include "models/net.h"
#include "base/err.h"
#include "models/deepatt.h"
#include "models/luong.h"
#include "models/rnnsearch.h"
#include "models/rhn_recon.h"
#include "models/srnmt.h"
#include "nn/ops.h"
#include <string.h>

/* Every family, in the order --help lists them. */
static const nmt_family *const families[] = {
    &nmt_family_luong,
    &nmt_family_rnnsearch,
    &nmt_family_rhn,
    &nmt_family_deep_att,
    &nmt_family_deep_ed,
    &nmt_family_srnmt,
};
enum { NFAMILIES = sizeof families / sizeof families[0] };

const nmt_family *nmt_family_find(const char *name) {
  if (!name) return families[0]; /* luong: --type not given */
  for (int i = 0; i < NFAMILIES; i++)
    if (!strcmp(families[i]->name, name)) return families[i];
  return NULL;
}

const char *nmt_family_names(void) {
  static char names[256];
  if (!names[0])
    for (int i = 0; i < NFAMILIES; i++) strcat(strcat(names, i ? ", " : ""), families[i]->name);
  return names;
}

int nmt_net_layout(nmt_net *m, const nmt_net_cfg *cfg, nn_params *p) {
  memset(m, -1, sizeof *m);
  m->cfg = *cfg;
  if (!cfg->family) return nmt_fail(NMT_EUSAGE, "no model family (--type)");
  int st = nmt_model_opts_check_family(&cfg->opt, cfg->family->name);
  if (st) return st;
  /* Past this the layouts' int shapes (4H x 2H, ...) overflow; no real model comes near. */
  if (cfg->emb > NMT_MAX_DIM || cfg->hidden > NMT_MAX_DIM || cfg->attn_size > NMT_MAX_DIM)
    return nmt_fail(NMT_EUSAGE, "sizes must be at most %d (--dim-emb, --dim-rnn)", NMT_MAX_DIM);
  return cfg->family->layout(m, p);
}

/* The ops cannot read ids (on a GPU they live there): they are checked here,
 * on the host, before they go to a family. */
static bool ids_in(nn_graph *g, const nmt_net *m, const char *what, const int *ids, size_t n, int V) {
  for (size_t i = 0; i < n; i++)
    if (!nn_require(g, ids[i] >= 0 && ids[i] < V, "%s: %s id %d outside the vocabulary of %d",
                    m->cfg.family->name, what, ids[i], V))
      return false;
  return true;
}

nn_tensor *nmt_net_forward(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *b,
                          long *ntokens) {
  const char *fam = m->cfg.family->name;
  if (g->failed || !nn_require(g, b->B > 0 && b->S > 0 && b->T > 0, "%s: empty batch (%d,%d,%d)", fam, b->B,
                               b->S, b->T) ||
      !nn_require(g, b->src_mask && b->tgt_mask, "%s: a batch without masks (nmt_batch_masks)", fam))
    return NULL;
  for (int i = 0; i < b->B; i++)
    if (!nn_require(g, b->src_len[i] >= 1 && b->src_len[i] <= b->S, "%s: source length %d of %d", fam,
                    b->src_len[i], b->S))
      return NULL;
  size_t S = (size_t)b->S * b->B, T = (size_t)b->T * b->B;
  int Vs = m->cfg.src_vocab, Vt = m->cfg.tgt_vocab;
  if (!ids_in(g, m, "source", b->src, S, Vs) || !ids_in(g, m, "target", b->tgt_in, T, Vt) ||
      !ids_in(g, m, "target", b->tgt_out, T, Vt))
    return NULL;
  return m->cfg.family->forward(g, m, p, b, ntokens);
}

int nmt_net_encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len, int S,
                  int B, const float *src_mask, nmt_enc_out *out) {
  if (!ids_in(g, m, "source", src, (size_t)S * B, m->cfg.src_vocab)) return nmt_errcode();
  const float *mask = nn_floats(g, (size_t)S * B, src_mask);
  return mask ? m->cfg.family->encode(g, m, p, src, src_len, S, B, mask, out) : nmt_errcode();
}

nn_tensor *nmt_net_step(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev, nn_tensor **state,
                       const nmt_dec_ctx *ctx, nn_tensor **align) {
  size_t n = (size_t)(ctx->rows ? ctx->n : ctx->R);
  if (!ids_in(g, m, "target", prev, n, m->cfg.tgt_vocab)) return NULL;
  const int *ids = nn_ints(g, n, prev);
  return ids ? m->cfg.family->step(g, m, p, ids, state, ctx, align) : NULL;
}

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

nn_tensor *nmt_net_param(nn_graph *g, nn_params *p, int index) {
  return index < 0 ? NULL : nn_param(g, p, index);
}

void nmt_net_add(nn_params *p, int *status, int *index, const char *name, int rows, int cols) {
  *index = nn_params_add(p, name, rows, cols);
  if (*index < 0) *status = NMT_EUSAGE;
}

/* The target embedding's name: the output view when tied. */
static const char *tgt_emb_name(const nmt_net_cfg *c) { return c->opt.tied_embeddings_all ? "emb" : "dec.emb"; }

void nmt_net_add_embeddings(nn_params *p, int *status, int *src, int *tgt, const nmt_net_cfg *c) {
  if (c->opt.tied_embeddings_all && c->src_vocab != c->tgt_vocab) {
    *status = nmt_fail(NMT_EUSAGE, "--tied-embeddings-all needs a joint vocabulary (source %d, target %d "
                       "tokens): give --vocabs V V", c->src_vocab, c->tgt_vocab);
    return;
  }
  if (!c->opt.tied_embeddings_all) nmt_net_add(p, status, src, "enc.emb", c->src_vocab, c->emb);
  nmt_net_add(p, status, tgt, tgt_emb_name(c), c->tgt_vocab, c->emb);
  if (c->opt.tied_embeddings_all) *src = *tgt;
  nn_params_mark_lookup(p, *src);
  nn_params_mark_lookup(p, *tgt);
}

bool nmt_net_tied_output(const nmt_net_cfg *c) { return c->opt.tied_embeddings || c->opt.tied_embeddings_all; }

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

int nmt_net_output_view(const nmt_net_cfg *c, const nn_params *p, bool *transposed) {
  *transposed = nmt_net_tied_output(c);
  return nn_params_find(p, *transposed ? tgt_emb_name(c) : "out.W");
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
