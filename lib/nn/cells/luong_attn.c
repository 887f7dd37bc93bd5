/* The Luong (2015) attention layer: scores (dot, general, concat/MLP), masked
 * softmax, optional local-p window, context, attentional vector h̃. */
#include "nn/cells/luong_attn.h"
#include "nn/ops.h"

nn_tensor *nn_attn_keys(nn_graph *g, const nn_attn_cfg *cfg, const nn_attn_w *w, nn_tensor *Hs) {
  return cfg->score == NN_ATTN_DOT ? Hs : nn_matmul(g, Hs, false, w->Wa, false);
}

bool nn_attn_steps_begin(nn_graph *g, nn_attn_w *w, nn_recur *r, int T, int B) {
  if (!g->train) return !g->failed;
  if (!nn_recur_begin(g, r, w->Wc, NULL, T, B)) return false;
  w->Wc_steps = r;
  return true;
}

nn_tensor *nn_attn_step_rows(nn_graph *g, const nn_attn_cfg *cfg, const nn_attn_w *w,
                             nn_tensor *h, nn_tensor *K, nn_tensor *Hs, const float *mask,
                             const int *len, const int *rows, int n, nn_tensor **align) {
  nn_tensor *score = cfg->score == NN_ATTN_MLP
                         ? nn_attn_mlp(g, nn_matmul(g, h, false, w->Wq, false), K, w->v)
                         : nn_attn_dot(g, h, K); /* (B,S) */
  nn_tensor *a = nn_softmax(g, score, mask);
  if (cfg->local) {
    nn_tensor *hp = nn_tanh(g, nn_matmul(g, h, false, w->Wp, false));     /* (B,A) */
    nn_tensor *sig = nn_sigmoid(g, nn_matmul(g, hp, false, w->vp, false)); /* (B,1) */
    a = nn_attn_local(g, a, sig, len, cfg->D);
  }
  nn_tensor *ctx = nn_attn_context(g, a, Hs);                                   /* (B,F) */
  nn_tensor *ch = nn_concat(g, ctx, h); /* (B,2F) */
  if (rows) ch = nn_embed(g, ch, rows, n);
  nn_tensor *ht = nn_tanh(g, w->Wc_steps ? nn_recur_step(g, w->Wc_steps, w->t, ch)
                                         : nn_matmul(g, ch, false, w->Wc, false)); /* (n,F) */
  if (align) *align = g->failed ? NULL : a;
  return g->failed ? NULL : ht;
}

nn_tensor *nn_attn_step(nn_graph *g, const nn_attn_cfg *cfg, const nn_attn_w *w, nn_tensor *h,
                        nn_tensor *K, nn_tensor *Hs, const float *mask, const int *len,
                        nn_tensor **align) {
  return nn_attn_step_rows(g, cfg, w, h, K, Hs, mask, len, NULL, h ? h->rows : 0, align);
}
