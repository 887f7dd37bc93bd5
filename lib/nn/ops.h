/* Tape ops on tensors: each checks shapes, runs its kernel through the
 * graph's backend (nn/backend.h) and, when training, records its backward.
 * Float/int arrays passed to ops (masks, ids, lengths) are the backend's
 * memory and must live until backward: nn_floats/nn_ints copy them there.
 * Ids and targets must be in range: the ops cannot read them (on a GPU they
 * live there), so the callers check them (nmt_net_forward a batch's).
 * Shapes in comments: (rows, cols). */
#ifndef NMT_NN_OPS_H
#define NMT_NN_OPS_H
#include "nn/tape.h"

/* op(a)·op(b): a (M,K) or (K,M) when ta, b (K,N) or (N,K) when tb → (M,N). */
nn_tensor *nn_matmul(nn_graph *g, nn_tensor *a, bool ta, nn_tensor *b, bool tb);
/* x (R,In)·W (In,Out) + bias (1,Out), one tensor instead of two: the bias is
 * the GEMM's initial C. */
nn_tensor *nn_linear(nn_graph *g, nn_tensor *x, nn_tensor *W, nn_tensor *bias);
/* C (M, n) = A (M, W->rows)·W[:, 0:n] + beta·C (beta 0 or 1), through W's int8
 * copy when it has one (inference, nn_params_quantize). The forward product of
 * every op that multiplies by a weight; false (g failed) when out of memory. */
bool nn_gemm_weights(nn_graph *g, int M, int n, const float *A, int lda, const nn_tensor *W,
                     float beta, float *C, int ldc);
/* x (R,C) + bias (1,C). */
nn_tensor *nn_add_bias(nn_graph *g, nn_tensor *x, nn_tensor *bias);

nn_tensor *nn_sigmoid(nn_graph *g, nn_tensor *x);
nn_tensor *nn_tanh(nn_graph *g, nn_tensor *x);
nn_tensor *nn_add(nn_graph *g, nn_tensor *a, nn_tensor *b);
nn_tensor *nn_sub(nn_graph *g, nn_tensor *a, nn_tensor *b);
nn_tensor *nn_mul(nn_graph *g, nn_tensor *a, nn_tensor *b);
nn_tensor *nn_scale(nn_graph *g, nn_tensor *x, float s);
/* x + s elementwise. */
nn_tensor *nn_shift(nn_graph *g, nn_tensor *x, float s);

/* [a b] along features: a (R,Ca), b (R,Cb) → (R, Ca+Cb). */
nn_tensor *nn_concat(nn_graph *g, nn_tensor *a, nn_tensor *b);
/* Columns [c0, c0+n) of x (R,C) → (R,n). */
nn_tensor *nn_slice(nn_graph *g, nn_tensor *x, int c0, int n);
/* xs[0..n) each (R,C) stacked along rows → (n*R, C): per-step outputs into a
 * time-major sequence. */
nn_tensor *nn_stack(nn_graph *g, nn_tensor **xs, int n);
/* Rows ids[0..n) of the table E (V,D) → (n,D); backward scatter-adds. */
nn_tensor *nn_embed(nn_graph *g, nn_tensor *E, const int *ids, int n);

/* Layer norm of each row, gain and bias (1,C). */
nn_tensor *nn_layernorm(nn_graph *g, nn_tensor *x, nn_tensor *gain, nn_tensor *bias, float eps);
/* Row softmax of x (R,C) over mask (R,C) != 0 (NULL: all). */
nn_tensor *nn_softmax(nn_graph *g, nn_tensor *x, const float *mask);
/* Summed label-smoothed NLL of logits (R,V) vs targets (R), skipping target
 * == pad → (1,1); *ntokens gets the rows counted. */
nn_tensor *nn_xent(nn_graph *g, nn_tensor *logits, const int *targets, int pad, float ls,
                   long *ntokens);
/* Inverted dropout with rate p (identity when not training or p == 0). The
 * mask comes from Philox with key g->seed and counter (element/4, g->part,
 * op number this step, g->step): see nn/dropout.c. */
nn_tensor *nn_dropout(nn_graph *g, nn_tensor *x, float p);

#endif
