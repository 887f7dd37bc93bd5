/* The bump allocator behind nn/arena.h. */
#include "nn/arena.h"
#include "base/err.h"
#include "nn/backend.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { ALIGN = 64 };

struct nn_arena_block {
  nn_arena_block *next;
  void *mem;
};

static size_t round_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

enum { HUGE_PAGE = 2 << 20 };

void *nn_big_alloc(size_t bytes) {
  void *p = NULL;
  size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : ALIGN;
  if (posix_memalign(&p, align, bytes ? bytes : ALIGN)) return NULL;
#ifdef MADV_HUGEPAGE
  if (align == HUGE_PAGE) madvise(p, (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
  return p;
}

/* What could not be allocated, then the backend's reason (out of host or GPU
 * memory, or an earlier device error). */
static int fail_alloc(size_t bytes) {
  char why[256];
  snprintf(why, sizeof why, "%s", nmt_errmsg());
  return nmt_fail(NMT_EIO, "%zu bytes for the activations: %s", bytes, why);
}

static const nn_backend *backend(const nn_arena *a) { return a->be ? a->be : &nn_cpu_backend; }
static void *aligned(const nn_arena *a, size_t bytes) {
  void *p = NULL;
  return backend(a)->alloc(&p, bytes) == NMT_OK ? p : NULL;
}

void *nn_arena_alloc(nn_arena *a, size_t bytes) {
  bytes = round_up(bytes);
  a->peak += bytes;
  if (a->used + bytes <= a->cap) {
    void *p = a->base + a->used;
    a->used += bytes;
    return p;
  }
  nn_arena_block *b = malloc(sizeof *b);
  void *mem = b ? aligned(a, bytes) : NULL;
  if (!mem) {
    free(b);
    fail_alloc(bytes);
    return NULL;
  }
  b->mem = mem;
  b->next = a->spill;
  a->spill = b;
  return mem;
}

static void free_spill(nn_arena *a) {
  while (a->spill) {
    nn_arena_block *b = a->spill;
    a->spill = b->next;
    backend(a)->free(b->mem);
    free(b);
  }
}

int nn_arena_reset(nn_arena *a) {
  int status = NMT_OK;
  if (a->spill) {
    free_spill(a);
    backend(a)->free(a->base);
    size_t cap = round_up(a->peak + a->peak / 2); /* headroom: a longer batch still fits */
    a->base = aligned(a, cap);
    a->cap = a->base ? cap : 0;
    if (!a->base) status = fail_alloc(a->peak);
  }
  a->used = 0;
  a->peak = 0;
  return status;
}

void nn_arena_free(nn_arena *a) {
  free_spill(a);
  backend(a)->free(a->base);
  *a = (nn_arena){.be = a->be};
}
