/* The highway of SRU and SR-NMT (nn/cells/wscan.h has the whole unit):
 *   y_t = (1 - σ(z_t))⊙a_t + σ(z_t)⊙x_t
 * with z_t a learned projection of the input. */
#ifndef NMT_NN_CELLS_HIGHWAY_H
#define NMT_NN_CELLS_HIGHWAY_H
#include "nn/tape.h"

/* The tape op. The highway (1 - σ(z))⊙a + σ(z)⊙x with z columns [z0, z0 + H) of Z (R, >=
 * z0 + H), a and x (R, H). */
nn_tensor *nn_highway(nn_graph *g, nn_tensor *Z, int z0, nn_tensor *a, nn_tensor *x);

#endif
