/* Fork-join over the worker pool; see nn/parallel.h. A thread costs ~20-50 µs
 * to start, so only loops of 256K elements or more (~0.2 ms and up) are split. */
#include "nn/parallel.h"
#include "base/pool.h"
#include <cblas.h>

enum { MAX_THREADS = 8, MIN_WORK = 1 << 18 };

static int set_threads;            /* 0: OpenBLAS's count */
static _Thread_local bool nested; /* this thread is one part already */

int nn_threads(void) {
  if (nested) return 1;
  int n = set_threads ? set_threads : openblas_get_num_threads();
  return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

void nn_set_threads(int n) { set_threads = n > 0 ? n : 0; }

void nn_parallel_nested(bool on) { nested = on; }

void nn_parallel(size_t work, void (*fn)(void *ctx, int part, int parts), void *ctx) {
  nmt_pool_run(work >= MIN_WORK ? nn_threads() : 1, fn, ctx);
}

void nn_part_range(size_t n, int part, int parts, size_t *lo, size_t *hi) {
  size_t per = (n / (size_t)parts + 15) / 16 * 16;
  *lo = per * (size_t)part < n ? per * (size_t)part : n;
  *hi = per * (size_t)(part + 1) < n && part + 1 < parts ? per * (size_t)(part + 1) : n;
}
