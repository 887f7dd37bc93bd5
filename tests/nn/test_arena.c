/* The per-step arena: its blocks stay from reset to reset, so once the
 * largest step has been seen it stops allocating. */
#include "nn/arena.h"
#include "test.h"
#include <stdint.h>

TEST(nn_arena_keeps_its_blocks) {
  nn_arena a = {0};
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
  nn_arena_free(&a);
  CHECK(a.cap == 0 && a.first == NULL);
}
