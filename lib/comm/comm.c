/* What every communicator shares: the sharded exchange and the step header;
 * see comm/comm.h. */
#include "comm/comm.h"
#include "base/clock.h"
#include "base/err.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nmt_comm_close(nmt_comm *c) {
  if (c->ops->close) c->ops->close(c);
}

void nmt_comm_shard(const nmt_comm *c, size_t n, int r, size_t *lo, size_t *hi) {
  size_t k = (n + NMT_SHARD_GRAIN - 1) / NMT_SHARD_GRAIN, a = k * (size_t)r / (size_t)c->size * NMT_SHARD_GRAIN,
         b = k * (size_t)(r + 1) / (size_t)c->size * NMT_SHARD_GRAIN;
  *lo = a < n ? a : n;
  *hi = b < n ? b : n;
}

int nmt_comm_reserve(float **buf, size_t *cap, size_t n) {
  if (n <= *cap) return NMT_OK;
  float *b = realloc(*buf, n * sizeof *b);
  if (!b) return nmt_fail(NMT_EIO, "out of memory for %zu floats of gradient exchange", n);
  *buf = b, *cap = n;
  return NMT_OK;
}

int nmt_comm_scatter_parts(nmt_comm *c, float *const *parts, const int *counts, size_t n, const float ***got) {
  int total = 0, mine = counts[c->rank];
  for (int r = 0; r < c->size; r++) total += counts[r];
  if (total > c->got_cap) {
    const float **g = realloc(c->got, (size_t)total * sizeof *g);
    if (!g) return nmt_fail(NMT_EIO, "out of memory");
    c->got = g, c->got_cap = total;
  }
  *got = c->got;
  if (c->size == 1) {
    for (int k = 0; k < total; k++) c->got[k] = parts[k];
    return NMT_OK;
  }
  size_t lo, hi, me_lo, me_hi;
  nmt_comm_shard(c, n, c->rank, &me_lo, &me_hi);
  size_t shard = me_hi - me_lo;
  size_t *scount = calloc(4 * (size_t)c->size, sizeof *scount);
  if (!scount) return nmt_fail(NMT_EIO, "out of memory");
  size_t *sdispl = scount + c->size, *rcount = sdispl + c->size, *rdispl = rcount + c->size;
  /* to rank r: my parts' slices of its shard, part after part */
  size_t at = 0;
  for (int r = 0; r < c->size; r++) {
    nmt_comm_shard(c, n, r, &lo, &hi);
    sdispl[r] = at, scount[r] = (size_t)mine * (hi - lo), at += scount[r];
  }
  int st = nmt_comm_reserve(&c->send, &c->send_cap, at);
  if (!st) st = nmt_comm_reserve(&c->recv, &c->recv_cap, (size_t)total * shard);
  for (int r = 0; r < c->size && !st; r++) {
    nmt_comm_shard(c, n, r, &lo, &hi);
    for (int k = 0; k < mine && hi > lo; k++)
      memcpy(c->send + sdispl[r] + (size_t)k * (hi - lo), parts[k] + lo, (hi - lo) * sizeof(float));
  }
  at = 0;
  for (int r = 0; r < c->size; r++) rdispl[r] = at, rcount[r] = (size_t)counts[r] * shard, at += rcount[r];
  double t0 = nmt_seconds();
  if (!st) st = c->ops->alltoallv(c, c->send, scount, sdispl, c->recv, rcount, rdispl);
  c->reduce_s += nmt_seconds() - t0;
  for (int k = 0; k < total; k++) c->got[k] = c->recv + (size_t)k * shard;
  free(scount);
  return st;
}

int nmt_comm_gather_shards(nmt_comm *c, float *buf, size_t n) {
  if (c->size == 1) return NMT_OK;
  size_t *count = calloc(2 * (size_t)c->size, sizeof *count);
  if (!count) return nmt_fail(NMT_EIO, "out of memory");
  size_t *displ = count + c->size, hi;
  for (int r = 0; r < c->size; r++) nmt_comm_shard(c, n, r, &displ[r], &hi), count[r] = hi - displ[r];
  double t0 = nmt_seconds();
  int st = c->ops->allgatherv(c, buf, count, displ);
  c->reduce_s += nmt_seconds() - t0;
  free(count);
  return st;
}

/* One rank's part of the header exchange: its status and message, then the payload. */
typedef struct {
  int status;
  char msg[512];
} header;

int nmt_comm_exchange(nmt_comm *c, int status, const void *mine, void *all, size_t n) {
  if (c->size == 1) {
    if (n) memcpy(all, mine, n);
    c->failed_together = status != NMT_OK;
    return status;
  }
  size_t one = sizeof(header) + n;
  unsigned char *buf = malloc(one * (size_t)(c->size + 1));
  if (!buf) return nmt_fail(NMT_EIO, "out of memory");
  header *h = (header *)buf;
  memset(h, 0, sizeof *h);
  h->status = status;
  if (status) snprintf(h->msg, sizeof h->msg, "%s", nmt_errmsg());
  if (n) memcpy(buf + sizeof *h, mine, n);
  unsigned char *every = buf + one;
  int st = c->ops->allgather(c, buf, every, one);
  for (int r = 0; r < c->size && !st; r++) {
    header got;
    memcpy(&got, every + one * (size_t)r, sizeof got);
    if (n) memcpy((unsigned char *)all + n * (size_t)r, every + one * (size_t)r + sizeof got, n);
    if (got.status) {
      c->failed_together = true;
      st = nmt_fail(got.status, "rank %d: %s", r, got.msg);
    }
  }
  free(buf);
  return st;
}

int nmt_comm_gather_bytes(nmt_comm *c, const void *mine, size_t n, char **all, size_t *len) {
  *all = NULL;
  int st = c->ops->allgather(c, &n, len, sizeof n);
  size_t most = 0;
  for (int r = 0; r < c->size && !st; r++) most = len[r] > most ? len[r] : most;
  /* each rank's block padded to the longest, then closed up */
  char *buf = st ? NULL : malloc((size_t)(c->size + 1) * most + 1), *padded = buf ? buf + most : NULL;
  if (!st && !buf) st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && n) memcpy(buf, mine, n);
  if (!st) st = c->ops->allgather(c, buf, padded, most);
  for (size_t r = 0, at = 0; r < (size_t)c->size && !st; at += len[r], r++) memmove(buf + at, padded + r * most, len[r]);
  if (st) free(buf);
  else *all = buf;
  return st;
}

int nmt_comm_any(nmt_comm *c, bool mine, bool *any) {
  bool *all = calloc((size_t)c->size, sizeof *all);
  if (!all) return nmt_fail(NMT_EIO, "out of memory");
  int st = nmt_comm_exchange(c, NMT_OK, &mine, all, sizeof mine);
  *any = false;
  for (int r = 0; r < c->size; r++) *any |= all[r];
  free(all);
  return st;
}
