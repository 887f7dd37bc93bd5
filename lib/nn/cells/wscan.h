/* Weakly-recurrent units: the SRU (Lei et al. 2017) and the SR-NMT unit (Di
 * Gangi & Federico 2018, paper 000). Their recurrence has no weight matrix, so
 * a layer is one GEMM over all timesteps (candidate, gate and highway gate
 * per unit) followed by one elementwise scan over time and a highway:
 *
 *   c_t = (1 - σ(g_t))⊙c_{t-1} + σ(g_t)⊙x̃_t           (the scan)
 *   y_t = (1 - σ(z_t))⊙a_t + σ(z_t)⊙x_t                 (the highway)
 *
 * with a_t = c_t (SR-NMT encoder), tanh(c_t) (SRU) or the attention output
 * (SR-NMT decoder). SRU's forget gate f = 1 - σ(g) and reset gate
 * r = 1 - σ(z) are the same functions of a learned projection.
 *
 * A projection G (T*B, ldg) holds, per row, the candidates x̃ in columns
 * [0, H) and the gates g in [H, 2H). Units [0, Hf) scan forward in time and
 * units [Hf, H) backward (a bidirectional layer: Hf = H/2), each from c0 (or
 * zero). Where mask is 0 (padding) the state is carried unchanged, so the
 * forward units' rows of step T-1 hold each sentence's final state and the
 * backward units start at a sentence's last real token from c0. */
#ifndef NMT_NN_CELLS_WSCAN_H
#define NMT_NN_CELLS_WSCAN_H
#include "nn/tape.h"

/* The tape op: the scan over G (T*B, >= 2H) → c (T*B, H); c0 (B, H) or NULL;
 * mask (T*B) in the arena or NULL. */
nn_tensor *nn_wscan(nn_graph *g, nn_tensor *G, nn_tensor *c0, const float *mask, int T, int H,
                    int Hf);
#endif
