/* The LSTM layer (Hochreiter & Schmidhuber 1997, as in Luong 2015): the input
 * projection for all timesteps is one GEMM; each step adds one recurrent GEMM
 * and runs the fused cell (nn_lstm_cell_fwd/bwd in nn/kernels.h). The
 * recurrent weight's gradient is one GEMM over all steps (nn_recur). */
#ifndef NMT_NN_CELLS_LSTM_H
#define NMT_NN_CELLS_LSTM_H
#include "nn/recur.h"
#include <string.h>

/* One step. gx (B,4H): input projection plus bias; gh (B,4H) recurrent part or
 * NULL; h_prev, c_prev (B,H); mask (B) or NULL (1 = real token, 0 = padding:
 * state carried). Writes h_out, c_out (B,H), which the caller allocates (e.g.
 * row views of a sequence tensor). */
void nn_lstm_cell(nn_graph *g, nn_tensor *gx, nn_tensor *gh, nn_tensor *h_prev, nn_tensor *c_prev,
                  const float *mask, nn_tensor *h_out, nn_tensor *c_out);

/* The cells' backward (plain and peephole) in passes of this many hidden units
 * through stack buffers dz[4][NN_LSTM_CHUNK]; this adds the four gate
 * gradients of units [k0, k0+n) to d (B,4H) unless d is NULL. */
enum { NN_LSTM_CHUNK = 256 };
static inline void nn_lstm_add_gates(float *d, float (*dz)[NN_LSTM_CHUNK], int k0, int n, int units) {
  for (int q = 0; d && q < 4; q++)
    for (int k = 0; k < n; k++) d[q * units + k0 + k] += dz[q][k];
}

/* Both cells' padded rows (mask 0) carry the state, h = h_prev and c = c_prev, so
 * their gradients pass straight back. Each does its row b's part and says whether
 * row b was padding. */
static inline bool nn_lstm_carry_fwd(const float *mask, int b, float *h, float *c,
                                     const float *h_prev, const float *c_prev, int units) {
  if (!mask || mask[b] != 0) return false;
  memcpy(h, h_prev, (size_t)units * sizeof *h);
  memcpy(c, c_prev, (size_t)units * sizeof *c);
  return true;
}
static inline bool nn_lstm_carry_bwd(const float *mask, int b, float *dh_prev, float *dc_prev,
                                     const float *dh, const float *dc, int units) {
  if (!mask || mask[b] != 0) return false;
  for (int k = 0; dh_prev && k < units; k++) dh_prev[k] += dh[k];
  for (int k = 0; dc_prev && k < units; k++) dc_prev[k] += dc[k];
  return true;
}

typedef struct {
  nn_tensor *Wx; /* (E,4H) */
  nn_tensor *Wh; /* (H,4H) */
  nn_tensor *b;  /* (1,4H) */
} nn_lstm_w;

/* A layer over X (T*B, E) time-major, mask (T*B) or NULL, initial state h0,
 * c0 (B,H) (NULL: zeros). Returns the outputs (T*B, H); *c_seq gets the cell
 * states (T*B, H). Through padding the state is carried, so rows of step T-1
 * are each sentence's final state. */
nn_tensor *nn_lstm_layer(nn_graph *g, const nn_lstm_w *w, nn_tensor *X, const float *mask, int T,
                         nn_tensor *h0, nn_tensor *c0, nn_tensor **c_seq);

#endif
