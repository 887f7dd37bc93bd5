/* The CPU reference implementation of the op layer's kernels: every row of
 * nn/kernels.def as nn_NAME, defined in lib/nn and lib/nn/cells. The ops call
 * them through the graph's backend table (nn/backend.h), so that the same op
 * code runs the CUDA kernels (lib/nn/cuda/nn_cuda.h, nnc_NAME); a CPU kernel may
 * call another directly. Each row's contract is in nn/kernels.def. */
#ifndef NMT_NN_KERNELS_H
#define NMT_NN_KERNELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NN_KERNEL(r, k, p, a) r nn_##k p;
#include "nn/kernels.def"

#endif
