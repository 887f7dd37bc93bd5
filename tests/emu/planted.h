/* Typical GPU bugs, planted on purpose (planted.cu): tests/emu/test_emu.c expects the
 * emulator to catch each. Pointers are device pointers; errors surface in nnc_sync. */
#ifndef NMT_TESTS_EMU_PLANTED_H
#define NMT_TESTS_EMU_PLANTED_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* out[c] = Σ_r x[r*C + c] with nnc_col_sums' block layout, missing its __syncthreads. */
void planted_col_sums_no_barrier(float *out, const float *x, int rows, int C);
/* y[i] = 1 for i <= n: one element past the end. */
void planted_fill_past_end(float *y, size_t n);
/* Row-major C = A·B handed to column-major cuBLAS without nnc_gemm's operand swap. */
void planted_gemm_no_swap(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                          float *C, int ldc);
/* __syncthreads after the odd threads of a 64-thread block have returned. */
void planted_divergent_barrier(float *y);
/* A full-mask warp sum in a 48-thread block: the second warp has 16 lanes. */
void planted_partial_warp(float *y);
/* An empty kernel launched with grid (1, grid_y) and `block` threads. */
void planted_launch(unsigned grid_y, unsigned block);
/* 52,000 bytes of __shared__ in one block (the limit is 48 KiB). */
void planted_big_shared(float *y);

#ifdef __cplusplus
}
#endif
#endif
