/* Packing buffers of the CPU's GEMMs, one per calling thread and use, kept
 * between calls (a call's packing must not pay for malloc and page faults) and
 * freed when the thread ends. */
#ifndef NMT_NN_THREAD_SCRATCH_H
#define NMT_NN_THREAD_SCRATCH_H
#include <stddef.h>

typedef enum { NN_SCRATCH_SGEMM, NN_SCRATCH_PGEMM, NN_SCRATCHES } nn_scratch_use;

/* At least `floats` floats, 64-byte aligned, the earlier contents lost when it
 * grows; NULL when out of memory. */
float *nn_thread_scratch(nn_scratch_use use, size_t floats);

#endif
