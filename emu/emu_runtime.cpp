// The emulated CUDA runtime's errors, the one device and its streams. A kernel
// fault (a divergent barrier, a bad shuffle, a guard violation reported as a
// launch failure) sticks, as it does on a GPU: every later call returns it.
#include "emu_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <set>

static cudaError_t last, sticky;
static std::set<cudaStream_t> streams;
static int device_set;

cudaError_t emu_error(cudaError_t e) {
  if (sticky) return sticky;
  if (e) last = e;
  return e;
}

void emu_report(cudaError_t e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("emu: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  if (e == cudaErrorLaunchFailure && !sticky) sticky = e;
  emu_error(e);
}

cudaError_t emu_sticky(void) { return sticky; }

bool emu_stream_ok(cudaStream_t s, const char *what) {
  if (!s || streams.count(s)) return true;
  emu_report(cudaErrorInvalidResourceHandle, "%s: stream %p was not created or is destroyed", what,
             (void *)s);
  return false;
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = sticky ? sticky : last;
  last = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) { return sticky ? sticky : last; }

static const struct {
  cudaError_t e;
  const char *name, *text;
} errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
};

const char *cudaGetErrorName(cudaError_t e) {
  for (auto &x : errors)
    if (x.e == e) return x.name;
  return "cudaErrorUnknown";
}
const char *cudaGetErrorString(cudaError_t e) {
  for (auto &x : errors)
    if (x.e == e) return x.text;
  return "unknown error";
}

cudaError_t cudaGetDeviceCount(int *count) {
  *count = 1;
  return emu_error(cudaSuccess);
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0) return emu_error(cudaErrorInvalidDevice);
  device_set = device;
  return emu_error(cudaSuccess);
}

cudaError_t cudaGetDevice(int *device) {
  *device = device_set;
  return emu_error(cudaSuccess);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device) {
  if (device != 0) return emu_error(cudaErrorInvalidDevice);
  *p = {};
  snprintf(p->name, sizeof p->name, "nmt CUDA emulator on the host CPU");
  p->totalGlobalMem = emu_memory_cap();
  p->sharedMemPerBlock = 48 << 10;
  p->major = 9, p->minor = 0, p->warpSize = 32, p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  return emu_error(cudaSuccess);
}

cudaError_t cudaStreamCreate(cudaStream_t *s) {
  *s = (cudaStream_t) new char; // an address no other stream has
  streams.insert(*s);
  return emu_error(cudaSuccess);
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (!s || !streams.erase(s)) return emu_error(cudaErrorInvalidResourceHandle);
  delete (char *)s;
  return emu_error(cudaSuccess);
}

// Every call completes before it returns: synchronising only reports.
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if (!emu_stream_ok(s, "cudaStreamSynchronize")) return cudaErrorInvalidResourceHandle;
  return emu_error(cudaSuccess);
}
cudaError_t cudaDeviceSynchronize(void) { return emu_error(cudaSuccess); }
