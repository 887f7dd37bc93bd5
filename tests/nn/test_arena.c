/* The per-step arena: it grows to 1.5 × the peak and then stops allocating. */
#include "nn/arena.h"
#include "test.h"
#include <stdint.h>

TEST(nn_arena_grows_to_peak) {
  nn_arena a = {0};
  void *x = nn_arena_alloc(&a, 100), *y = nn_arena_alloc(&a, 1000);
  CHECK(x && y && x != y && ((uintptr_t)x & 63) == 0 && ((uintptr_t)y & 63) == 0);
  CHECK_INT(nn_arena_reset(&a), 0);
  CHECK_INT(a.cap, 1728); /* 1.5 × (128 + 1024), in 64-byte units */
  CHECK(a.spill == NULL);
  /* A step that fits allocates from the block, in order. */
  char *p1 = nn_arena_alloc(&a, 100), *p2 = nn_arena_alloc(&a, 1000);
  CHECK(p1 == a.base && p2 == a.base + 128 && a.spill == NULL);
  nn_arena_reset(&a);
  CHECK_INT(a.cap, 1728);
  nn_arena_alloc(&a, 1600); /* a longer batch within the headroom: no new memory */
  CHECK(a.spill == NULL);
  nn_arena_reset(&a);
  CHECK_INT(a.cap, 1728);
  nn_arena_alloc(&a, 5000); /* a bigger batch spills, then the block grows */
  CHECK(a.spill != NULL);
  nn_arena_reset(&a);
  CHECK_INT(a.cap, 7616); /* 1.5 × 5056 */
  nn_arena_free(&a);
}
