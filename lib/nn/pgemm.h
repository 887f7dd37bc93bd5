/* Products of a few dozen rows with a weight that stays fixed for many of them
 * (the recurrent weight, applied once per time step). OpenBLAS's sgemm copies
 * (packs) all of the weight into its own layout on every call, which at 32 rows
 * costs about a quarter of the multiply; here the weight is packed once per
 * batch (nn_pack_weight) and each step's product reads the packed form
 * (nn_gemm_packed). Both are rows of nn/kernels.def; this header has the CPU's
 * layout. */
#ifndef NMT_NN_PGEMM_H
#define NMT_NN_PGEMM_H
#include <stdbool.h>
#include <stddef.h>

/* The CPU's packed form of a (K,N) weight: panels of 16 columns, each K rows of
 * 16 floats (zeros past N), so the kernel reads it in order. Where nmt's own
 * GEMM engine runs (nn/gemm_path.h: AVX2 + FMA cores, or NMT_GEMM=nmt);
 * elsewhere the form is the plain row-major matrix and the product is the
 * engine's sgemm. */
enum { NN_PANEL = 16 };

/* Floats of a packed (K,N) weight on any backend (the panels' padding included). */
size_t nn_packed_floats(int K, int N);
/* Whether the CPU rows use the panels (decided once, with the engine). */
bool nn_pgemm_panels(void);

/* The panels' code (nn/pgemm_avx2.c), for cores with AVX2 and FMA. The
 * packing: P = W (K,N) in panels, or Wᵀ where trans (W then is (N,K)); ldw is
 * W's row stride (N, or K where trans, for a whole matrix). */
void nn_pgemm_pack_avx2(float *P, const float *W, int ldw, int K, int N, bool trans);
/* C (M,N) = A (M,K)·P + beta·C. Each C element is one FMA chain over
 * k = 0..K-1, so a row's result does not depend on the other rows. */
void nn_pgemm_avx2(int M, int N, int K, const float *A, int lda, const float *P, float beta,
                   float *C, int ldc);

#endif
