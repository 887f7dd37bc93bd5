/* One training step's gradient, data-parallel: the batch's sentences are cut
 * into W contiguous parts, each worker (a thread with one BLAS thread) runs
 * forward and backward on its part with its own graph and gradient buffer,
 * and the buffers are summed in worker order. Small GEMMs on one thread each
 * beat one split over the cores (OpenBLAS's threads synchronise per call),
 * and the loops between GEMMs run in parallel too. W = 1 is the plain step.
 * The result depends on W (the split, so masks and summation order) but is
 * deterministic for a given W, so --resume stays exact. */
#ifndef NMT_TRAIN_STEP_H
#define NMT_TRAIN_STEP_H
#include "models/batch.h"
#include "models/net.h"

enum { NMT_MAX_WORKERS = 8 };

typedef struct nmt_worker nmt_worker;

typedef struct {
  int workers;                /* W, fixed for the run */
  nmt_worker *w;              /* (W) */
  long words;                 /* target tokens of the last batch */
} nmt_stepper;

int nmt_stepper_init(nmt_stepper *s, int workers, size_t nparams);
void nmt_stepper_free(nmt_stepper *s);

/* Pairs pairs[0..n) of c as one batch: p->g gets the gradient of the summed
 * loss divided by the target tokens (the mean per token), *loss the summed
 * loss (NaN/Inf passed through; then the gradient is not computed). Part q
 * of the split (sentences [n·q/W', n·(q+1)/W'), W' the workers used) draws
 * the dropout masks of (seed, step, q), whichever thread runs it. */
int nmt_step_gradient(nmt_stepper *s, const nmt_corpus *c, const long *pairs, int n,
                      const nn_net *net, nn_params *p, uint64_t seed, uint64_t step,
                      double *loss, long *ntokens);

#endif
