/* The addition-subtraction twin-gated recurrent unit (ATR, Zhang et al. 2018,
 * paper 001): two weight matrices, one over the input and one over the history.
 *   q_t = x_t·Wx        p_t = h_{t-1}·Wh + b
 *   i_t = σ(q_t + p_t)  f_t = σ(q_t - p_t)
 *   h_t = i_t⊙q_t + f_t⊙h_{t-1}
 * As the authors' code (bzhangGo/zero, rnns/atr.py) has it, which the paper's
 * eq. 8 writes the other way round, f = σ(p - q); on 300 Multi30k pairs the
 * code's sign reached a training loss of 2.8 where the paper's reached 3.6
 * (docs/models.md). The bias sits on the history side, as in that
 * code: it shifts both gates without adding a constant into h every step,
 * which would accumulate, h having no squashing nonlinearity.
 * The input side of all steps is one GEMM; each step adds one recurrent GEMM
 * (nn_recur, weight gradient once per batch) and the fused cell below. */
#ifndef NMT_NN_CELLS_ATR_H
#define NMT_NN_CELLS_ATR_H
#include "nn/tape.h"

/* The tape op: writes h_out (B,H), which the caller allocates (e.g. a row view
 * of a sequence). mask (B) in the arena, or NULL. */
void nn_atr_cell(nn_graph *g, nn_tensor *q, nn_tensor *p, nn_tensor *h_prev, const float *mask,
                 nn_tensor *h_out);

typedef struct {
  nn_tensor *Wx; /* (E,H) */
  nn_tensor *Wh; /* (H,H) */
  nn_tensor *b;  /* (1,H) history side */
} nn_atr_w;

/* A layer over X (T*B,E) time-major, mask (T*B) or NULL, initial state h0
 * (B,H) or NULL (zeros) → outputs (T*B,H). Through padding the state is
 * carried, so the rows of step T-1 hold each sentence's final state. */
nn_tensor *nn_atr_layer(nn_graph *g, const nn_atr_w *w, nn_tensor *X, const float *mask, int T,
                        nn_tensor *h0);

#endif
