/* The Luong (2015) attention layer: scores (dot, general, concat/MLP), masked
 * softmax, optional local-p window, context, attentional vector h̃. */
#ifndef NMT_NN_CELLS_LUONG_ATTN_H
#define NMT_NN_CELLS_LUONG_ATTN_H
#include "nn/cells/attn.h"
#include "nn/recur.h"

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
  /* Training: Wc's product at step t through Wc_steps (nn_attn_steps_begin),
   * so Wc's gradient is one GEMM per batch; else NULL. */
  nn_recur *Wc_steps;
  int t;
} nn_attn_w;

/* Before a training loop of T steps of B rows: w's Wc products go through r
 * (the caller then sets w->t at each step). Nothing in inference graphs, where
 * rows can drop out between steps. False on failure (g->failed). */
bool nn_attn_steps_begin(nn_graph *g, nn_attn_w *w, nn_recur *r, int T, int B);

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
