/* The LSTM cell with peephole connections (Gers & Schmidhuber 2000), as Zhou
 * et al. 2016 (Deep-Att) use it: the input and forget gates look at the
 * previous cell state, the output gate at the new one, each through a
 * diagonal weight θ (one vector per gate):
 *   i = σ(z_i + θ_i⊙c_prev), f = σ(z_f + θ_f⊙c_prev), g = tanh(z_g),
 *   c = f⊙c_prev + i⊙g, o = σ(z_o + θ_o⊙c), h = o⊙tanh(c),
 * with the gate pre-activations z = gx + gh in the order i, f, o, g of the
 * plain cell (nn/cells/lstm.h), whose kernels these mirror. */
#ifndef NMT_NN_LSTM_PEEP_H
#define NMT_NN_LSTM_PEEP_H
#include "nn/tape.h"

/* Kernels in the nn/kernels.h style. peep (3H): θ_i, θ_f, θ_o. gh may be
 * NULL. Where mask[b] == 0 the state is carried. act (B,5H) keeps the
 * activated gates i, f, o, g and tanh(c) for backward. */
void nn_lstm_peep_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                      const float *peep, const float *h_prev, const float *c_prev,
                      const float *mask, int B, int H);
/* From dh, dc (B,H): dgx, dgh (B,4H), dpeep (3H), dh_prev, dc_prev (B,H) +=;
 * any of them may be NULL. */
void nn_lstm_peep_bwd(float *dgx, float *dgh, float *dpeep, float *dh_prev, float *dc_prev,
                      const float *dh, const float *dc, const float *act, const float *peep,
                      const float *c, const float *c_prev, const float *mask, int B, int H);

/* The tape op: as nn_lstm_cell with peep (1,3H); peep NULL is the plain cell. */
void nn_lstm_peep_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *peep,
                       nn_tensor *h_prev, nn_tensor *c_prev, const float *mask, nn_tensor *h_out,
                       nn_tensor *c_out);

#endif
