/* Threads that run the parts of one job: fn(ctx, part, parts) for every part.
 * nmt_pool_run is fork-join (the caller runs part 0 and waits for the rest);
 * nmt_pool_start/join let the caller do other work meanwhile (a producer that
 * feeds workers). The one place the library starts threads. */
#ifndef NMT_BASE_POOL_H
#define NMT_BASE_POOL_H
#include <pthread.h>
#include <stdbool.h>

enum { NMT_POOL_MAX = 256 };

typedef void (*nmt_part_fn)(void *ctx, int part, int parts);

typedef struct {
  nmt_part_fn fn;
  void *ctx;
  int first, parts;
  struct nmt_pool_part {
    pthread_t tid;
    bool started;
    int part;
    void *pool;
  } t[NMT_POOL_MAX];
} nmt_pool;

/* Every part in [0, parts), parts at most NMT_POOL_MAX: parts 1.. in threads,
 * part 0 in the caller, and in the caller too any part whose thread cannot
 * start; returns when all are done. */
void nmt_pool_run(int parts, nmt_part_fn fn, void *ctx);
/* Start parts [first, parts) in threads; returns how many started (a part whose
 * thread cannot start does not run: the caller decides). */
int nmt_pool_start(nmt_pool *p, int first, int parts, nmt_part_fn fn, void *ctx);
/* Wait for the parts that started. */
void nmt_pool_join(nmt_pool *p);

#endif
