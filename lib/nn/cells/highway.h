/* The highway of SRU and SR-NMT (nn/cells/wscan.h has the whole unit):
 *   y_t = (1 - σ(z_t))⊙a_t + σ(z_t)⊙x_t
 * with z_t a learned projection of the input. */
#ifndef NMT_NN_HIGHWAY_H
#define NMT_NN_HIGHWAY_H
#include "nn/tape.h"

/* y (R, H) = (1 - σ(z))⊙a + σ(z)⊙x with z the H columns at Z (leading dim
 * ldz); sz (R, H) keeps σ(z). */
void nn_highway_fwd(float *y, float *sz, const float *Z, int ldz, const float *a, const float *x,
                    int R, int H);
void nn_highway_bwd(float *dZ, int ldz, float *da, float *dx, const float *dy, const float *sz,
                    const float *a, const float *x, int R, int H);

/* The tape op. The highway (1 - σ(z))⊙a + σ(z)⊙x with z columns [z0, z0 + H) of Z (R, >=
 * z0 + H), a and x (R, H). */
nn_tensor *nn_highway(nn_graph *g, nn_tensor *Z, int z0, nn_tensor *a, nn_tensor *x);

#endif
