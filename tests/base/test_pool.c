/* The worker pool: every part runs once, with the part count it was given, and
 * started workers run beside the caller until joined. */
#include "base/pool.h"
#include "test.h"
#include <stdatomic.h>

typedef struct {
  atomic_int runs[64];
  atomic_int wrong_parts;
} part_log;

static void log_part(void *ctx, int part, int parts) {
  part_log *l = ctx;
  atomic_fetch_add(&l->runs[part], 1);
  if (parts != 5) atomic_fetch_add(&l->wrong_parts, 1);
}

TEST(pool_run_each_part_once) {
  part_log l = {0};
  nmt_pool_run(5, log_part, &l);
  for (int i = 0; i < 5; i++) CHECK_INT(atomic_load(&l.runs[i]), 1);
  CHECK_INT(atomic_load(&l.runs[5]), 0);
  CHECK_INT(atomic_load(&l.wrong_parts), 0);
}

static void one_part(void *ctx, int part, int parts) { *(int *)ctx += 1 + part + parts; }

TEST(pool_run_one_part_inline) {
  int n = 0;
  nmt_pool_run(1, one_part, &n);
  CHECK_INT(n, 2); /* part 0 of 1, in the caller */
}

/* Workers that wait for the caller: they run while it goes on, and join waits for them. */
typedef struct {
  atomic_int go, done;
} handshake;

static void wait_for_go(void *ctx, int part, int parts) {
  handshake *h = ctx;
  while (!atomic_load(&h->go)) {
  }
  atomic_fetch_add(&h->done, 1);
}

TEST(pool_start_then_join) {
  handshake h = {0};
  nmt_pool p;
  int started = nmt_pool_start(&p, 0, 3, wait_for_go, &h);
  CHECK_INT(started, 3);
  CHECK_INT(atomic_load(&h.done), 0);
  atomic_store(&h.go, 1);
  nmt_pool_join(&p);
  CHECK_INT(atomic_load(&h.done), 3);
}
