/* Threads for the parts of a job; see base/pool.h. */
#include "base/pool.h"

static void *run_part(void *arg) {
  struct nmt_pool_part *t = arg;
  nmt_pool *p = t->pool;
  p->fn(p->ctx, t->part, p->parts);
  return NULL;
}

int nmt_pool_start(nmt_pool *p, int first, int parts, nmt_part_fn fn, void *ctx) {
  p->fn = fn, p->ctx = ctx, p->first = first;
  p->parts = parts > NMT_POOL_MAX ? NMT_POOL_MAX : parts;
  int started = 0;
  for (int i = first; i < p->parts; i++) {
    struct nmt_pool_part *t = &p->t[i];
    *t = (struct nmt_pool_part){.part = i, .pool = p};
    t->started = pthread_create(&t->tid, NULL, run_part, t) == 0;
    started += t->started;
  }
  return started;
}

void nmt_pool_join(nmt_pool *p) {
  for (int i = p->first; i < p->parts; i++)
    if (p->t[i].started) pthread_join(p->t[i].tid, NULL);
}

void nmt_pool_run(int parts, nmt_part_fn fn, void *ctx) {
  nmt_pool p;
  if (parts <= 1) {
    fn(ctx, 0, 1);
    return;
  }
  nmt_pool_start(&p, 1, parts, fn, ctx);
  fn(ctx, 0, p.parts);
  for (int i = 1; i < p.parts; i++)
    if (!p.t[i].started) fn(ctx, i, p.parts);
  nmt_pool_join(&p);
}
