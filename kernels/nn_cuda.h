/* The CUDA backend of the op API: every function of lib/nn/kernels.h with the
 * prefix nnc_ instead of nn_, the same arguments and the same (+=) semantics,
 * on device pointers (ids, targets, lengths and masks too). Usable from C.
 * Kernels run in order on one stream and return at once; a failed launch or
 * cuBLAS call is recorded (the first one is kept) and reported by nnc_sync. */
#ifndef NMT_NN_CUDA_H
#define NMT_NN_CUDA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- runtime (nn_cuda_runtime.cu); the int results are NMT statuses (base/err.h) ---- */

/* Select `device`, create the stream and the cuBLAS handle. NMT_EIO with
 * "no CUDA device found (...)" when there is no usable GPU or driver,
 * NMT_EUSAGE with "CUDA device N does not exist (K found)" for a bad index. */
int nnc_init(int device);
/* Release the stream, the cuBLAS handle and the scratch buffer. */
void nnc_shutdown(void);
/* "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)" for the initialised device. */
void nnc_describe(char *buf, size_t n);
/* Wait for the stream; NMT_EIO with the first recorded CUDA/cuBLAS error. */
int nnc_sync(void);
int nnc_alloc(void **p, size_t bytes);
void nnc_free(void *p);
int nnc_to_device(void *dst, const void *src, size_t bytes);
int nnc_to_host(void *dst, const void *src, size_t bytes);
int nnc_zero(void *p, size_t bytes);
/* GEMMs on TF32 tensor cores (10-bit mantissa inputs, fp32 accumulation). */
void nnc_set_tf32(bool on);

/* ---- the op API (see lib/nn/kernels.h and the cell headers for each contract) ---- */

void nnc_gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float *A, int lda,
              const float *B, int ldb, float beta, float *C, int ldc);
void nnc_gemm_batched(int batch, bool ta, bool tb, int M, int N, int K, float alpha,
                      const float *A, int lda, long sa, const float *B, int ldb, long sb,
                      float beta, float *C, int ldc, long sc);
void nnc_transpose(float *dst, const float *src, int R, int C);

void nnc_sigmoid_fwd(float *y, const float *x, size_t n);
void nnc_sigmoid_bwd(float *dx, const float *y, const float *dy, size_t n);
void nnc_tanh_fwd(float *y, const float *x, size_t n);
void nnc_tanh_bwd(float *dx, const float *y, const float *dy, size_t n);
void nnc_axpby_fwd(float *y, const float *a, const float *b, float sb, size_t n);
void nnc_axpby_bwd(float *da, float *db, const float *dy, float sb, size_t n);
void nnc_mul_fwd(float *y, const float *a, const float *b, size_t n);
void nnc_mul_bwd(float *da, float *db, const float *a, const float *b, const float *dy, size_t n);
void nnc_scale_fwd(float *y, const float *x, float s, size_t n);
void nnc_scale_bwd(float *dx, const float *dy, float s, size_t n);
void nnc_bias_fwd(float *y, const float *x, const float *bias, int R, int C);
void nnc_bias_bwd(float *dx, float *dbias, const float *dy, int R, int C);

void nnc_copy_cols(float *dst, int ldd, const float *src, int lds, int R, int C, float beta);
void nnc_gather_fwd(float *y, const float *E, const int *ids, int N, int D);
void nnc_gather_bwd(float *dE, const int *ids, const float *dy, int N, int D);

void nnc_layernorm_fwd(float *y, float *mean, float *rstd, const float *x, const float *gain,
                       const float *bias, int R, int C, float eps);
void nnc_layernorm_bwd(float *dx, float *dgain, float *dbias, const float *dy, const float *x,
                       const float *mean, const float *rstd, const float *gain, int R, int C);
void nnc_softmax_fwd(float *y, const float *x, const float *mask, int R, int C);
void nnc_softmax_bwd(float *dx, const float *y, const float *dy, int R, int C);
/* The loss is reduced on the device; the call waits for it (one double and
 * one count come back). *ntokens is a host pointer. */
double nnc_xent_fwd(float *prob, const float *logits, const int *targets, int R, int V, int pad,
                    float ls, long *ntokens);
void nnc_xent_bwd(float *dlogits, const float *prob, const int *targets, int R, int V, int pad,
                  float ls, float dloss);
void nnc_dropout_fwd(float *y, float *keep, const float *x, size_t n, float p, uint64_t seed,
                     uint64_t stream, uint64_t offset);
void nnc_dropout_bwd(float *dx, const float *keep, const float *dy, size_t n);

void nnc_lstm_cell_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                       const float *h_prev, const float *c_prev, const float *mask, int B, int H);
void nnc_lstm_cell_bwd(float *dgx, float *dgh, float *dh_prev, float *dc_prev, const float *dh,
                       const float *dc, const float *act, const float *c, const float *c_prev,
                       const float *mask, int B, int H);

