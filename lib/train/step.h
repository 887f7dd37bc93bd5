/* One training step's gradient, data-parallel over threads and processes:
 * the batch's sentences are cut into contiguous parts, each worker (a thread
 * with one BLAS thread) runs forward and backward on its part with its own
 * graph and gradient buffer, and the buffers are summed in part order. Small
 * GEMMs on one thread each beat one split over the cores (OpenBLAS's threads
 * synchronise per call), and the loops between GEMMs run in parallel too.
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
#ifndef NMT_TRAIN_STEP_H
#define NMT_TRAIN_STEP_H
#include "comm/comm.h"
#include "models/batch.h"
#include "models/net.h"
#include "train/step_device.h"

/* NMT_MIN_PART: fewer sentences per part than this: fewer slots (a GEMM needs rows). */
enum { NMT_MAX_WORKERS = 8, NMT_MIN_PART = 8 };

typedef struct nmt_worker nmt_worker;

typedef struct {
  int workers;                /* W, this process's, fixed for the run */
  int delay;                  /* D, passes per update (1 after init) */
  nmt_comm *comm;             /* the ranks (after init: the local one); all have the same W */
  nmt_worker *w;              /* (W) */
  long words;                 /* target tokens of the last batch, all ranks' */
  nmt_device_sum *dev;        /* the sum of gradients on a device under mpirun, or NULL */
} nmt_stepper;

int nmt_stepper_init(nmt_stepper *s, int workers, size_t nparams);
void nmt_stepper_free(nmt_stepper *s);

/* Pairs pairs[0..n) of c as one batch: this rank's shard of p->g
 * (nmt_comm_shard; the whole with one process) gets the gradient of the summed
 * loss divided by the target tokens (the mean per token), *loss the summed
 * loss (NaN/Inf passed through; then the gradient is not computed), the same
 * on every rank. Slots: S' = min(size * W, the most with n / (D * S') >= 8
 * sentences per part, at least 1); part q of the D * S' (sentences
 * [n·q/(D·S'), n·(q+1)/(D·S'))) runs in pass q / S' on slot q % S' and draws
 * the dropout masks of (seed, step, q), whichever thread or rank runs it. A
 * failure on any rank is returned on all (comm/comm.h, nmt_comm_exchange). */
int nmt_step_gradient(nmt_stepper *s, const nmt_corpus *c, const long *pairs, int n,
                      const nmt_net *net, nn_params *p, uint64_t seed, uint64_t step,
                      double *loss, long *ntokens);

#endif
