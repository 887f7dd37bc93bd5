/* Gradient norm, clipping, Adam, SGD and the weights' moving average over the one
 * parameter buffer (nn/params.h). Clipping, Adam, SGD and the average touch the
 * optimiser's shard [p->lo, p->hi) alone: the whole buffer but under mpirun,
 * where each rank updates its shard and the weights are gathered after
 * (train/shard.c). */
#ifndef NMT_NN_OPTIM_H
#define NMT_NN_OPTIM_H
#include "nn/params.h"

/* The L2 norm of the whole gradient, accumulated in double over fixed chunks
 * of NN_NORM_CHUNK floats in chunk order: the same bits on any thread count. */
enum { NN_NORM_CHUNK = 1 << 16 };
/* The chunks n floats make, the last one short. */
static inline size_t nn_norm_chunks(size_t n) { return (n + NN_NORM_CHUNK - 1) / NN_NORM_CHUNK; }
double nn_params_grad_norm(const nn_params *p);
/* Each chunk's sum of squares of x (n floats, a multiple of NN_NORM_CHUNK
 * apart from the last), into sums[0 .. nn_norm_chunks(n)): what
 * nn_params_grad_norm folds, for chunks summed on several ranks. CPU memory. */
void nn_sumsq_chunks(const float *x, size_t n, double *sums);
/* out = x[0] + x[1] + ... + x[k-1], added left to right (out may be x[0]), and
 * each chunk's sum of squares of out into sums as nn_sumsq_chunks: a chunk's
 * squares are taken while its sum is in the cache. CPU memory. */
void nn_sum_sumsq_chunks(float *out, const float *const *x, int k, size_t n, double *sums);
/* Scale the shard's gradient so that a gradient of this norm has at most max_norm. */
void nn_params_scale_grad(nn_params *p, double norm, double max_norm);
/* Clip the gradient's norm to max_norm (the above); returns the norm before. */
double nn_params_clip(nn_params *p, double max_norm);

typedef struct {
  float lr, beta1, beta2, eps;
  float recurrent_scale; /* the rate of recurrent views is lr times this (0 counts as 1) */
} nn_adam;
/* One bias-corrected Adam step (Kingma & Ba 2015) over the shard. */
void nn_adam_step(nn_params *p, const nn_adam *opt);
/* One plain SGD step, w -= lr·g (recurrent views: lr·recurrent_scale; 0 counts as 1),
 * through the backend's scale_bwd row; counts p->step as Adam does. */
void nn_sgd_step(nn_params *p, float lr, float recurrent_scale);

/* Exponential smoothing (Marian's --exponential-smoothing): the weight of update
 * t (1-based, t = p->step after the optimiser's step) in the average,
 * max(factor, 9 / (t + 9)), so that early averages follow the weights, which
 * move fast then (Marian's max(f, 1 - (b+1)/(b+10)) with b = t - 1 updates
 * before; without its batch-size correction). */
float nn_ema_decay(double factor, long t);
/* ema = (1 - decay) * ema + decay * w over the shard (p->ema set). */
void nn_ema_step(nn_params *p, float decay);

#endif
