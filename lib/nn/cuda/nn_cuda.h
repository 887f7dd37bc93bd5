/* The CUDA backend of the op API: every row of lib/nn/kernels.def with the
 * prefix nnc_ instead of nn_, the same arguments and the same (+=) semantics,
 * on device pointers (ids, targets, lengths and masks too). Usable from C.
 * Kernels run in order on one stream and return at once; a failed launch or
 * cuBLAS call is recorded (the first one is kept) and reported by nnc_sync. */
#ifndef NMT_NN_CUDA_NN_CUDA_H
#define NMT_NN_CUDA_NN_CUDA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- runtime (nn_cuda_runtime.cu); the int results are NMT statuses (base/err.h) ---- */

/* Select `device`, create the stream and the cuBLAS handle. NMT_EIO with
 * "no CUDA device found (...)" when there is no usable GPU or driver,
 * NMT_EUSAGE with "CUDA device N does not exist (K found)" for a bad index. */
int nnc_init(int device);
/* The GPUs this process sees; 0 without a usable driver. */
int nnc_count(void);
/* Release the stream, the cuBLAS handle and the scratch buffer. */
void nnc_shutdown(void);
/* "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)" for the initialised device. */
void nnc_describe(char *buf, size_t n);
/* Wait for the stream; NMT_EIO with the first recorded CUDA/cuBLAS error. */
int nnc_sync(void);
/* GEMMs on TF32 tensor cores (10-bit mantissa inputs, fp32 accumulation). */
void nnc_set_tf32(bool on);

/* The CUDA backend table (nn_cuda_backend.c): the rows below as nn/backend.h's
 * fields. The tools reach it through nn/device.h's nmt_cuda_gpu; tests by name. */
struct nn_backend;
extern const struct nn_backend nn_cuda_backend;

/* ---- memory and the op API: the rows of lib/nn/kernels.def, each row's
 * contract there ---- */
#define NN_MEMORY(r, k, p, a) r nnc_##k p;
#define NN_KERNEL(r, k, p, a) r nnc_##k p;
#include "nn/kernels.def"

#ifdef __cplusplus
}
#endif
#endif
