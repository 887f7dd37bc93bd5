/* One update: the data-parallel gradient, clipping, the optimiser and the moving
 * average; see train/update.h. */
#include "train/update.h"
#include "base/err.h"
#include "base/pool.h"
#include "nn/arena.h"
#include "nn/optim.h"
#include "nn/parallel.h"
#include "train/balance.h"
#include "train/shard.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct nmt_worker {
  int part;         /* this pass's part of the batch: its index in the split, which names its masks */
  int pass;         /* 0: the first of the update, which starts the gradient buffer afresh */
  nmt_batch batch;
  nn_graph g;
  float *grad;      /* workers > 0: their own gradient buffer */
  /* this update's job */
  const nmt_net *net;
  nn_params p;      /* the model's, with g = grad for workers > 0 */
  uint64_t seed, step;
  float scale;      /* 1 / target tokens of the whole batch */
  double loss;      /* this pass's part */
  long ntok;
  int status;
};

/* What a rank tells the others after its passes. */
typedef struct {
  double loss[NMT_MAX_WORKERS]; /* each worker's summed over its passes */
  long ntok;
} rank_header;

int nmt_updater_init(nmt_updater *s, int workers, size_t nparams) {
  s->workers = workers < 1 ? 1 : workers > NMT_MAX_WORKERS ? NMT_MAX_WORKERS : workers;
  s->delay = 1;
  s->comm = s->shards = nmt_comm_local();
  s->words = 0;
  s->dev = NULL;
  s->w = calloc((size_t)s->workers, sizeof *s->w);
  s->sumsq = malloc((nn_norm_chunks(nparams) + 1) * sizeof *s->sumsq); /* + 1: not malloc(0) */
  if (!s->w || !s->sumsq) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 1; i < s->workers; i++)
    if (!(s->w[i].grad = nn_big_alloc(nparams * sizeof(float)))) return nmt_fail(NMT_EIO, "out of memory");
  return NMT_OK;
}

void nmt_updater_free(nmt_updater *s) {
  for (int i = 0; s->w && i < s->workers; i++) {
    nn_graph_free(&s->w[i].g);
    nmt_batch_free(&s->w[i].batch);
    free(s->w[i].grad);
  }
  free(s->w);
  free(s->sumsq);
  nmt_device_sum_free(s->dev);
  memset(s, 0, sizeof *s);
}

/* Forward and backward of worker `part`'s part of the batch; with several
 * parts, its nn_parallel loops stay in its thread. */
static void work(void *ctx, int part, int parts) {
  nmt_worker *k = &((nmt_updater *)ctx)->w[part];
  nn_parallel_nested(parts > 1);
  /* each worker clears its own buffer, all at once: the first one's cleared alone before
   * the pass took a step's 1%, and the others' clearing inside it made them the last to end */
  if (!k->pass) nn_params_zero_grad(&k->p);
  k->g.seed = k->seed;
  k->g.part = (uint32_t)k->part; /* part 0's masks are the single-worker ones */
  nn_graph_reset(&k->g, true, k->step);
  nn_tensor *loss = nmt_net_forward(&k->g, k->net, &k->p, &k->batch, &k->ntok);
  float value = NAN;
  k->status = loss && nn_to_host(&k->g, loss, &value) ? NMT_OK : nmt_errcode();
  k->loss = value;
  if (loss && isfinite(k->loss)) k->status = nn_tape_backward(&k->g, loss, k->scale);
  nn_parallel_nested(false);
}

/* Every slot's gradient summed in slot order into this rank's shard of p->g
 * (nmt_comm_shard): the optimiser updates that shard alone (train/shard.h). */
static int sum_slots(nmt_updater *s, nn_params *p, const int *counts) {
  nmt_comm *c = s->comm;
  float *parts[NMT_MAX_WORKERS];
  for (int i = 0; i < counts[c->rank]; i++) parts[i] = i ? s->w[i].grad : p->g;
  const float **got;
  int st = nmt_comm_scatter_parts(c, parts, counts, p->n, &got);
  if (st) return st;
  size_t lo, hi;
  nmt_comm_shard(c, p->n, c->rank, &lo, &hi);
  int total = 0;
  for (int r = 0; r < c->size; r++) total += counts[r];
  if (hi > lo) /* a small model leaves the last ranks no shard */
    nn_sum_sumsq_chunks(p->g + lo, got, total, hi - lo, s->sumsq);
  s->summed = true;
  return NMT_OK;
}

