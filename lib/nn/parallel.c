/* Fork-join over pthreads; see nn/parallel.h. A thread costs ~20-50 µs to
 * start, so only loops of 256K elements or more (~0.2 ms and up) are split. */
#include "nn/parallel.h"
#include <cblas.h>
#include <pthread.h>

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

typedef struct {
  void (*fn)(void *ctx, int part, int parts);
  void *ctx;
  int part, parts;
} job;

static void *run(void *arg) {
  job *j = arg;
  j->fn(j->ctx, j->part, j->parts);
  return NULL;
}

void nn_parallel(size_t work, void (*fn)(void *ctx, int part, int parts), void *ctx) {
  int parts = work >= MIN_WORK ? nn_threads() : 1;
  pthread_t tid[MAX_THREADS];
  job jobs[MAX_THREADS];
  bool started[MAX_THREADS] = {false};
  for (int i = 1; i < parts; i++) {
    jobs[i] = (job){fn, ctx, i, parts};
    started[i] = pthread_create(&tid[i], NULL, run, &jobs[i]) == 0;
    if (!started[i]) run(&jobs[i]); /* no thread: do it here */
  }
  fn(ctx, 0, parts);
  for (int i = 1; i < parts; i++)
    if (started[i]) pthread_join(tid[i], NULL);
}

void nn_part_range(size_t n, int part, int parts, size_t *lo, size_t *hi) {
  size_t per = (n / (size_t)parts + 15) / 16 * 16;
  *lo = per * (size_t)part < n ? per * (size_t)part : n;
  *hi = per * (size_t)(part + 1) < n && part + 1 < parts ? per * (size_t)(part + 1) : n;
}
