/* Finite-difference gradient checks for the engine tests. */
#ifndef NMT_TESTS_NN_GRAD_CHECK_H
#define NMT_TESTS_NN_GRAD_CHECK_H
#include "nn/tape.h"

/* Builds a forward pass from the weights in p and returns its output. */
typedef nn_tensor *(*t_nn_build)(nn_graph *g, nn_params *p, void *ctx);

/* L = Σ R⊙out with R a fixed random projection (Philox, ±1). Compares dL/dw
 * from the tape with double-sided differences (L(w+eps) - L(w-eps)) / 2eps for
 * every weight of p: fails when |a - n| > atol + rtol·max(|a|,|n|) anywhere.
 * The weights are left as they were. */
void t_nn_gradcheck_at(const char *file, int line, nn_params *p, t_nn_build build, void *ctx);
#define T_NN_GRADCHECK(p, build, ctx) t_nn_gradcheck_at(__FILE__, __LINE__, p, build, ctx)

/* A params buffer with views of the given shapes ({rows, cols} pairs, n of
 * them, named "x0", "x1", ...) filled with U(-1, 1) from seed. */
void t_nn_params(nn_params *p, int n, const int (*shapes)[2], uint64_t seed);

#endif
