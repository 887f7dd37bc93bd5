/* int8 weights for inference (nmt-decode --gemm-type int8), as Marian's
 * intgemm: decoding one sentence is bound by reading the weights (megabytes
 * per decoder step); int8 reads a quarter of the bytes and AVX-512 VNNI
 * multiplies 64 byte pairs per instruction.
 *
 * Weights: symmetric per output column, q = round(w / s_j), s_j = max_k |w_kj| / 127.
 * Activations: per row at run time, unsigned with a +128 shift (VNNI multiplies
 * u8 by s8): a = round(x / s_x) + 128, s_x = max_k |x_k| / 127, and the shift
 * comes back out through the columns' sums: Σ a·q = Σ (a-128)·q + 128·Σ q. */
#ifndef NMT_NN_QGEMM_H
#define NMT_NN_QGEMM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* W (K, N) packed in panels of 64 columns; in a panel, for each group of 4
 * rows k, 64 columns × 4 bytes (column j's bytes for rows 4k4..4k4+3): one
 * 64-byte load feeds 16 columns of a VNNI dot product. K is padded with zeros
 * to a multiple of 4, N to one of 64 (scale 0). */
typedef struct {
  int K, N, K4, panels;
  int8_t *w;       /* panels × K4 × 256 bytes, 64-byte aligned */
  float *scale;    /* (panels·64) s_j */
  int32_t *colsum; /* (panels·64) Σ_k q_kj */
} nn_qmat;

/* Pack W (K, N) row-major (leading dimension ldw). NMT_OK or NMT_EIO. */
int nn_qmat_pack(nn_qmat *q, const float *W, int K, int N, int ldw);
/* Columns cols[0..n) of src, as nn_qmat_pack would pack them alone (the scales are per
 * column): a shortlist's part of a layer, without quantizing again. NMT_OK or NMT_EIO. */
int nn_qmat_gather(nn_qmat *q, const nn_qmat *src, const int *cols, int n);
void nn_qmat_free(nn_qmat *q);

/* Bytes of scratch nn_qgemm needs for M rows (their int8 copy and scales; 4-byte aligned). */
size_t nn_qgemm_scratch(int M, const nn_qmat *q);
/* C (M, n) = A (M, K)·W[:, 0:n] + beta·C with beta 0 (C not read) or 1, row-major,
 * n <= q->N (a shortlist takes the first columns), using nn_qgemm_scratch(M, q)
 * bytes at scratch (a graph's arena: no malloc per step). Split over the threads
 * (nn_parallel) by panels. */
void nn_qgemm(int M, int n, const float *A, int lda, const nn_qmat *q, float beta, float *C,
              int ldc, void *scratch);

/* Whether nn_qgemm runs the AVX-512 VNNI kernel, else the AVX2 one (weights
 * widened to 16 bits), else a portable loop, all with the same integer
 * arithmetic. nn_qgemm_force picks one for the tests (the AVX2 kernel only
 * where the core has AVX2); NN_QGEMM_BEST is the default. */
typedef enum { NN_QGEMM_BEST, NN_QGEMM_AVX2, NN_QGEMM_PORTABLE } nn_qgemm_kernel;
bool nn_qgemm_vnni(void);
bool nn_qgemm_avx2(void);
void nn_qgemm_force(nn_qgemm_kernel k);

#endif
