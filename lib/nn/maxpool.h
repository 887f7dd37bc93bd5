/* Max-pooling over time: each feature's largest value over a sentence's real
 * positions (Deep-ED's fixed source representation, Zhou et al. 2016). */
#ifndef NMT_NN_MAXPOOL_H
#define NMT_NN_MAXPOOL_H
#include "nn/tape.h"

/* The tape op: X (S*B,F) → (B,F). */
nn_tensor *nn_max_over_time(nn_graph *g, nn_tensor *X, const float *mask, int S);

#endif
