/* The gradient's sum on a device; see train/device_sum.h. */
#include "train/device_sum.h"
#include "base/clock.h"
#include "base/err.h"
#include "comm/comm_device.h"
#include "nn/backend.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nmt_device_sum {
  nmt_comm *dc;           /* NCCL's or the staged one */
  nmt_comm *host;         /* whose reduce_s counts the time of the moves */
  const nn_backend *be;
  float *recv;            /* (slots × shard) on the device: every slot's slice of this rank's shard */
  size_t cap;             /* floats */
  size_t *v;              /* (4 × size) counts and displacements */
};

int nmt_device_sum_open(nmt_device_sum **out, nmt_comm *host, const nn_backend *be, char *note, size_t n) {
  nmt_device_sum *d = calloc(1, sizeof *d);
  if (!d || !(d->v = calloc(4 * (size_t)host->size, sizeof *d->v))) {
    free(d);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  d->be = be, d->host = host;
  const char *off = getenv("NMT_NCCL");
  int st = off && !strcmp(off, "0") ? nmt_fail(NMT_EUSAGE, "NMT_NCCL=0") : nmt_comm_nccl(&d->dc, host);
  if (!st) {
    snprintf(note, n, "the gradients of %d ranks are summed with NCCL, GPU to GPU", host->size);
  } else {
    snprintf(note, n, "the gradients of %d ranks are summed through the host (%s): %s", host->size,
             host->ops->name, nmt_errmsg());
    host->failed_together = false; /* NCCL's failure is no error of the run's */
    st = nmt_comm_staged(&d->dc, host, (nmt_comm_copies){be->to_host, be->to_device});
  }
  if (st) nmt_device_sum_free(d);
  *out = st ? NULL : d;
  return st;
}

void nmt_device_sum_free(nmt_device_sum *d) {
  if (!d) return;
  if (d->dc) nmt_comm_close(d->dc);
  if (d->recv) d->be->free(d->recv);
  free(d->v);
  free(d);
}

int nmt_device_sum_run(nmt_device_sum *d, nn_params *p, const int *counts) {
  nmt_comm *c = d->dc;
  const nn_backend *be = d->be;
  size_t *scount = d->v, *sdispl = scount + c->size, *rcount = sdispl + c->size, *rdispl = rcount + c->size;
  size_t lo, hi, me_lo, me_hi, at = 0;
  int slots = 0;
  nmt_comm_shard(c, p->n, c->rank, &me_lo, &me_hi);
  size_t shard = me_hi - me_lo;
  /* to rank r: my slot's slice of its shard, straight from the gradient */
  for (int r = 0; r < c->size; r++) {
    if (counts[r] > 1) return nmt_fail(NMT_EIO, "rank %d: %d slots on a device, where one runs", r, counts[r]);
    nmt_comm_shard(c, p->n, r, &lo, &hi);
    scount[r] = counts[c->rank] ? hi - lo : 0, sdispl[r] = lo;
    rcount[r] = (size_t)counts[r] * shard, rdispl[r] = at, at += rcount[r];
    slots += counts[r];
  }
  int st = NMT_OK;
  if (at > d->cap) {
    if (d->recv) be->free(d->recv), d->recv = NULL, d->cap = 0;
    if (!(st = be->alloc((void **)&d->recv, at * sizeof(float)))) d->cap = at;
  }
  double t0 = nmt_seconds();
  if (!st) st = c->ops->alltoallv(c, p->g, scount, sdispl, d->recv, rcount, rdispl);
  d->host->reduce_s += nmt_seconds() - t0;
  /* my shard = slot 0's slice + slot 1's + ..., left to right */
  float *out = p->g + me_lo;
  if (!st && shard) st = be->copy(out, d->recv, shard * sizeof(float));
  for (int k = 1; !st && shard && k < slots; k++) be->axpby_fwd(out, out, d->recv + (size_t)k * shard, 1.0f, shard);
  for (int r = 0; r < c->size; r++) nmt_comm_shard(c, p->n, r, &sdispl[r], &hi), scount[r] = hi - sdispl[r];
  if (st) return st;
  t0 = nmt_seconds();
  st = c->ops->allgatherv(c, p->g, scount, sdispl);
  d->host->reduce_s += nmt_seconds() - t0;
  return st;
}
