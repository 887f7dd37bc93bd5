/* The CUDA backend table: the rows of lib/nn/kernels.def bound to the nnc_
 * functions of this folder's .cu files, and the backend's entry that
 * nn/device.c finds (nmt_cuda_gpu). Built only into CUDA and emulated
 * programs; a row without its nnc_ function fails their link. */
#include "nn/backend.h"
#include "nn/cuda/nn_cuda.h"
#include "nn/device.h"

#ifndef NMT_CUDA_EMU
const nn_backend nn_cuda_backend = {
    .name = "cuda",
#define NN_MEMORY(r, k, p, a) .k = nnc_##k,
#define NN_KERNEL(r, k, p, a) .k = nnc_##k,
#include "nn/kernels.def"
};
#else
/* On the emulator the kernels run on the host, so a kernel given a host array
 * (ids built on the host and never copied, say) would read it without
 * complaint where a GPU faults. There each kernel row first checks that every
 * pointer it is given is device memory (the loss's token count, a host
 * pointer by contract, excepted). */
#include "emu_control.h"

static void device_arg(const char *kernel, int index, const void *p) {
  if (p) emu_check_kernel_pointer(kernel, index, p);
}
static void plain_arg(const char *kernel, int index, ...) {}
#define ARG(k, i, x)                                                                        \
  _Generic((x), float *: device_arg, const float *: device_arg, int *: device_arg,         \
           const int *: device_arg, default: plain_arg)(k, i, x)

/* ARG for each of up to 20 arguments, numbered from 1. */
#define NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, \
            _20, n, ...) n
#define COUNT(...) NTH(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define CAT(a, b) CAT_(a, b)
#define CAT_(a, b) a##b
#define EACH(k, ...) EACH_N(k, COUNT(__VA_ARGS__), __VA_ARGS__)
#define EACH_N(k, n, ...) CAT(EACH_, n)(k, n, __VA_ARGS__)
#define EACH_1(k, n, x) ARG(k, n, x)
#define EACH_2(k, n, x, ...) ARG(k, n - 1, x); EACH_1(k, n, __VA_ARGS__)
#define EACH_3(k, n, x, ...) ARG(k, n - 2, x); EACH_2(k, n, __VA_ARGS__)
#define EACH_4(k, n, x, ...) ARG(k, n - 3, x); EACH_3(k, n, __VA_ARGS__)
#define EACH_5(k, n, x, ...) ARG(k, n - 4, x); EACH_4(k, n, __VA_ARGS__)
#define EACH_6(k, n, x, ...) ARG(k, n - 5, x); EACH_5(k, n, __VA_ARGS__)
#define EACH_7(k, n, x, ...) ARG(k, n - 6, x); EACH_6(k, n, __VA_ARGS__)
#define EACH_8(k, n, x, ...) ARG(k, n - 7, x); EACH_7(k, n, __VA_ARGS__)
#define EACH_9(k, n, x, ...) ARG(k, n - 8, x); EACH_8(k, n, __VA_ARGS__)
#define EACH_10(k, n, x, ...) ARG(k, n - 9, x); EACH_9(k, n, __VA_ARGS__)
#define EACH_11(k, n, x, ...) ARG(k, n - 10, x); EACH_10(k, n, __VA_ARGS__)
#define EACH_12(k, n, x, ...) ARG(k, n - 11, x); EACH_11(k, n, __VA_ARGS__)
#define EACH_13(k, n, x, ...) ARG(k, n - 12, x); EACH_12(k, n, __VA_ARGS__)
#define EACH_14(k, n, x, ...) ARG(k, n - 13, x); EACH_13(k, n, __VA_ARGS__)
#define EACH_15(k, n, x, ...) ARG(k, n - 14, x); EACH_14(k, n, __VA_ARGS__)
#define EACH_16(k, n, x, ...) ARG(k, n - 15, x); EACH_15(k, n, __VA_ARGS__)
#define EACH_17(k, n, x, ...) ARG(k, n - 16, x); EACH_16(k, n, __VA_ARGS__)
#define EACH_18(k, n, x, ...) ARG(k, n - 17, x); EACH_17(k, n, __VA_ARGS__)
#define EACH_19(k, n, x, ...) ARG(k, n - 18, x); EACH_18(k, n, __VA_ARGS__)
#define EACH_20(k, n, x, ...) ARG(k, n - 19, x); EACH_19(k, n, __VA_ARGS__)
#define UNPAREN(...) __VA_ARGS__
#define CHECK_ALL(k, ...) EACH(k, __VA_ARGS__)

#define NN_KERNEL(r, k, p, a) \
  static r checked_##k p {    \
    CHECK_ALL("nnc_" #k, UNPAREN a); \
    return nnc_##k a;         \
  }
#include "nn/kernels.def"

const nn_backend nn_cuda_backend = {
    .name = "cuda (emulated)",
#define NN_MEMORY(r, k, p, a) .k = nnc_##k,
#define NN_KERNEL(r, k, p, a) .k = checked_##k,
#include "nn/kernels.def"
};
#endif

const nmt_gpu nmt_cuda_gpu = {&nn_cuda_backend, nnc_count, nnc_init, nnc_shutdown};
