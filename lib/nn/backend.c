/* The CPU backend: host memory and the reference kernels. */
#include "nn/backend.h"
#include "base/err.h"
#include "nn/arena.h"
#include "nn/kernels.h"
#include <stdlib.h>
#include <string.h>

int nn_host_alloc(void **p, size_t bytes) {
  *p = nn_big_alloc(bytes);
  return *p ? NMT_OK : nmt_fail(NMT_EIO, "out of memory: %zu bytes", bytes);
}
void nn_host_free(void *p) { free(p); }
int nn_host_zero(void *p, size_t bytes) {
  if (bytes) memset(p, 0, bytes);
  return NMT_OK;
}
static int host_copy(void *dst, const void *src, size_t bytes) {
  if (bytes) memcpy(dst, src, bytes);
  return NMT_OK;
}
int nn_host_to_device(void *dst, const void *src, size_t bytes) { return host_copy(dst, src, bytes); }
int nn_host_to_host(void *dst, const void *src, size_t bytes) { return host_copy(dst, src, bytes); }
int nn_host_copy(void *dst, const void *src, size_t bytes) { return host_copy(dst, src, bytes); }

const nn_backend nn_cpu_backend = {
    .name = "cpu",
    .host = true,
#define NN_MEMORY(r, k, p, a) .k = nn_host_##k,
#define NN_KERNEL(r, k, p, a) .k = nn_##k,
#include "nn/kernels.def"
};
