/* Ranks that are threads of this process; see thread_comm.h. */
#include "comm/thread_comm.h"
#include "base/err.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What each rank publishes for the others to copy from, between two barriers. */
static struct {
  pthread_barrier_t bar;
  int ranks;
  const void *buf[THREAD_RANKS_MAX];
  const size_t *count[THREAD_RANKS_MAX], *displ[THREAD_RANKS_MAX];
} shared;

static void publish(nmt_comm *c, const void *buf, const size_t *count, const size_t *displ) {
  shared.buf[c->rank] = buf, shared.count[c->rank] = count, shared.displ[c->rank] = displ;
  pthread_barrier_wait(&shared.bar);
}

static int allgather(nmt_comm *c, const void *mine, void *all, size_t n) {
  publish(c, mine, NULL, NULL);
  for (int r = 0; r < shared.ranks && n; r++) memcpy((char *)all + n * (size_t)r, shared.buf[r], n);
  pthread_barrier_wait(&shared.bar);
  return NMT_OK;
}

static int alltoallv(nmt_comm *c, const float *send, const size_t *scount, const size_t *sdispl, float *recv,
                     const size_t *rcount, const size_t *rdispl) {
  publish(c, send, scount, sdispl);
  for (int r = 0; r < shared.ranks; r++) {
    if (shared.count[r][c->rank] != rcount[r]) abort(); /* a sender and its receiver disagree */
    if (rcount[r]) /* a rank holding no part sends nothing, maybe from NULL */
      memcpy(recv + rdispl[r], (const float *)shared.buf[r] + shared.displ[r][c->rank], rcount[r] * sizeof(float));
  }
  pthread_barrier_wait(&shared.bar);
  return NMT_OK;
}

static int allgatherv(nmt_comm *c, float *buf, const size_t *count, const size_t *displ) {
  publish(c, buf, count, displ);
  for (int r = 0; r < shared.ranks; r++)
    if (r != c->rank && count[r]) memcpy(buf + displ[r], (const float *)shared.buf[r] + displ[r], count[r] * sizeof(float));
  pthread_barrier_wait(&shared.bar);
  return NMT_OK;
}

static const nmt_comm_ops thread_ops = {"threads", NULL, allgather, alltoallv, allgatherv, NULL, NULL};

void thread_comm_begin(int ranks) {
  shared.ranks = ranks;
  pthread_barrier_init(&shared.bar, NULL, (unsigned)ranks);
}

void thread_comm_end(void) { pthread_barrier_destroy(&shared.bar); }

nmt_comm thread_comm(int rank, int ranks) { return (nmt_comm){.rank = rank, .size = ranks, .ops = &thread_ops}; }

void thread_comm_free(nmt_comm *c) { free(c->send), free(c->recv), free(c->got); }
