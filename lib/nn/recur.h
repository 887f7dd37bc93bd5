/* The recurrent weight of a cell: x_t·W for each step t, with W's gradient
 * taken once over all steps. */
#ifndef NMT_NN_RECUR_H
#define NMT_NN_RECUR_H
#include "nn/tape.h"

/* A weight W (In,Out) applied step by step to a sequence, x_t·W added into
 * rows [t*B, (t+1)*B) of Y (T*B,Out) (e.g. the gates' input projection). The
 * step inputs are kept as rows of one (T*B,In) matrix X so that backward takes
 * W's gradient once, dW += Xᵀ·dY, instead of one small GEMM per step; per step
 * only dx_t += dY_t·Wᵀ remains. Any step order works; each step once. */
typedef struct {
  nn_tensor *W, *Y;
  float *X;  /* (T*B, In) step inputs (training only) */
  const float *PW; /* W packed (nn/pgemm.h), once per batch for the T products */
  const float *PT; /* Wᵀ packed (training only), for dx_t */
  int T, B;
} nn_recur;

/* Y (T*B,Out) to add into, or NULL for a new zeroed one (r->Y). Records the
 * weight-gradient entry, which the tape replays after every step's. */
bool nn_recur_begin(nn_graph *g, nn_recur *r, nn_tensor *W, nn_tensor *Y, int T, int B);
/* Y rows of step t += x (B,In)·W; returns those rows. */
nn_tensor *nn_recur_step(nn_graph *g, nn_recur *r, int t, nn_tensor *x);

#endif
