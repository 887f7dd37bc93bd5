/* Attention ops batched over decoder steps (nn/cells/srnmt_attn.h), built on the
 * per-step kernels of nn/kernels.h. */
#include "nn/cells/srnmt_attn.h"
#include "nn/kernels.h"

/* in: Q, K, v; out: scores; save: one step's tanh values (B,S,A) and scores (B,S). */
static void mlp_seq_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *Q = e->in[0], *K = e->in[1], *v = e->in[2], *y = e->out[0];
  int S = y->cols, B = K->rows / S, T = Q->rows / B, A = Q->cols;
  for (int t = 0; t < T; t++) {
    const float *q = Q->v + (size_t)t * B * A;
    be->attn_mlp_fwd(e->save[1], e->save[0], q, K->v, v->v, B, S, A);
    be->attn_mlp_bwd(Q->g ? Q->g + (size_t)t * B * A : NULL, K->g, v->g, y->g + (size_t)t * B * S,
                    e->save[0], v->v, B, S, A);
  }
}
static const nn_opdef mlp_seq_op = {"attn_mlp_seq", mlp_seq_bw};

nn_tensor *nn_attn_mlp_seq(nn_graph *g, nn_tensor *Q, nn_tensor *K, nn_tensor *v, int S) {
  if (g->failed || !nn_require(g, S > 0 && K->rows % S == 0 && Q->rows % (K->rows / S) == 0 &&
                                      Q->cols == K->cols && v->rows == 1 && v->cols == Q->cols,
                               "attn_mlp_seq: queries (%d,%d), keys (%d,%d) of %d positions, v (%d,%d)",
                               Q->rows, Q->cols, K->rows, K->cols, S, v->rows, v->cols))
    return NULL;
  int B = K->rows / S, T = Q->rows / B, A = Q->cols;
  nn_tensor *y = nn_new(g, T * B, S);
  float *tt = nn_floats(g, (size_t)B * S * A, NULL), *sc = nn_floats(g, (size_t)B * S, NULL);
  if (g->failed) return NULL;
  for (int t = 0; t < T; t++)
    g->be->attn_mlp_fwd(y->v + (size_t)t * B * S, tt, Q->v + (size_t)t * B * A, K->v, v->v, B, S, A);
  nn_entry *e = nn_record(g, &mlp_seq_op);
  if (e) *e = (nn_entry){.op = &mlp_seq_op, .in = {Q, K, v}, .out = {y}, .save = {tt, sc}};
  return y;
}

/* Sentence b's steps are rows b, B+b, ... of a and ctx: matrices of leading
 * dimension B*S and B*F; its memory is V's rows likewise (B*F). */
void nn_attn_context_seq_fwd(float *ctx, const float *a, const float *V, float scale, int T, int B,
                             int S, int F) {
  nn_gemm_batched(B, false, false, T, F, S, scale, a, B * S, S, V, B * F, F, 0, ctx, B * F, F);
}

void nn_attn_context_seq_bwd(float *da, float *dV, const float *dctx, const float *a,
                             const float *V, float scale, int T, int B, int S, int F) {
  if (da) /* da_b (T,S) += scale·dctx_b (T,F) · V_bᵀ */
    nn_gemm_batched(B, false, true, T, S, F, scale, dctx, B * F, F, V, B * F, F, 1, da, B * S, S);
  if (dV) /* dV_b (S,F) += scale·a_bᵀ (S,T) · dctx_b (T,F) */
    nn_gemm_batched(B, true, false, S, F, T, scale, a, B * S, S, dctx, B * F, F, 1, dV, B * F, F);
}

/* in: a, V; out: ctx; f[0]: scale. */
static void context_seq_bw(const nn_backend *be, const nn_entry *e) {
  nn_tensor *a = e->in[0], *V = e->in[1], *y = e->out[0];
  int S = a->cols, B = V->rows / S;
  be->attn_context_seq_bwd(a->g, V->g, y->g, a->v, V->v, e->f[0], a->rows / B, B, S, V->cols);
}
static const nn_opdef context_seq_op = {"attn_context_seq", context_seq_bw};

nn_tensor *nn_attn_context_seq(nn_graph *g, nn_tensor *a, nn_tensor *V, float scale) {
  int S = a->cols;
  if (g->failed || !nn_require(g, S > 0 && V->rows % S == 0 && a->rows % (V->rows / S) == 0,
                               "attn_context_seq: weights (%d,%d) for a memory of %d rows",
                               a->rows, a->cols, V->rows))
    return NULL;
  int B = V->rows / S, T = a->rows / B, F = V->cols;
  nn_tensor *y = nn_new(g, a->rows, F);
  if (!y) return NULL;
  g->be->attn_context_seq_fwd(y->v, a->v, V->v, scale, T, B, S, F);
  nn_entry *e = nn_record(g, &context_seq_op);
  if (e) *e = (nn_entry){.op = &context_seq_op, .in = {a, V}, .out = {y}, .f = {scale}};
  return y;
}
