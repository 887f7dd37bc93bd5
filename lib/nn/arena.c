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
  char *mem;
  size_t cap;
};

/* The first block's bytes: small graphs (tests, the host's pointer arrays)
 * stay small, big ones reach their size in a few doublings. */
enum { FIRST_BLOCK = 256 << 10 };

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

/* A new last block for at least `bytes`, to be filled next. */
static void *append(nn_arena *a, size_t bytes) {
  size_t cap = a->cap > FIRST_BLOCK ? a->cap : FIRST_BLOCK;
  if (cap < bytes) cap = bytes;
  nn_arena_block *b = malloc(sizeof *b);
  void *mem = b ? aligned(a, cap) : NULL;
  if (!mem) {
    free(b);
    fail_alloc(bytes);
    return NULL;
  }
  *b = (nn_arena_block){.mem = mem, .cap = cap};
  nn_arena_block **end = &a->first;
  while (*end) end = &(*end)->next;
  *end = a->cur = b;
  a->cap += cap;
  a->used = bytes;
  return mem;
}

void *nn_arena_alloc(nn_arena *a, size_t bytes) {
  bytes = round_up(bytes);
  /* from the block being filled on: the rest of one too small is left for this step */
  for (nn_arena_block *b = a->cur; b; b = b->next) {
    if (b != a->cur) a->cur = b, a->used = 0;
    if (a->used + bytes <= b->cap) {
      void *p = b->mem + a->used;
      a->used += bytes;
      return p;
    }
  }
  return append(a, bytes);
}

int nn_arena_reset(nn_arena *a) {
  a->cur = a->first;
  a->used = 0;
  return NMT_OK;
}

void nn_arena_free(nn_arena *a) {
  while (a->first) {
    nn_arena_block *b = a->first;
    a->first = b->next;
    backend(a)->free(b->mem);
    free(b);
  }
  *a = (nn_arena){.be = a->be};
}
