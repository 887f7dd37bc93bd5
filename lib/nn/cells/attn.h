/* Attention ops over a time-major memory (S*B, F) — row s*B+b is source
 * position s of sentence b — and the Luong (2015) attention layer built on them. */
#ifndef NMT_NN_ATTN_H
#define NMT_NN_ATTN_H
#include "nn/tape.h"

/* score (B,S) = q (B,F) · K_b ᵀ per sentence. */
nn_tensor *nn_attn_dot(nn_graph *g, nn_tensor *q, nn_tensor *K);
/* score[b,s] = vᵀ tanh(q[b] + K[s*B+b]): q (B,A), K (S*B,A), v (1,A) → (B,S). */
nn_tensor *nn_attn_mlp(nn_graph *g, nn_tensor *q, nn_tensor *K, nn_tensor *v);
/* ctx (B,F) = Σ_s a[b,s]·V[s*B+b]: a (B,S), V (S*B,F). */
nn_tensor *nn_attn_context(nn_graph *g, nn_tensor *a, nn_tensor *V);
/* Local-p weights: a (B,S) times the Gaussian around p_b = len[b]·sig[b]
 * (sig (B,1)), σ = D/2, zero outside [p_b-D, p_b+D]. len (B) in the arena. */
nn_tensor *nn_attn_local(nn_graph *g, nn_tensor *a, nn_tensor *sig, const int *len, float D);

enum nn_attn_score { NN_ATTN_DOT, NN_ATTN_GENERAL, NN_ATTN_MLP };

typedef struct {
  enum nn_attn_score score;
  bool local; /* local-p (predictive window) instead of global */
  float D;    /* local window half-width */
} nn_attn_cfg;

/* Weights; those a configuration does not use are NULL. F: hidden, A: attention size. */
typedef struct {
  nn_tensor *Wa; /* general (F,F): keys Hs·Wa;  mlp (F,A): keys Hs·Wa */
  nn_tensor *Wq; /* mlp (F,A): query h·Wq */
  nn_tensor *v;  /* mlp (1,A) */
  nn_tensor *Wp; /* local (F,A): p = len·σ(tanh(h·Wp)·vp) */
  nn_tensor *vp; /* local (A,1) */
  nn_tensor *Wc; /* (2F,F): h̃ = tanh([c;h]·Wc) */
} nn_attn_w;

/* Once per batch: the keys the scores compare against, from the encoder
 * outputs Hs (S*B,F): Hs itself (dot) or its projection (general, mlp). */
nn_tensor *nn_attn_keys(nn_graph *g, const nn_attn_cfg *cfg, const nn_attn_w *w, nn_tensor *Hs);
/* One decoder step: h (B,F) attends over Hs with keys K; mask (B,S) (1 real,
 * 0 padding) and len (B) source lengths, both in the arena. Returns the
 * attentional vector h̃ (B,F); *align (if not NULL) gets the weights (B,S). */
nn_tensor *nn_attn_step(nn_graph *g, const nn_attn_cfg *cfg, const nn_attn_w *w, nn_tensor *h,
                        nn_tensor *K, nn_tensor *Hs, const float *mask, const int *len,
                        nn_tensor **align);
/* The same with h̃ for rows rows[0..n) of h only (scores for all rows, the
 * projection Wc for those: decoding skips dead beam rows); rows NULL: all. */
nn_tensor *nn_attn_step_rows(nn_graph *g, const nn_attn_cfg *cfg, const nn_attn_w *w,
                             nn_tensor *h, nn_tensor *K, nn_tensor *Hs, const float *mask,
                             const int *len, const int *rows, int n, nn_tensor **align);

#endif
