/* The data-parallel gradient; see train/step.h. */
#include "train/step.h"
#include "base/err.h"
#include "base/pool.h"
#include "nn/arena.h"
#include "nn/parallel.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fewer sentences per worker than this: fewer workers (a GEMM needs rows). */
enum { MIN_SENTENCES = 8 };

struct nmt_worker {
  int index;
  int part;         /* this step's part of the batch: its index in the split, which names its masks */
  nn_batch batch;
  nn_graph g;
  float *grad;      /* workers > 0: their own gradient buffer */
  /* this step's job */
  const nn_net *net;
  nn_params p;      /* the model's, with g = grad for workers > 0 */
  uint64_t seed, step;
  float scale;      /* 1 / target tokens of the whole batch */
  double loss;
  long ntok;
  int status;
};

int nmt_stepper_init(nmt_stepper *s, int workers, size_t nparams) {
  s->workers = workers < 1 ? 1 : workers > NMT_MAX_WORKERS ? NMT_MAX_WORKERS : workers;
  s->words = 0;
  s->w = calloc((size_t)s->workers, sizeof *s->w);
  if (!s->w) return nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < s->workers; i++) {
    s->w[i].index = i;
    if (i && !(s->w[i].grad = nn_big_alloc(nparams * sizeof(float)))) return nmt_fail(NMT_EIO, "out of memory");
  }
  return NMT_OK;
}

void nmt_stepper_free(nmt_stepper *s) {
  for (int i = 0; s->w && i < s->workers; i++) {
    nn_graph_free(&s->w[i].g);
    nn_batch_free(&s->w[i].batch);
    free(s->w[i].grad);
  }
  free(s->w);
  memset(s, 0, sizeof *s);
}

/* Forward and backward of worker `part`'s part of the batch; with several
 * parts, its nn_parallel loops stay in its thread. */
static void work(void *ctx, int part, int parts) {
  nmt_worker *k = &((nmt_stepper *)ctx)->w[part];
  nn_parallel_nested(parts > 1);
  if (k->index) memset(k->p.g, 0, sizeof(float) * k->p.n);
  k->g.seed = k->seed;
  k->g.part = (uint32_t)k->part; /* part 0's masks are the single-worker ones */
  nn_graph_reset(&k->g, true, k->step);
  nn_tensor *loss = nn_net_forward(&k->g, k->net, &k->p, &k->batch, &k->ntok);
  float value = NAN;
  k->status = loss && nn_to_host(&k->g, loss, &value) ? NMT_OK : nmt_errcode();
  k->loss = value;
  if (loss && isfinite(k->loss)) k->status = nn_tape_backward(&k->g, loss, k->scale);
  nn_parallel_nested(false);
}

typedef struct {
  float *g;
  const nmt_stepper *s;
  int used;
} sum_job;

static void sum_part(void *ctx, int part, int parts) {
  sum_job *j = ctx;
  size_t lo, hi;
  nn_part_range(j->s->w[0].p.n, part, parts, &lo, &hi);
  for (int w = 1; w < j->used; w++) {
    const float *x = j->s->w[w].grad;
    for (size_t i = lo; i < hi; i++) j->g[i] += x[i];
  }
}

int nmt_step_gradient(nmt_stepper *s, const nmt_corpus *c, const long *pairs, int n,
                      const nn_net *net, nn_params *p, uint64_t seed, uint64_t step,
                      double *loss, long *ntokens) {
  int used = s->workers;
  while (used > 1 && n / used < MIN_SENTENCES) used--;
  s->words = 0;
  int st = NMT_OK;
  /* Part i is sentences [a, b) of the batch; worker i runs it. */
  for (int i = 0; i < used && !st; i++) {
    long a = (long)n * i / used, b = (long)n * (i + 1) / used;
    s->w[i].part = i;
    st = nn_batch_fill(&s->w[i].batch, c, pairs + a, (int)(b - a));
    s->words += s->w[i].batch.words;
  }
  if (st) return st;
  nn_params_zero_grad(p);
  for (int i = 0; i < used; i++) {
    nmt_worker *k = &s->w[i];
    k->net = net, k->p = *p, k->seed = seed, k->step = step;
    k->g.be = p->be; /* the parameters' backend (NULL: the CPU) */
    k->scale = 1.0f / (float)(s->words ? s->words : 1);
    if (i) k->p.g = k->grad;
  }
  nmt_pool_run(used, work, s);
  *loss = 0, *ntokens = 0;
  for (int i = 0; i < used && !st; i++) {
    st = s->w[i].status;
    *loss += s->w[i].loss, *ntokens += s->w[i].ntok;
  }
  if (!st && used > 1 && isfinite(*loss)) {
    sum_job j = {p->g, s, used};
    nn_parallel(p->n, sum_part, &j);
  }
  return st;
}