/* The cells added beside the LSTM: CPU kernels in lib/nn/cells/gru.h, nn/cells/atr.h, nn/cells/lstm_peep.h. */
void nnc_gru_cell_fwd(float *h, float *act, const float *gx, const float *gh, const float *h_prev,
                      const float *mask, int B, int H);
void nnc_gru_cell_bwd(float *dgx, float *dgh, float *dh_prev, const float *dh, const float *act,
                      const float *gh, const float *h_prev, const float *mask, int B, int H);
void nnc_atr_cell_fwd(float *h, float *gates, const float *q, const float *p, const float *h_prev,
                      const float *mask, int B, int H);
void nnc_atr_cell_bwd(float *dq, float *dp, float *dh_prev, const float *dh, const float *gates,
                      const float *q, const float *h_prev, const float *mask, int B, int H);

void nnc_lstm_peep_fwd(float *h, float *c, float *act, const float *gx, const float *gh,
                       const float *peep, const float *h_prev, const float *c_prev,
                       const float *mask, int B, int H);
void nnc_lstm_peep_bwd(float *dgx, float *dgh, float *dpeep, float *dh_prev, float *dc_prev,
                       const float *dh, const float *dc, const float *act, const float *peep,
                       const float *c, const float *c_prev, const float *mask, int B, int H);

/* The kernels of the model families: lib/nn/cells/wscan.h (the weakly-recurrent scan,
 * its `work` scratch unused on the device), nn/cells/highway.h, nn/cells/rhn.h,
 * nn/maxpool.h (arg is a device int buffer) and nn/cells/srnmt_attn.h. */
void nnc_wscan_fwd(float *c, float *sg, const float *G, int ldg, const float *c0,
                   const float *mask, int T, int B, int H, int Hf);
void nnc_wscan_bwd(float *dG, float *dc0, float *work, const float *dc, const float *c,
                   const float *sg, const float *G, int ldg, const float *c0, const float *mask,
                   int T, int B, int H, int Hf);
void nnc_highway_fwd(float *y, float *sz, const float *Z, int ldz, const float *a, const float *x,
                     int R, int H);
void nnc_highway_bwd(float *dZ, int ldz, float *da, float *dx, const float *dy, const float *sz,
                     const float *a, const float *x, int R, int H);

void nnc_rhn_cell_fwd(float *s, float *act, const float *z, const float *z2, const float *bias,
                      const float *s_prev, const float *mask, int B, int H, bool coupled);
void nnc_rhn_cell_bwd(float *dz, float *dz2, float *dbias, float *ds_prev, const float *ds,
                      const float *act, const float *s_prev, const float *mask, int B, int H,
                      bool coupled);

void nnc_maxpool_time_fwd(float *y, int *arg, const float *X, const float *mask, int S, int B,
                          int F);
void nnc_maxpool_time_bwd(float *dX, const int *arg, const float *dy, int B, int F);

void nnc_attn_context_seq_fwd(float *ctx, const float *a, const float *V, float scale, int T,
                              int B, int S, int F);
void nnc_attn_context_seq_bwd(float *da, float *dV, const float *dctx, const float *a,
                              const float *V, float scale, int T, int B, int S, int F);

void nnc_attn_dot_fwd(float *score, const float *q, const float *K, int B, int S, int F);
void nnc_attn_dot_bwd(float *dq, float *dK, const float *dscore, const float *q, const float *K,
                      int B, int S, int F);
void nnc_attn_mlp_fwd(float *score, float *t, const float *q, const float *K, const float *v,
                      int B, int S, int A);
void nnc_attn_mlp_bwd(float *dq, float *dK, float *dv, const float *dscore, const float *t,
                      const float *v, int B, int S, int A);
void nnc_attn_context_fwd(float *ctx, const float *a, const float *V, int B, int S, int F);
void nnc_attn_context_bwd(float *da, float *dV, const float *dctx, const float *a,
                          const float *V, int B, int S, int F);
void nnc_attn_local_fwd(float *w, const float *a, const float *sig, const int *len, int B, int S,
                        float D);
void nnc_attn_local_bwd(float *da, float *dsig, const float *dw, const float *a, const float *sig,
                        const int *len, int B, int S, float D);

/* ---- optimizer loops over one parameter buffer (lib/nn/params.c) ---- */

/* Σ g², reduced on the device in double; waits for the result. */
double nnc_sumsq(const float *g, size_t n);
/* nn_vadam on device buffers: bias correction already folded into lr and eps. */
void nnc_adam(float *w, float *m, float *v, const float *g, size_t n, float b1, float b2,
              float lr, float eps);

#ifdef __cplusplus
}
#endif
#endif
