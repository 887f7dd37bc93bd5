/* The per-step arena: its blocks stay from reset to reset, so once the
 * largest step has been seen it stops allocating. */
#include "nn/arena.h"
#include "base/err.h"
#include "nn/backend.h"
#include "test.h"
#include <stdint.h>

/* The host's memory, refused on demand: a block that cannot be had. */
static bool refuse;
static int refusing_alloc(void **p, size_t bytes) {
  return refuse ? nmt_fail(NMT_EIO, "refused") : nn_cpu_backend.alloc(p, bytes);
}

TEST(nn_arena_keeps_its_blocks) {
  nn_backend be = nn_cpu_backend;
  be.alloc = refusing_alloc;
  nn_arena a = {.be = &be};
  char *x = nn_arena_alloc(&a, 100), *y = nn_arena_alloc(&a, 1000);
  CHECK(x && y && y == x + 128 && ((uintptr_t)x & 63) == 0);
  size_t cap = a.cap;
  CHECK(cap >= 1152);
  /* The same step after a reset: the same memory, nothing new. */
  CHECK_INT(nn_arena_reset(&a), 0);
  CHECK(nn_arena_alloc(&a, 100) == x && nn_arena_alloc(&a, 1000) == y && a.cap == cap);
  /* A bigger step appends a block (as large as all before it, or as asked)... */
  nn_arena_reset(&a);
  char *big = nn_arena_alloc(&a, cap + 1);
  CHECK(big && a.cap >= 2 * cap + 1);
  size_t grown = a.cap;
  /* ...which the next such step reuses: the first block's rest is left, the
   * allocation goes where it fits. */
  nn_arena_reset(&a);
  CHECK(nn_arena_alloc(&a, 100) == x && nn_arena_alloc(&a, cap + 1) == big && a.cap == grown);
  /* A block that cannot be had fails alone: what was handed out stays handed out. */
  char *z = nn_arena_alloc(&a, 64);
  refuse = true;
  CHECK(nn_arena_alloc(&a, 4 * grown) == NULL);
  refuse = false;
  char *after = nn_arena_alloc(&a, 64);
  CHECK(after && after != x && after != big && after != z);
  nn_arena_free(&a);
  CHECK(a.cap == 0 && a.first == NULL && a.be == &be);
}
