/* Max-pooling over time: each feature's largest value over a sentence's real
 * positions (Deep-ED's fixed source representation, Zhou et al. 2016). */
#ifndef NMT_NN_MAXPOOL_H
#define NMT_NN_MAXPOOL_H
#include "nn/tape.h"

/* Kernels in the nn/kernels.h style. X (S*B,F) time-major, mask (S*B) 1 real
 * 0 padding (NULL: all real): y (B,F) = max over s with mask[s*B+b] != 0;
 * arg (B,F) the row s*B+b it came from (-1 and y = 0 for an empty sentence).
 * Backward: dX[arg] += dy. */
void nn_maxpool_time_fwd(float *y, int *arg, const float *X, const float *mask, int S, int B,
                         int F);
void nn_maxpool_time_bwd(float *dX, const int *arg, const float *dy, int B, int F);

/* The tape op: X (S*B,F) → (B,F). */
nn_tensor *nn_max_over_time(nn_graph *g, nn_tensor *X, const float *mask, int S);

#endif
