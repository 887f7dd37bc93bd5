/* The backend table under the op layer: where a graph's tensors live and which
 * kernels compute on them. Every op calls its kernels through its graph's
 * table (g->be->gemm(...)), and the tape's allocation, zeroing and copies go
 * through it too, so one op code runs on the CPU (nn_cpu_backend, the
 * reference) and on a GPU (the CUDA table, lib/nn/cuda/nn_cuda_backend.c, built
 * by `make cuda` and `make emu` only, which a tool finds through nn/device.h).
 * The fields are the rows of nn/kernels.def, one list for every backend: a
 * kernel a backend lacks fails its link. */
#ifndef NMT_NN_BACKEND_H
#define NMT_NN_BACKEND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nn_backend {
  const char *name; /* "cpu", "cuda": for messages */
  bool host;        /* its memory is the host's: results may be written where the host reads them */
#define NN_MEMORY(r, k, p, a) r(*k) p;
#define NN_KERNEL(r, k, p, a) r(*k) p;
#include "nn/kernels.def"
} nn_backend;

/* The CPU: host memory (64-byte aligned) and the kernels of nn/kernels.h. */
extern const nn_backend nn_cpu_backend;

/* The CPU's memory rows. */
#define NN_MEMORY(r, k, p, a) r nn_host_##k p;
#include "nn/kernels.def"

#endif
