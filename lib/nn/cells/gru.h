/* The gated recurrent unit (Cho et al. 2014) in the form Nematus and the
 * RNNSearch systems of paper 001 use, the reset gate applied after the
 * recurrent product so that one GEMM per step serves all three gates:
 *   [x_r x_z x_n] = x_t·Wx + b      [h_r h_z h_n] = h_{t-1}·Wh
 *   r = σ(x_r + h_r)   z = σ(x_z + h_z)   n = tanh(x_n + r⊙h_n)
 *   h_t = z⊙h_{t-1} + (1-z)⊙n
 * The input side of all steps is one GEMM (T*B,3H); each step adds one
 * recurrent GEMM (nn_recur) and the fused cell below. */
#ifndef NMT_NN_CELLS_GRU_H
#define NMT_NN_CELLS_GRU_H
#include "nn/tape.h"

/* The tape op: writes h_out (B,H), which the caller allocates. mask (B) in the
 * arena, or NULL. */
void nn_gru_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *h_prev, const float *mask,
                 nn_tensor *h_out);

typedef struct {
  nn_tensor *Wx; /* (E,3H) */
  nn_tensor *Wh; /* (H,3H) */
  nn_tensor *b;  /* (1,3H) */
} nn_gru_w;

/* A layer over X (T*B,E) time-major, mask (T*B) or NULL, initial state h0
 * (B,H) or NULL (zeros) → outputs (T*B,H); padding carries the state. */
nn_tensor *nn_gru_layer(nn_graph *g, const nn_gru_w *w, nn_tensor *X, const float *mask, int T,
                        nn_tensor *h0);

#endif
