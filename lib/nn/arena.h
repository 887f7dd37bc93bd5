/* A per-batch activation arena: a bump allocator reset every training step.
 * Allocations past the block spill into overflow blocks; the next reset
 * replaces everything by one block of 1.5 times the peak, so once the largest
 * batch has been seen the step loop allocates nothing. The headroom matters
 * where batches come in growing sizes (a decoder's batches sorted by length):
 * each regrowth is fresh memory, and its page faults (the kernel zeroing huge
 * pages) cost a fifth of decoding time when every batch regrew. Pointers live
 * until reset. */
#ifndef NMT_NN_ARENA_H
#define NMT_NN_ARENA_H
#include <stddef.h>

typedef struct nn_arena_block nn_arena_block;
struct nn_backend;

typedef struct {
  const struct nn_backend *be; /* whose memory the blocks are: NULL is the host's */
  char *base;              /* the main block */
  size_t cap, used;        /* bytes */
  size_t peak;             /* bytes asked since the last reset, overflow included */
  nn_arena_block *spill;   /* overflow blocks since the last reset */
} nn_arena;

/* 64-byte aligned, uninitialised; NULL (with nmt_fail NMT_EIO) when out of memory. */
void *nn_arena_alloc(nn_arena *a, size_t bytes);
/* Forget every allocation; regrow the main block to 1.5 × the peak if it spilled.
 * Returns NMT_OK or NMT_EIO. */
int nn_arena_reset(nn_arena *a);
void nn_arena_free(nn_arena *a);

/* Memory for big buffers (parameters, gradients, the arena): 64-byte aligned,
 * and from 2 MiB up on transparent huge pages where the kernel offers them
 * (fewer TLB misses when GEMMs stride through weight matrices). free() it. */
void *nn_big_alloc(size_t bytes);

#endif
