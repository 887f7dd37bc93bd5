/* What the cell tests share: three sentences of lengths 4, 2 and 3 over T = 4
 * steps (step_mask, time-major), the parameter views as tensors, and the check
 * of a whole masked layer. */
#ifndef NMT_TESTS_NN_CELLS_CELL_CASE_H
#define NMT_TESTS_NN_CELLS_CELL_CASE_H
#include "nn/grad_check.h"
#include <math.h>

enum { B = 3, H = 4, E = 5, T = 4 };
extern const float step_mask[T * B];

static inline nn_tensor *P(nn_graph *g, nn_params *p, int i) { return nn_param(g, p, i); }
static inline double sigm(double x) { return 1 / (1 + exp(-x)); }

/* A layer built over step_mask: views [w0, w1] of p (its weight matrices) halved so
 * the gates are not saturated, then the finite-difference check, then: past its
 * end a sentence keeps its last state (every column of the output). */
void t_cell_check_layer_at(const char *file, int line, nn_params *p, int w0, int w1, t_nn_build build,
                           void *ctx);
#define T_CELL_CHECK_LAYER(p, w0, w1, build, ctx) t_cell_check_layer_at(__FILE__, __LINE__, p, w0, w1, build, ctx)

#endif
