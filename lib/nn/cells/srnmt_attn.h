/* Attention for all T decoder steps at once, over a time-major memory
 * (S*B, F) (row s*B+b: position s of sentence b). Query row t*B+b belongs to
 * sentence b. SR-NMT's decoder attention depends only on the scan states, so
 * training computes it for every step as batched ops; decoding calls the same
 * ops with T = 1, so both run the same arithmetic. */
#ifndef NMT_NN_CELLS_SRNMT_ATTN_H
#define NMT_NN_CELLS_SRNMT_ATTN_H
#include "nn/tape.h"

/* score[t*B+b, s] = vᵀ tanh(Q[t*B+b] + K[s*B+b]): Q (T*B,A), K (S*B,A), v (1,A)
 * → (T*B, S), B = K->rows / S. The tanh values are recomputed in backward, one
 * step at a time, instead of keeping T*B*S*A floats. */
nn_tensor *nn_attn_mlp_seq(nn_graph *g, nn_tensor *Q, nn_tensor *K, nn_tensor *v, int S);
/* ctx[t*B+b] = scale·Σ_s a[t*B+b, s]·V[s*B+b]: a (T*B,S), V (S*B,F) → (T*B,F),
 * one GEMM per sentence over all steps. */
nn_tensor *nn_attn_context_seq(nn_graph *g, nn_tensor *a, nn_tensor *V, float scale);

#endif
