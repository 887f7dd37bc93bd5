/* The calls through a model's family, each checking what the family is given, and
 * the views a caller reads; see models/net.h. */
#include "models/net.h"
#include "base/err.h"
#include "nn/ops.h"
#include <string.h>

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

nn_tensor *nmt_net_param(nn_graph *g, nn_params *p, int index) {
  return index < 0 ? NULL : nn_param(g, p, index);
}

bool nmt_net_tied_output(const nmt_net_cfg *c) { return c->opt.tied_embeddings || c->opt.tied_embeddings_all; }

const char *nmt_net_tgt_emb_name(const nmt_net_cfg *c) { return c->opt.tied_embeddings_all ? "emb" : "dec.emb"; }

int nmt_net_output_view(const nmt_net_cfg *c, const nn_params *p, bool *transposed) {
  *transposed = nmt_net_tied_output(c);
  return nn_params_find(p, *transposed ? nmt_net_tgt_emb_name(c) : "out.W");
}

