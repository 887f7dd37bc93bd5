/* The communicator's shared code (lib/comm/comm.c) over three ranks that are
 * threads of this process, joined by a barrier: the sharded sum is the left
 * fold of every part in (rank, part) order, bit for bit, on every rank; a
 * failure on one rank is every rank's. */
#include "base/err.h"
#include "base/pool.h"
#include "comm/comm.h"
#include "test.h"
#include "comm/thread_comm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* three grains: a shard each, the last one short */
enum { RANKS = 3, N = 2 * NMT_SHARD_GRAIN + 1001, MAX_PARTS = 2 };
static const int counts[RANKS] = {2, 1, 0}; /* a rank may hold no part */

/* Part k's value i: sums of these lose bits to the order of the additions. */
static float value(int k, size_t i) { return (float)((i * 7919 + (size_t)k * 104729) % 1000) * 1e-3f + (float)k * 1e3f; }

static float result[RANKS][N];
static int errors[RANKS];
static char messages[RANKS][128];

static void rank_main(void *ctx, int rank, int ranks) {
  (void)ctx, (void)ranks;
  nmt_comm c = thread_comm(rank, RANKS);
  int first = 0;
  for (int r = 0; r < rank; r++) first += counts[r];
  float *parts[MAX_PARTS];
  for (int k = 0; k < counts[rank]; k++) {
    parts[k] = malloc(N * sizeof(float));
    for (size_t i = 0; i < N; i++) parts[k][i] = value(first + k, i);
  }
  const float **got;
  size_t lo, hi;
  int st = nmt_comm_scatter_parts(&c, parts, counts, N, &got);
  nmt_comm_shard(&c, N, rank, &lo, &hi);
  for (size_t i = lo; !st && i < hi; i++) {
    float s = got[0][i - lo];
    for (int k = 1; k < 3; k++) s += got[k][i - lo];
    result[rank][i] = s;
  }
  if (!st) st = nmt_comm_gather_shards(&c, result[rank], N);
  /* rank 1 fails: every rank hears of it */
  int mine = rank == 1 ? nmt_fail(NMT_EINPUT, "boom") : NMT_OK;
  char payload = (char)rank, all[RANKS];
  errors[rank] = st ? st : nmt_comm_exchange(&c, mine, &payload, all, 1);
  snprintf(messages[rank], sizeof messages[rank], "%s%s", nmt_errmsg(), c.failed_together ? " (together)" : "");
  for (int k = 0; k < counts[rank]; k++) free(parts[k]);
  thread_comm_free(&c);
}

TEST(comm_sharded_sum_is_the_left_fold) {
  thread_comm_begin(RANKS);
  nmt_pool_run(RANKS, rank_main, NULL);
  thread_comm_end();
  for (int r = 0; r < RANKS; r++) {
    size_t same = 0;
    for (size_t i = 0; i < N; i++) {
      float s = value(0, i) + value(1, i) + value(2, i);
      same += !memcmp(&s, &result[r][i], sizeof s);
    }
    CHECK(same == N);
    CHECK_INT(errors[r], NMT_EINPUT);
    CHECK_STR(messages[r], "rank 1: boom (together)");
  }
}

/* Shards tile the buffer at grain multiples, a grain or so each; a buffer of
 * fewer grains than ranks leaves the last ranks none. */
TEST(comm_shards_are_whole_grains) {
  const size_t sizes[] = {1, NMT_SHARD_GRAIN, 5 * (size_t)NMT_SHARD_GRAIN + 7};
  for (int k = 0; k < 3; k++) {
    nmt_comm c = {.rank = 0, .size = 3};
    size_t at = 0, lo, hi, most = 0;
    for (int r = 0; r < 3; r++) {
      nmt_comm_shard(&c, sizes[k], r, &lo, &hi);
      CHECK(lo == at && lo % NMT_SHARD_GRAIN == 0 && hi >= lo);
      most = hi - lo > most ? hi - lo : most;
      at = hi;
    }
    CHECK(at == sizes[k]);
    CHECK(most == (k < 2 ? sizes[k] : 2 * (size_t)NMT_SHARD_GRAIN));
  }
}

TEST(comm_local_passes_the_parts_through) {
  nmt_comm *c = nmt_comm_local();
  float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, *parts[2] = {a, b};
  int one[1] = {2};
  const float **got;
  CHECK_INT(nmt_comm_scatter_parts(c, parts, one, 3, &got), NMT_OK);
  CHECK(got[0] == a && got[1] == b);
  bool any = true;
  CHECK_INT(nmt_comm_any(c, false, &any), NMT_OK);
  CHECK(!any);
  nmt_fail(NMT_EIO, "disk full");
  int x = 7, y = 0;
  CHECK_INT(nmt_comm_exchange(c, NMT_EIO, &x, &y, sizeof x), NMT_EIO);
  CHECK_STR(nmt_errmsg(), "disk full");
  CHECK(c->failed_together && y == 7);
}
