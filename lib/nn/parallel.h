/* Splitting big memory-bound loops (Adam, the output softmax) over the cores
 * OpenBLAS uses: a GEMM already runs on all of them, the loops between GEMMs
 * otherwise on one. Parts are fixed by the thread count, so results do not
 * depend on scheduling. */
#ifndef NMT_NN_PARALLEL_H
#define NMT_NN_PARALLEL_H
#include <stdbool.h>
#include <stddef.h>

/* Threads to use: OpenBLAS's count (--cpu-threads) unless set, at most 8;
 * 1 in a thread that runs inside another's part (nn_parallel_nested). */
int nn_threads(void);
/* Use n threads (0: OpenBLAS's count again). */
void nn_set_threads(int n);
/* Mark the calling thread as one part of a bigger split (a data-parallel
 * training worker): its nn_parallel loops then run in it alone. */
void nn_parallel_nested(bool on);
/* fn(ctx, part, parts) for every part in [0, parts): parts = nn_threads() when
 * work (in elements) is worth threads, else 1; the caller runs part 0. */
void nn_parallel(size_t work, void (*fn)(void *ctx, int part, int parts), void *ctx);
/* The range [*lo, *hi) of part `part` of n elements, cut at multiples of 16. */
void nn_part_range(size_t n, int part, int parts, size_t *lo, size_t *hi);

#endif
