/* The host-staged device communicator: each collective copies the device's
 * bytes to host buffers, runs the host communicator's, and copies the result
 * back; see comm/comm_device.h. */
#include "comm/comm_device.h"
#include "base/err.h"
#include <stdlib.h>

typedef struct {
  nmt_comm c; /* first: what the callers see; c.send and c.recv are the host's copies */
  nmt_comm *host;
  nmt_comm_copies cp;
} staged_comm;

/* The floats of a layout: up to the end of its last range. */
static size_t span(const nmt_comm *c, const size_t *count, const size_t *displ) {
  size_t n = 0;
  for (int r = 0; r < c->size; r++)
    if (count[r] && displ[r] + count[r] > n) n = displ[r] + count[r];
  return n;
}

static int alltoallv(nmt_comm *c, const float *send, const size_t *scount, const size_t *sdispl, float *recv,
                     const size_t *rcount, const size_t *rdispl) {
  staged_comm *s = (staged_comm *)c;
  size_t ns = span(c, scount, sdispl), nr = span(c, rcount, rdispl);
  int st = nmt_comm_reserve(&c->send, &c->send_cap, ns);
  if (!st) st = nmt_comm_reserve(&c->recv, &c->recv_cap, nr);
  if (!st && ns) st = s->cp.to_host(c->send, send, ns * sizeof(float));
  if (!st) st = s->host->ops->alltoallv(s->host, c->send, scount, sdispl, c->recv, rcount, rdispl);
  if (!st && nr) st = s->cp.to_device(recv, c->recv, nr * sizeof(float));
  return st;
}

static int allgatherv(nmt_comm *c, float *buf, const size_t *count, const size_t *displ) {
  staged_comm *s = (staged_comm *)c;
  size_t n = span(c, count, displ), mine = count[c->rank], at = displ[c->rank];
  int st = nmt_comm_reserve(&c->send, &c->send_cap, n);
  if (!st && mine) st = s->cp.to_host(c->send + at, buf + at, mine * sizeof(float));
  if (!st) st = s->host->ops->allgatherv(s->host, c->send, count, displ);
  if (!st && n) st = s->cp.to_device(buf, c->send, n * sizeof(float));
  return st;
}

static _Noreturn void abort_all(nmt_comm *c, int status) {
  nmt_comm *host = ((staged_comm *)c)->host;
  host->ops->abort(host, status);
  exit(status); /* abort does not return; the compiler cannot know */
}

static void close_staged(nmt_comm *c) {
  free(c->send), free(c->recv);
  free(c);
}

static const nmt_comm_ops staged_ops = {"host-staged", NULL, NULL, alltoallv, allgatherv, abort_all, close_staged};

int nmt_comm_staged(nmt_comm **out, nmt_comm *host, nmt_comm_copies copies) {
  staged_comm *s = calloc(1, sizeof *s);
  if (!s) return nmt_fail(NMT_EIO, "out of memory");
  s->c.rank = host->rank, s->c.size = host->size, s->c.ops = &staged_ops;
  s->host = host, s->cp = copies;
  *out = &s->c;
  return NMT_OK;
}
