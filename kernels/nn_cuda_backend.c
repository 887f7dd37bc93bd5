/* The CUDA backend table: the rows of lib/nn/kernels.def bound to the nnc_
 * functions of the kernels/ .cu files. Built only into CUDA and emulated programs; a row
 * without its nnc_ function fails their link. */
#include "nn/backend.h"
#include "nn_cuda.h"

const nn_backend nn_cuda_backend = {
    .name = "cuda",
#define NN_MEMORY(r, k, p, a) .k = nnc_##k,
#define NN_KERNEL(r, k, p, a) .k = nnc_##k,
#include "nn/kernels.def"
};
