/* Device selection and the CPU fallback. The GPU is reached through the CUDA
 * backend's entry (nn/device.h, nmt_cuda_gpu), present only in the programs that
 * link lib/nn/cuda/: one build of this file serves every program. */
#include "nn/device.h"
#include "base/err.h"
#include "nn/backend.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A weak reference: NULL in a program without the CUDA backend. */
#pragma weak nmt_cuda_gpu
static const nmt_gpu *cuda(void) { return &nmt_cuda_gpu; }

enum { MAX_GPU_INDEX = 1023 };

int nmt_device_parse(const char *spec, nmt_device *out) {
  if (spec && !strcmp(spec, "cpu")) {
    *out = (nmt_device){NMT_DEVICE_CPU, 0, false};
    return NMT_OK;
  }
  if (spec && !strcmp(spec, "cuda")) {
    *out = (nmt_device){NMT_DEVICE_CUDA, 0, true};
    return NMT_OK;
  }
  if (spec && !strncmp(spec, "cuda:", 5) && spec[5] >= '0' && spec[5] <= '9') {
    char *end;
    long k = strtol(spec + 5, &end, 10);
    if (!*end && k <= MAX_GPU_INDEX) {
      *out = (nmt_device){NMT_DEVICE_CUDA, (int)k, false};
      return NMT_OK;
    }
  }
  return nmt_fail(NMT_EUSAGE, "bad device '%s' (expected cpu, cuda or cuda:N)", spec ? spec : "");
}

bool nmt_device_cuda_built(void) { return cuda() != NULL; }

int nmt_device_open(nmt_device *d, char *notice, size_t n) {
  if (n) notice[0] = 0;
  if (d->kind == NMT_DEVICE_CPU) return NMT_OK;
  const nmt_gpu *gpu = cuda();
  if (gpu) {
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int count = d->per_rank && local ? gpu->count() : 0;
    if (count > 0) d->index = atoi(local) % count;
    int st = gpu->init(d->index);
    if (st == NMT_OK || st == NMT_EUSAGE) return st;
    snprintf(notice, n, "%s; running on CPU", nmt_errmsg());
  } else {
    snprintf(notice, n, "this build has no CUDA support; running on CPU");
  }
  d->kind = NMT_DEVICE_CPU;
  return NMT_OK;
}

int nmt_device_use(const char *spec, const nn_backend **be, char *notice, size_t n) {
  nmt_device d;
  *be = &nn_cpu_backend;
  int st = nmt_device_parse(spec ? spec : "cpu", &d);
  if (!st) st = nmt_device_open(&d, notice, n);
  if (!st && d.kind == NMT_DEVICE_CUDA) *be = cuda()->be;
  return st;
}

void nmt_device_close(nmt_device *d) {
  if (d->kind == NMT_DEVICE_CUDA && cuda()) cuda()->shutdown();
  d->kind = NMT_DEVICE_CPU;
}
