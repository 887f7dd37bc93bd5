// The CUDA runtime of the backend: device selection, one stream and cuBLAS
// handle, memory helpers, and errors turned into NMT statuses with a one-line
// message (the library never exits).
#include "nn/cuda/nn_cuda_internal.cuh"
#include <stdio.h>
#define _Noreturn [[noreturn]] // base/err.h is C11; C++ spells it as an attribute
extern "C" {
#include "base/err.h"
}
#undef _Noreturn

cudaStream_t nnc_stream;
cublasHandle_t nnc_blas;
static nnc_totals *totals; // device scratch for reductions
static char first_error[256];

void nnc_check_cuda(cudaError_t e, const char *what) {
  if (e != cudaSuccess && !first_error[0])
    snprintf(first_error, sizeof first_error, "CUDA error in %s: %s (%s)", what,
             cudaGetErrorString(e), cudaGetErrorName(e));
}

void nnc_check_blas(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS && !first_error[0])
    snprintf(first_error, sizeof first_error, "cuBLAS error in %s: %s", what,
             cublasGetStatusString(s));
}

static int failed(void) { return nmt_fail(NMT_EIO, "%s", first_error); }

extern "C" int nnc_sync(void) {
  nnc_check_cuda(cudaStreamSynchronize(nnc_stream), "stream synchronize");
  return first_error[0] ? failed() : NMT_OK;
}

extern "C" int nnc_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); // not sticky: clear it
    return 0;
  }
  return count;
}

extern "C" int nnc_init(int device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError(); // not sticky: clear it
    return nmt_fail(NMT_EIO, "no CUDA device found (%s)", cudaGetErrorName(e));
  }
  if (count == 0) return nmt_fail(NMT_EIO, "no CUDA device found");
  if (device < 0 || device >= count)
    return nmt_fail(NMT_EUSAGE, "CUDA device %d does not exist (%d found)", device, count);
  nnc_shutdown();
  nnc_check_cuda(cudaSetDevice(device), "set device");
  if (!first_error[0]) nnc_check_cuda(cudaStreamCreate(&nnc_stream), "stream create");
  if (!first_error[0]) nnc_check_blas(cublasCreate(&nnc_blas), "cublasCreate");
  if (!first_error[0]) nnc_check_blas(cublasSetStream(nnc_blas, nnc_stream), "cublasSetStream");
  if (!first_error[0]) nnc_check_cuda(cudaMalloc((void **)&totals, sizeof *totals), "scratch alloc");
  if (first_error[0]) {
    int st = failed();
    nnc_shutdown();
    return st;
  }
  nnc_set_tf32(false);
  return NMT_OK;
}

extern "C" void nnc_shutdown(void) {
  if (totals) cudaFree(totals);
  if (nnc_blas) cublasDestroy(nnc_blas);
  if (nnc_stream) cudaStreamDestroy(nnc_stream);
  totals = NULL;
  nnc_blas = NULL;
  nnc_stream = NULL;
  first_error[0] = 0;
}

extern "C" void nnc_describe(char *buf, size_t n) {
  int dev = 0;
  cudaDeviceProp p;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    snprintf(buf, n, "unknown CUDA device");
    return;
  }
  snprintf(buf, n, "%s (sm_%d%d, %.0f GiB)", p.name, p.major, p.minor,
           (double)p.totalGlobalMem / (1 << 30));
}

extern "C" void nnc_set_tf32(bool on) {
  if (nnc_blas)
    nnc_check_blas(cublasSetMathMode(nnc_blas, on ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                   "cublasSetMathMode");
}

extern "C" int nnc_alloc(void **p, size_t bytes) {
  *p = NULL;
  if (first_error[0]) return failed(); // a faulted device: that error, not "out of memory"
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
  if (e == cudaSuccess) return NMT_OK;
  cudaGetLastError(); // out of memory is not sticky
  *p = NULL;
  return nmt_fail(NMT_EIO, "out of GPU memory: %zu bytes (%s)", bytes, cudaGetErrorName(e));
}

extern "C" void nnc_free(void *p) {
  if (p) cudaFree(p);
}

static int copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, const char *what) {
  if (bytes) nnc_check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, nnc_stream), what);
  return nnc_sync();
}

extern "C" int nnc_to_device(void *dst, const void *src, size_t bytes) {
  return copy(dst, src, bytes, cudaMemcpyHostToDevice, "copy to device");
}

extern "C" int nnc_to_host(void *dst, const void *src, size_t bytes) {
  return copy(dst, src, bytes, cudaMemcpyDeviceToHost, "copy to host");
}

extern "C" int nnc_copy(void *dst, const void *src, size_t bytes) {
  return copy(dst, src, bytes, cudaMemcpyDeviceToDevice, "copy on the device");
}

extern "C" int nnc_zero(void *p, size_t bytes) {
  if (bytes) nnc_check_cuda(cudaMemsetAsync(p, 0, bytes, nnc_stream), "memset");
  return first_error[0] ? failed() : NMT_OK;
}

nnc_totals *nnc_totals_begin(const char *what) {
  if (!totals) {
    if (!first_error[0])
      snprintf(first_error, sizeof first_error, "%s: the CUDA runtime is not initialised", what);
    return NULL;
  }
  nnc_check_cuda(cudaMemsetAsync(totals, 0, sizeof *totals, nnc_stream), what);
  return totals;
}

nnc_totals nnc_totals_end(const char *what) {
  nnc_totals host = {0, 0};
  if (totals) {
    nnc_check_cuda(cudaMemcpyAsync(&host, totals, sizeof host, cudaMemcpyDeviceToHost, nnc_stream), what);
    nnc_check_cuda(cudaStreamSynchronize(nnc_stream), what);
  }
  return host;
}
