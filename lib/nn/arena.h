/* A per-batch activation arena: a bump allocator over blocks that are kept
 * from reset to reset. A step that outgrows them appends a block as large as
 * all before it, so the blocks double and, once the largest batch has been
 * seen, the step loop allocates nothing. Memory is touched once: freeing and
 * regrowing it (fresh pages for the kernel to zero, slow under a hypervisor)
 * cost a tenth of decoding time. Pointers live until reset. */
#ifndef NMT_NN_ARENA_H
#define NMT_NN_ARENA_H
#include <stddef.h>

typedef struct nn_arena_block nn_arena_block;
struct nn_backend;

typedef struct {
  const struct nn_backend *be; /* whose memory the blocks are: NULL is the host's */
  nn_arena_block *first, *cur; /* the blocks in order; the one being filled */
  size_t used;                 /* bytes used in cur */
  size_t cap;                  /* bytes in all blocks */
} nn_arena;

/* 64-byte aligned, uninitialised; NULL (with nmt_fail NMT_EIO) when out of memory. */
void *nn_arena_alloc(nn_arena *a, size_t bytes);
/* Forget every allocation (the blocks stay). Returns NMT_OK. */
int nn_arena_reset(nn_arena *a);
void nn_arena_free(nn_arena *a);

/* Memory for big buffers (parameters, gradients, the arena): 64-byte aligned,
 * and from 2 MiB up on transparent huge pages where the kernel offers them
 * (fewer TLB misses when GEMMs stride through weight matrices). free() it. */
void *nn_big_alloc(size_t bytes);

#endif
