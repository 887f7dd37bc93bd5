/* The optimiser's state sharded over the ranks; see train/shard.h. */
#include "train/shard.h"
#include "base/err.h"
#include "nn/arena.h"
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

static size_t chunks_of(size_t n) { return (n + NN_NORM_CHUNK - 1) / NN_NORM_CHUNK; }

int nmt_shard_grad_norm(nmt_comm *c, const nn_params *p, double *norm) {
  if (p->be) { /* a device's parameters are whole (no mpirun there): its kernel sums them */
    *norm = nn_params_grad_norm(p);
    return NMT_OK;
  }
  /* every rank's chunk sums, each rank's block padded to the most a rank has */
  size_t per = (chunks_of(p->n) + (size_t)c->size - 1) / (size_t)c->size, lo, hi;
  double *all = calloc((size_t)(c->size + 1) * (per ? per : 1), sizeof *all), *mine = all + (size_t)c->size * per;
  if (!all) return nmt_fail(NMT_EIO, "out of memory");
  nn_sumsq_chunks(p->g + p->lo, p->hi - p->lo, mine);
  int st = c->ops->allgather(c, mine, all, per * sizeof *all);
  double sum = 0;
  for (int r = 0; r < c->size && !st; r++) {
    nmt_comm_shard(c, p->n, r, &lo, &hi);
    for (size_t k = 0; k < chunks_of(hi - lo); k++) sum += all[(size_t)r * per + k];
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

int nmt_shard_whole(nmt_comm *c, const nn_params *p, float *whole[3]) {
  const float *mine[3] = {p->m, p->v, p->ema};
  whole[0] = whole[1] = whole[2] = NULL;
  if (c->size == 1) {
    for (int i = 0; i < 3; i++) whole[i] = (float *)mine[i];
    return NMT_OK;
  }
  int st = NMT_OK;
  for (int i = 0; i < 3 && mine[i] && !st; i++) {
    /* rank 0 alone out of memory ends the job (a rank's own error: nmt_comm_abort) */
    if (c->rank == 0 && !(whole[i] = nn_big_alloc((p->n ? p->n : 1) * sizeof(float))))
      st = nmt_fail(NMT_EIO, "out of memory: the optimiser's state of %zu parameters for a checkpoint", p->n);
    if (!st) st = gather_to_rank0(c, p, mine[i], whole[i]);
  }
  if (st) nmt_shard_whole_free(c, whole);
  return st;
}

void nmt_shard_whole_free(const nmt_comm *c, float *whole[3]) {
  for (int i = 0; i < 3 && c->size > 1; i++) free(whole[i]), whole[i] = NULL;
}
