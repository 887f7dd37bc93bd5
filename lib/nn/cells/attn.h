/* Attention ops over a time-major memory (S*B, F) — row s*B+b is source
 * position s of sentence b (the Luong layer built on them: nn/cells/luong_attn.h). */
#ifndef NMT_NN_CELLS_ATTN_H
#define NMT_NN_CELLS_ATTN_H
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

#endif
