/* The backend-neutral op API: every kernel takes plain float pointers and
 * explicit shapes, no tensors, no tape, no allocation. lib/nn/ and lib/nn/cells/ hold the CPU
 * reference implementation; a CUDA backend implements the same signatures in
 * kernels/ (see docs/engine.md). Backward kernels accumulate (+=) into input
 * gradients, which may be NULL when an input needs none.
 * Shapes: B batch, S source positions, H/A hidden sizes, R rows, C columns. */
#ifndef NMT_NN_KERNELS_H
#define NMT_NN_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* C (M,N) = alpha·op(A)·op(B) + beta·C, row-major, op = transpose when ta/tb. */
void nn_gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
             const float *B, int ldb, float beta, float *C, int ldc);
/* The same for `batch` independent problems, matrix i at A + i*sa, B + i*sb, C + i*sc. */
void nn_gemm_batched(int batch, bool ta, bool tb, int M, int N, int K, float alpha,
                     const float *A, int lda, long sa, const float *B, int ldb, long sb,
                     float beta, float *C, int ldc, long sc);

/* dst (C,R) = srcᵀ for src (R,C), both dense. */
void nn_transpose(float *dst, const float *src, int R, int C);

/* Pointwise over n elements. */
void nn_sigmoid_fwd(float *y, const float *x, size_t n);
void nn_sigmoid_bwd(float *dx, const float *y, const float *dy, size_t n);
void nn_tanh_fwd(float *y, const float *x, size_t n);
void nn_tanh_bwd(float *dx, const float *y, const float *dy, size_t n);
/* y = a + sb·b (add: sb = 1, sub: sb = -1); da += dy, db += sb·dy. */
void nn_axpby_fwd(float *y, const float *a, const float *b, float sb, size_t n);
void nn_axpby_bwd(float *da, float *db, const float *dy, float sb, size_t n);
void nn_mul_fwd(float *y, const float *a, const float *b, size_t n);
void nn_mul_bwd(float *da, float *db, const float *a, const float *b, const float *dy, size_t n);
void nn_scale_fwd(float *y, const float *x, float s, size_t n);
void nn_scale_bwd(float *dx, const float *dy, float s, size_t n);
/* y (R,C) = x + bias (1,C); dx += dy, dbias += Σ_rows dy. */
void nn_bias_fwd(float *y, const float *x, const float *bias, int R, int C);
void nn_bias_bwd(float *dx, float *dbias, const float *dy, int R, int C);

/* dst (R,C) (leading dim ldd) = beta·dst + src (leading dim lds): concat, slice
 * and their backward are column-block copies. */
void nn_copy_cols(float *dst, int ldd, const float *src, int lds, int R, int C, float beta);
/* y (N,D) = E[ids]; dE[ids[i]] += dy[i]. */
void nn_gather_fwd(float *y, const float *E, const int *ids, int N, int D);
void nn_gather_bwd(float *dE, const int *ids, const float *dy, int N, int D);

/* Layer norm over the C features of each row; mean, rstd (R) saved for backward. */
void nn_layernorm_fwd(float *y, float *mean, float *rstd, const float *x, const float *gain,
                      const float *bias, int R, int C, float eps);
void nn_layernorm_bwd(float *dx, float *dgain, float *dbias, const float *dy, const float *x,
                      const float *mean, const float *rstd, const float *gain, int R, int C);
/* Softmax of each row over the columns where mask (R,C) is nonzero (all when
 * mask is NULL); masked entries are 0. A fully masked row is all 0. */
void nn_softmax_fwd(float *y, const float *x, const float *mask, int R, int C);
void nn_softmax_bwd(float *dx, const float *y, const float *dy, int R, int C);
/* Label-smoothed cross-entropy of logits (R,V) against targets (R); rows with
 * target == pad are skipped. Per row: (1-ls)·(-log p_y) + ls·mean_v(-log p_v).
 * prob (R,V) keeps the softmax for backward. Returns the summed loss (double);
 * *ntokens gets the rows counted. */
double nn_xent_fwd(float *prob, const float *logits, const int *targets, int R, int V, int pad,
                   float ls, long *ntokens);
/* dlogits += dloss·(prob - target distribution) on counted rows. */
void nn_xent_bwd(float *dlogits, const float *prob, const int *targets, int R, int V, int pad,
                 float ls, float dloss);
/* Inverted dropout: keep (n) = 1/(1-p) or 0 from Philox (seed, stream, offset+i);
 * y = x·keep. */
void nn_dropout_fwd(float *y, float *keep, const float *x, size_t n, float p, uint64_t seed,
                    uint64_t stream, uint64_t offset);
void nn_dropout_bwd(float *dx, const float *keep, const float *dy, size_t n);

/* The fused LSTM cell, gates (B,4H) = gx + gh in order i, f, o, g:
 * c = f⊙c_prev + i⊙g, h = o⊙tanh(c), with i, f, o sigmoid and g tanh. Where
 * mask[b] == 0 (padding) the state is carried: h = h_prev, c = c_prev.
 * act (B,5H) keeps the activated gates and tanh(c) for backward. gh may be NULL. */
void nn_lstm_cell_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                      const float *h_prev, const float *c_prev, const float *mask, int B, int H);
/* From dh, dc (B,H): dgx and dgh (B,4H) += dgates, dh_prev, dc_prev (B,H) +=. */
void nn_lstm_cell_bwd(float *dgx, float *dgh, float *dh_prev, float *dc_prev, const float *dh,
                      const float *dc, const float *act, const float *c, const float *c_prev,
                      const float *mask, int B, int H);

/* Attention over a time-major memory K or V (S*B, F): row s*B+b is position s
 * of sentence b, so sentence b is a (S,F) matrix with leading dim B*F.
 * Dot scores: score (B,S) = q (B,F) · K_bᵀ. */
void nn_attn_dot_fwd(float *score, const float *q, const float *K, int B, int S, int F);
void nn_attn_dot_bwd(float *dq, float *dK, const float *dscore, const float *q, const float *K,
                     int B, int S, int F);
/* MLP scores: score[b,s] = Σ_a v[a]·tanh(q[b,a] + K[s*B+b,a]); t (B,S,A) saved. */
void nn_attn_mlp_fwd(float *score, float *t, const float *q, const float *K, const float *v,
                     int B, int S, int A);
void nn_attn_mlp_bwd(float *dq, float *dK, float *dv, const float *dscore, const float *t,
                     const float *v, int B, int S, int A);
/* Context: ctx (B,F) = Σ_s a[b,s]·V[s*B+b]. */
void nn_attn_context_fwd(float *ctx, const float *a, const float *V, int B, int S, int F);
void nn_attn_context_bwd(float *da, float *dV, const float *dctx, const float *a, const float *V,
                         int B, int S, int F);
/* Local-p window (Luong 2015): p_b = len[b]·sig[b], w[b,s] = a[b,s]·exp(-(s-p_b)²/2σ²)
 * for |s - p_b| <= D, else 0; σ = D/2. */
void nn_attn_local_fwd(float *w, const float *a, const float *sig, const int *len, int B, int S,
                       float D);
void nn_attn_local_bwd(float *da, float *dsig, const float *dw, const float *a, const float *sig,
                       const int *len, int B, int S, float D);

#endif
