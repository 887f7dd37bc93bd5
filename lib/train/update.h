/* One update of the parameters from a batch, whole: the gradient, data-parallel
 * over threads and processes; its norm and clipping; the optimiser's step (Adam or
 * SGD) and the weights' moving average on this rank's shard of the state; the
 * weights gathered. The loop (train/loop.c) calls nmt_update_gradient and
 * nmt_update_clip, looks at the loss (a NaN/Inf batch is no update) and then calls
 * nmt_update_apply.
 *
 * The gradient: the batch's sentences are cut into contiguous parts of equal work
 * (train/balance.h: not of equal count, or the part with the longest sentences
 * keeps the others waiting), each worker (a
 * thread with one BLAS thread) runs forward and backward on its part with its own
 * graph and gradient buffer, and the buffers are summed in part order. Small GEMMs
 * on one thread each beat one split over the cores (OpenBLAS's threads synchronise
 * per call), and the loops between GEMMs run in parallel too.
 *
 * Under mpirun the workers of all ranks are one row of slots, rank after
 * rank (slot = rank * W + worker): the parts, their dropout masks and the
 * order of the sum depend on the slots alone, so N ranks of W threads give
 * the bits of one process with N * W threads. With an optimizer delay D the
 * batch is cut into D times as many parts, run in D passes over the slots;
 * each worker's buffer accumulates its passes before the one sum.
 *
 * The result depends on the slots and D but is deterministic for them, so
 * --resume stays exact. */
#ifndef NMT_TRAIN_UPDATE_H
#define NMT_TRAIN_UPDATE_H
#include "comm/comm.h"
#include "models/batch.h"
#include "models/net.h"
#include "train/device_sum.h"
#include "train/optimizer.h"

/* NMT_MIN_PART: fewer sentences per part than this: fewer slots (a GEMM needs rows). */
enum { NMT_MAX_WORKERS = 8, NMT_MIN_PART = 8 };

typedef struct nmt_worker nmt_worker;

typedef struct {
  int workers;                /* W, this process's, fixed for the run */
  int delay;                  /* D, passes per update (1 after init) */
  nmt_comm *comm;             /* the ranks (after init: the local one); all have the same W */
  nmt_comm *shards;           /* over whom the optimiser's state is sharded (train/shard.h): the
                                 ranks, or this process alone (after init, and when the updates
                                 run on a device, whose state is whole) */
  nmt_worker *w;              /* (W) */
  long words;                 /* target tokens of the last batch, all ranks' */
  nmt_device_sum *dev;        /* the sum of gradients on a device under mpirun, or NULL */
  double *sumsq;              /* when `summed`: the sum's chunk sums of squares of this rank's
                                 shard (nn_sumsq_chunks'), so the norm takes no pass of its own */
  bool summed;
} nmt_updater;

int nmt_updater_init(nmt_updater *u, int workers, size_t nparams);
void nmt_updater_free(nmt_updater *u);

/* Pairs pairs[0..n) of c as one batch: this rank's shard of p->g
 * (nmt_comm_shard; the whole with one process) gets the gradient of the summed
 * loss divided by the target tokens (the mean per token), *loss the summed
 * loss (NaN/Inf passed through; then the gradient is not computed), the same
 * on every rank. Slots: S' = min(size * W, the most with n / (D * S') >= 8
 * sentences per part, at least 1); the pairs are cut into D * S' contiguous
 * parts of equal work (train/balance.h), and part q runs in pass q / S' on
 * slot q % S' and draws the dropout masks of (seed, step, q), whichever thread
 * or rank runs it. A
 * failure on any rank is returned on all (comm/comm.h, nmt_comm_exchange). */
int nmt_update_gradient(nmt_updater *u, const nmt_corpus *c, const long *pairs, int n,
                        const nmt_net *net, nn_params *p, uint64_t seed, uint64_t step,
                        double *loss, long *ntokens);

/* After nmt_update_gradient gave `loss`: *norm the whole gradient's L2 norm, the
 * same on every rank (NaN when loss is NaN/Inf: there is no gradient), and the
 * gradient scaled to norm clip_norm when it is over it (clip_norm 0: never). */
int nmt_update_clip(nmt_updater *u, nn_params *p, double loss, double clip_norm, double *norm);

/* What the optimiser does with the gradient. */
typedef struct {
  nmt_optimizer optimizer;
  float lr;                   /* this update's rate (the schedule's, train/schedule.h) */
  float recurrent;            /* the recurrent views' rate relative to lr (1: the same) */
  double ema;                 /* the moving average's factor (nn_ema_decay; 0: none kept) */
} nmt_update_rule;

/* The optimiser's step on this rank's shard of the weights with the clipped
 * gradient, the weights' moving average (when p keeps one), then the weights
 * gathered from the shards to every rank. */
int nmt_update_apply(nmt_updater *u, nn_params *p, const nmt_update_rule *rule);

#endif
