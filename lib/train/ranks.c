/* The ranks' agreement at the start of an mpirun; see train/ranks.h. */
#include "train/ranks.h"
#include "base/err.h"
#include "io/model_file.h"
#include "nn/backend.h"
#include "train/resume.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What must be equal on every rank for their steps to be parts of one. */
typedef struct {
  long pairs;
  uint64_t corpus;  /* nmt_corpus_fingerprint */
  size_t nparams;
  uint64_t options; /* the effective options (the model's train_config) */
  int workers, delay, ema;
  bool device;      /* the steps run on a GPU: a slot per rank, the sum there */
  long step;        /* where the run starts: a checkpoint every rank must see */
} rank_facts;

static rank_facts facts_of(const nmt_trainer *t) {
  const nmt_model *m = t->model;
  const char *opts = m->train_config ? m->train_config : "";
  return (rank_facts){t->train->n, nmt_corpus_fingerprint(t->train), m->params.n,
                      nmt_fnv1a(NMT_FNV_INIT, opts, strlen(opts)), t->o.workers > 1 ? t->o.workers : 1,
                      t->o.delay > 1 ? t->o.delay : 1, m->params.ema != NULL,
                      t->o.be && !t->o.be->host, t->s.step};
}

/* The first way rank r differs from rank 0, as a message; NMT_OK when it does not. */
static int differs(int r, const rank_facts *a, const rank_facts *z) {
  if (a->pairs != z->pairs || a->corpus != z->corpus)
    return nmt_fail(NMT_EINPUT, "rank %d: the training data differ from rank 0's (%ld sentence pairs with "
                    "fingerprint %016" PRIx64 ", rank 0's %ld with %016" PRIx64 "): give every rank the same "
                    "--train-sets, vocabularies and --max-length", r, a->pairs, a->corpus, z->pairs, z->corpus);
  if (a->nparams != z->nparams)
    return nmt_fail(NMT_EINPUT, "rank %d: the model has %zu parameters, rank 0's %zu: give every rank the same "
                    "options and vocabularies", r, a->nparams, z->nparams);
  if (a->options != z->options)
    return nmt_fail(NMT_EINPUT, "rank %d: the options differ from rank 0's (nmt-train --dump-config shows "
                    "them): run the same command on every rank", r);
  if (a->workers != z->workers)
    return nmt_fail(NMT_EINPUT, "rank %d: %d worker threads, rank 0's %d: give every rank the same "
                    "--cpu-threads", r, a->workers, z->workers);
  if (a->delay != z->delay || a->ema != z->ema)
    return nmt_fail(NMT_EINPUT, "rank %d: --optimizer-delay or --exponential-smoothing differ from rank 0's", r);
  if (a->device != z->device)
    return nmt_fail(NMT_EINPUT, "rank %d trains on the %s, rank 0 on the %s: give every rank a GPU (a --device "
                    "cuda without one falls back to the CPU)", r, a->device ? "GPU" : "CPU", z->device ? "GPU" : "CPU");
  if (a->step != z->step)
    return nmt_fail(NMT_EINPUT, "rank %d: starts at step %ld, rank 0 at step %ld: every rank must read the "
                    "same checkpoint (a folder all nodes share)", r, a->step, z->step);
  return NMT_OK;
}

/* Rank 0's weights, moments, average and state to every rank. */
static int give_rank0s(nmt_trainer *t) {
  nmt_comm *c = t->o.comm;
  nn_params *p = &t->model->params;
  float *bufs[] = {p->w, p->m, p->v, p->ema};
  int st = NMT_OK;
  for (int i = 0; i < 4 && !st; i++)
    if (bufs[i]) st = c->ops->bcast(c, bufs[i], p->n * sizeof(float), 0);
  if (!st) st = c->ops->bcast(c, &p->step, sizeof p->step, 0);
  if (!st) st = c->ops->bcast(c, &t->s, sizeof t->s, 0);
  return st;
}

int nmt_train_ranks_agree(nmt_trainer *t) {
  nmt_comm *c = t->o.comm;
  if (!c || c->size == 1) return NMT_OK;
  rank_facts mine = facts_of(t), *all = calloc((size_t)c->size, sizeof *all);
  if (!all) return nmt_fail(NMT_EIO, "out of memory");
  int st = nmt_comm_exchange(c, NMT_OK, &mine, all, sizeof mine);
  for (int r = 1; r < c->size && !st; r++) st = differs(r, &all[r], &all[0]);
  free(all);
  if (st) {
    c->failed_together = true; /* every rank found the same difference */
    return st;
  }
  return give_rank0s(t);
}
