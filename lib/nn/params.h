/* All parameters of a model in one contiguous buffer, each tensor a named view
 * (name, rows, cols, offset); gradients and the Adam moments are parallel
 * buffers with the same layout, so init, zero-grad, norm, clipping and the
 * optimiser step (nn/optim.h) are single loops, and a checkpoint is one write per buffer. */
#ifndef NMT_NN_PARAMS_H
#define NMT_NN_PARAMS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nn/qgemm.h"

typedef struct {
  char name[64];
  int rows, cols;
  size_t off; /* in floats, a multiple of 16 (64-byte aligned) */
  bool recurrent; /* a recurrent weight matrix: trained at nn_adam's lr_recurrent */
  bool lookup;    /* a table only read by rows (embeddings): never multiplied, no int8 copy */
} nn_view;

typedef struct {
  float *w, *g;         /* (n) each: weights, gradients */
  float *m, *v;         /* (hi - lo) each: Adam's first/second moments of the optimiser's shard */
  float *ema;           /* (hi - lo) the moving average of w's shard (nn_ema_step), or NULL: none kept */
  size_t n;             /* floats, padding included */
  size_t lo, hi;        /* the optimiser's shard of the buffer: [0, n) but under mpirun (nn_params_shard) */
  nn_view *views;
  int nviews, cap_views;
  long step;            /* Adam steps taken */
  nn_qmat *q;           /* (nviews) int8 copies for inference (nn_params_quantize), or NULL */
  float **pk;           /* (nviews) packed float copies for inference (nn_params_pack), or NULL */
  const struct nn_backend *be; /* whose memory the buffers are (nn_params_upload): NULL is the host's */
} nn_params;

enum nn_init { NN_INIT_UNIFORM, NN_INIT_XAVIER };

/* Declare a (rows, cols) view before nn_params_alloc. Returns its index, or -1
 * (nmt_fail) on a bad shape or a duplicate name. */
int nn_params_add(nn_params *p, const char *name, int rows, int cols);
/* Mark view i as a recurrent weight matrix (Deep-Att's separate rate). */
void nn_params_mark_recurrent(nn_params *p, int i);
/* Mark view i as a lookup table (embeddings): nn_params_quantize skips it. */
void nn_params_mark_lookup(nn_params *p, int i);
/* The view called `name`, or -1. */
int nn_params_find(const nn_params *p, const char *name);
/* Allocate the four zeroed buffers once all views are declared. NMT_OK or NMT_EIO. */
int nn_params_alloc(nn_params *p);
/* The weights alone (g, m and v stay NULL): inference. A decoder that zeroed
 * three buffers it never reads paid their page faults at every start. */
int nn_params_alloc_weights(nn_params *p);
void nn_params_free(nn_params *p);
/* Keep (on: a copy of w's shard when there is none yet) or drop the moving
 * average of the weights. NMT_OK or NMT_EIO. */
int nn_params_keep_ema(nn_params *p, bool on);
/* Swap w and the moving average (a model is saved and validated with the
 * average, then trained on with w). No-op without one; the shard must be
 * the whole buffer (a shard's average is gathered first: train/shard.c). */
void nn_params_swap_ema(nn_params *p);
/* Keep the moments and the average of [lo, hi) alone (a subrange of the
 * shard): a rank's part of the optimiser's state. Host memory. NMT_OK or NMT_EIO. */
int nn_params_shard(nn_params *p, size_t lo, size_t hi);
/* An int8 copy of every matrix view (rows and cols > 1, not a lookup table) for inference: graphs
 * that do not train then multiply by it (nn_param, nn_gemm_weights). NMT_OK or NMT_EIO. */
int nn_params_quantize(nn_params *p);
/* The same matrices packed for the CPU's products (nn/pgemm.h), for inference
 * on the host: a decoder step then multiplies by them without repacking. No-op
 * where the CPU's packed form is the plain matrix. NMT_OK or NMT_EIO. */
int nn_params_pack(nn_params *p);

/* NN_INIT_UNIFORM: every weight ~ U(-scale, scale) (Luong: 0.1).
 * NN_INIT_XAVIER: matrices ~ U(±sqrt(6/(rows+cols))) (Glorot), row vectors
 * (biases, gains) 0. Element i of the buffer uses Philox stream 0, index i. */
void nn_params_init(nn_params *p, enum nn_init how, float scale, uint64_t seed);
void nn_params_zero_grad(nn_params *p);

/* nn/params_copy.c. A copy of host (views, the buffers with the moving
 * average when kept, the step count) in be's memory: the parameters graphs
 * and the optimiser on be work on. Free it with nn_params_free. NMT_OK or the
 * backend's error (out of memory). */
int nn_params_upload(nn_params *dev, const nn_params *host, const struct nn_backend *be);
/* dev's buffers and step count back into host (the same layout). */
int nn_params_download(nn_params *host, const nn_params *dev);
#endif
