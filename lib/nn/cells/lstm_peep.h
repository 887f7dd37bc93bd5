/* The LSTM cell with peephole connections (Gers & Schmidhuber 2000), as Zhou
 * et al. 2016 (Deep-Att) use it: the input and forget gates look at the
 * previous cell state, the output gate at the new one, each through a
 * diagonal weight θ (one vector per gate):
 *   i = σ(z_i + θ_i⊙c_prev), f = σ(z_f + θ_f⊙c_prev), g = tanh(z_g),
 *   c = f⊙c_prev + i⊙g, o = σ(z_o + θ_o⊙c), h = o⊙tanh(c),
 * with the gate pre-activations z = gx + gh in the order i, f, o, g of the
 * plain cell (nn/cells/lstm.h), whose kernels these mirror. */
#ifndef NMT_NN_CELLS_LSTM_PEEP_H
#define NMT_NN_CELLS_LSTM_PEEP_H
#include "nn/tape.h"

/* The tape op: as nn_lstm_cell with peep (1,3H); peep NULL is the plain cell. */
void nn_lstm_peep_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *peep,
                       nn_tensor *h_prev, nn_tensor *c_prev, const float *mask, nn_tensor *h_out,
                       nn_tensor *c_out);

#endif
