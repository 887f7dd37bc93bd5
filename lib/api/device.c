/* The GPU of a translator (nmt_translator_options.device). The CUDA backend is one per
 * process (one stream, one cuBLAS handle; nn/device.h finds it at link time, present only
 * where the library is built with it), so the process's GPU translators share one opened
 * device, counted here, and their calls take turns on it. Unlike the tools, a GPU that
 * cannot be used is an error (API_EDEVICE), not a notice and the CPU: a program that asked
 * for a GPU is told. */
#include "api/api.h"
#include "base/err.h"
#include "nn/backend.h"
#include "nn/device.h"
#include <stdio.h>
#include <string.h>

#pragma weak nmt_cuda_gpu

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* guards users and gpu */
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER; /* held by the call on the GPU */
static int users;
static nmt_device gpu;

/* Open the GPU for the first user: API_EDEVICE with the backend's reason when it cannot be. */
static int first_user(const char *spec, nmt_device *d) {
  if (!nmt_device_cuda_built())
    return nmt_fail(API_EDEVICE, "device '%s': this libnmt.so is built without the CUDA backend", spec);
  char notice[512];
  int st = nmt_device_open(d, notice, sizeof notice);
  if (st) return nmt_fail(API_EDEVICE, "device '%s': %s", spec, nmt_errmsg());
  if (d->kind != NMT_DEVICE_CUDA) { /* the tools' fall-back: its reason without "; running on CPU" */
    char *tail = strstr(notice, "; running on CPU");
    if (tail) *tail = 0;
    return nmt_fail(API_EDEVICE, "device '%s': %s", spec, notice);
  }
  return NMT_OK;
}

int api_device_open(const char *spec, const nn_backend **be) {
  nmt_device d;
  *be = &nn_cpu_backend;
  if (!spec) return NMT_OK;
  if (nmt_device_parse(spec, &d)) return NMT_EUSAGE;
  if (d.kind == NMT_DEVICE_CPU) return NMT_OK;
  d.per_rank = false;
  /* cudaSetDevice holds for the thread that opened it only; other GPUs need it per call */
  if (d.index != 0) return nmt_fail(API_EDEVICE, "device '%s': the library runs on GPU 0 only (cuda or cuda:0)", spec);
  pthread_mutex_lock(&lock);
  int st = users ? NMT_OK : first_user(spec, &d);
  if (!st && !users) gpu = d;
  if (!st) users++, *be = nmt_cuda_gpu.be;
  pthread_mutex_unlock(&lock);
  return st;
}

void api_device_close(void) {
  pthread_mutex_lock(&lock);
  if (users && !--users) nmt_device_close(&gpu);
  pthread_mutex_unlock(&lock);
}

void api_device_turn(bool take) {
  if (take) pthread_mutex_lock(&turn);
  else pthread_mutex_unlock(&turn);
}