/* The target tokens of pairs[0..n), </s> included (nmt_batch's words). */
static long target_words(const nmt_corpus *c, const long *pairs, int n) {
  long words = 0;
  for (int i = 0; i < n; i++) words += c->tgt_off[pairs[i] + 1] - c->tgt_off[pairs[i]] + 1;
  return words;
}

/* This rank's passes: its workers' parts of every pass, summed per worker. */
static int run_passes(nmt_updater *s, const nmt_corpus *c, const long *pairs, int n, int slots, int mine,
                      rank_header *h) {
  int first = s->comm->rank * s->workers, parts = s->delay * slots, cut[parts + 1];
  nmt_balance_cut(c, pairs, n, parts, cut);
  for (int d = 0; d < s->delay && mine; d++) { /* a rank past the slots idles */
    for (int i = 0; i < mine; i++) {
      int q = d * slots + first + i;
      s->w[i].part = q, s->w[i].pass = d;
      int st = nmt_batch_fill(&s->w[i].batch, c, pairs + cut[q], cut[q + 1] - cut[q]);
      if (st) return st;
    }
    nmt_pool_run(mine, work, s);
    for (int i = 0; i < mine; i++) {
      if (s->w[i].status) return s->w[i].status;
      h->loss[i] += s->w[i].loss, h->ntok += s->w[i].ntok;
    }
  }
  return NMT_OK;
}

int nmt_update_gradient(nmt_updater *s, const nmt_corpus *c, const long *pairs, int n,
                        const nmt_net *net, nn_params *p, uint64_t seed, uint64_t step,
                        double *loss, long *ntokens) {
  nmt_comm *comm = s->comm;
  int slots = comm->size * s->workers;
  while (slots > 1 && n / (s->delay * slots) < NMT_MIN_PART) slots--;
  int counts[comm->size]; /* each rank's slots */
  for (int r = 0; r < comm->size; r++) {
    int k = slots - r * s->workers;
    counts[r] = k < 0 ? 0 : k > s->workers ? s->workers : k;
  }
  int mine = counts[comm->rank];
  s->words = target_words(c, pairs, n);
  s->summed = false;
  if (!mine) nn_params_zero_grad(p); /* a rank past the slots: no worker clears it */
  for (int i = 0; i < mine; i++) {
    nmt_worker *k = &s->w[i];
    k->net = net, k->p = *p, k->seed = seed, k->step = step;
    k->g.be = p->be; /* the parameters' backend (NULL: the CPU) */
    k->scale = 1.0f / (float)(s->words ? s->words : 1);
    if (i) k->p.g = k->grad;
  }
  rank_header h = {{0}, 0}, all[comm->size];
  int st = run_passes(s, c, pairs, n, slots, mine, &h);
  if ((st = nmt_comm_exchange(comm, st, &h, all, sizeof h))) return st;
  *loss = 0, *ntokens = 0;
  for (int r = 0; r < comm->size; r++) {
    for (int i = 0; i < counts[r]; i++) *loss += all[r].loss[i];
    *ntokens += all[r].ntok;
  }
  bool one_part = slots == 1 && comm->size == 1; /* p->g holds the gradient already */
  if (one_part || !isfinite(*loss)) return NMT_OK;
  return s->dev ? nmt_device_sum_run(s->dev, p, counts) : sum_slots(s, p, counts);
}

int nmt_update_clip(nmt_updater *u, nn_params *p, double loss, double clip_norm, double *norm) {
  *norm = NAN;
  int st = isfinite(loss) ? nmt_shard_grad_norm(u->shards, p, u->summed ? u->sumsq : NULL, norm) : NMT_OK;
  if (!st && clip_norm > 0) nn_params_scale_grad(p, *norm, clip_norm);
  return st;
}

int nmt_update_apply(nmt_updater *u, nn_params *p, const nmt_update_rule *rule) {
  if (rule->optimizer == NMT_SGD) nn_sgd_step(p, rule->lr, rule->recurrent);
  else nn_adam_step(p, &(nn_adam){rule->lr, 0.9f, 0.999f, 1e-8f, rule->recurrent});
  if (p->ema) nn_ema_step(p, nn_ema_decay(rule->ema, p->step));
  return nmt_comm_gather_shards(u->shards, p->w, p->n); /* each rank updated its shard */
}
