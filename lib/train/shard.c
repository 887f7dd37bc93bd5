/* The optimiser's state sharded over the ranks; see train/shard.h. */
#include "train/shard.h"
#include "base/err.h"
#include "nn/optim.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(NMT_SHARD_GRAIN % NN_NORM_CHUNK == 0, "a shard must be whole chunks of the norm");

int nmt_shard_state(nmt_comm *c, nn_params *p) {
  size_t lo, hi;
  nmt_comm_shard(c, p->n, c->rank, &lo, &hi);
  return lo == p->lo && hi == p->hi ? NMT_OK : nn_params_shard(p, lo, hi);
}

int nmt_shard_grad_norm(nmt_comm *c, const nn_params *p, const double *sums, double *norm) {
  if (c->size == 1 && !sums) { /* the whole buffer, wherever it is (a device's kernel sums a device's) */
    *norm = nn_params_grad_norm(p);
    return NMT_OK;
  }
  /* every rank's chunk sums (one rank's: those given), each rank's block padded to the
   * most a rank has, folded in chunk order as nn_sumsq does */
  size_t per = (nn_norm_chunks(p->n) + (size_t)c->size - 1) / (size_t)c->size, lo, hi;
  double *all = calloc((size_t)(c->size + 1) * (per ? per : 1), sizeof *all), *mine = all + (size_t)c->size * per;
  if (!all) return nmt_fail(NMT_EIO, "out of memory");
  if (sums) memcpy(mine, sums, nn_norm_chunks(p->hi - p->lo) * sizeof *mine);
  else nn_sumsq_chunks(p->g + p->lo, p->hi - p->lo, mine);
  int st = c->ops->allgather(c, mine, all, per * sizeof *all);
  double sum = 0;
  for (int r = 0; r < c->size && !st; r++) {
    nmt_comm_shard(c, p->n, r, &lo, &hi);
    for (size_t k = 0; k < nn_norm_chunks(hi - lo); k++) sum += all[(size_t)r * per + k];
  }
  free(all);
  *norm = sqrt(sum);
  return st;
}

int nmt_shard_swap_ema(nmt_comm *c, nn_params *p, bool in) {
  if (!p->ema) return NMT_OK;
  if (c->size == 1) {
    nn_params_swap_ema(p);
    return NMT_OK;
  }
  int st = NMT_OK;
  if (in) {
    memcpy(p->g + p->lo, p->ema, (p->hi - p->lo) * sizeof(float));
    st = nmt_comm_gather_shards(c, p->g, p->n);
  }
  float *w = p->w;
  p->w = p->g, p->g = w;
  return st;
}

/* Every rank's shard of one state buffer into rank 0's whole (NULL elsewhere). */
static int gather_to_rank0(nmt_comm *c, const nn_params *p, const float *shard, float *whole) {
  size_t *count = calloc(4 * (size_t)c->size, sizeof *count);
  if (!count) return nmt_fail(NMT_EIO, "out of memory");
  size_t *displ = count + c->size, *rcount = displ + c->size, *rdispl = rcount + c->size, hi;
  count[0] = p->hi - p->lo; /* mine to rank 0, nothing to the others */
  for (int r = 0; r < c->size && c->rank == 0; r++)
    nmt_comm_shard(c, p->n, r, &rdispl[r], &hi), rcount[r] = hi - rdispl[r];
  int st = c->ops->alltoallv(c, shard, count, displ, whole, rcount, rdispl);
  free(count);
  return st;
}

/* State buffer k gathered as the checkpoint writes it. */
typedef struct {
  nmt_comm *c;
  const nn_params *p;
  float *whole; /* rank 0's: one buffer for the three */
} gathering;

static int gather_state(void *ctx, int k) {
  const gathering *g = ctx;
  const float *mine[3] = {g->p->m, g->p->v, g->p->ema};
  return gather_to_rank0(g->c, g->p, mine[k], g->whole);
}

int nmt_shard_checkpoint(nmt_comm *c, nmt_model *m, const nmt_train_state *s, const char *path) {
  if (c->size == 1) return nmt_checkpoint_save(m, s, path);
  nn_params *p = &m->params;
  gathering g = {c, p, NULL};
  int st = NMT_OK;
  if (c->rank) { /* the others send their shards as rank 0 writes */
    for (int k = 0; k < (p->ema ? 3 : 2) && !st; k++) st = gather_state(&g, k);
    return st;
  }
  /* Rank 0 gathers into its gradient buffer: of the gradient only its shard
   * may still be needed (a save within a step, before the update), so that
   * alone is put aside. Out of memory or failing to write, rank 0 alone ends
   * the job (a rank's own error: nmt_comm_abort). */
  size_t mine = p->hi - p->lo;
  float *aside = malloc((mine ? mine : 1) * sizeof *aside);
  if (!aside) return nmt_fail(NMT_EIO, "out of memory: a gradient shard of %zu floats", mine);
  memcpy(aside, p->g + p->lo, mine * sizeof *aside);
  nmt_model whole = *m;
  g.whole = whole.params.m = whole.params.v = p->g;
  whole.params.ema = p->ema ? p->g : NULL;
  whole.params.lo = 0, whole.params.hi = p->n;
  st = nmt_checkpoint_save_filled(&whole, s, path, gather_state, &g);
  memcpy(p->g + p->lo, aside, mine * sizeof *aside);
  free(aside);
  return st;
}
