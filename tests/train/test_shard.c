/* The optimiser's state sharded over three ranks that are threads of this
 * process (lib/train/shard.c): the norm from the shards has the bits of the
 * whole gradient's on every rank, whether a rank sums its chunks' squares or
 * is given them. */
#include "base/err.h"
#include "base/pool.h"
#include "comm/thread_comm.h"
#include "nn/optim.h"
#include "nn/parallel.h"
#include "test.h"
#include "train/shard.h"
#include <math.h>
#include <string.h>

enum { RANKS = 3 };
static const size_t N = 5 * (size_t)NMT_SHARD_GRAIN + 7; /* six grains, the last short: two per rank */

/* Gradient i: each chunk's first element alone, 1, 0, then four whose
 * squares are 0.3 ulp of 1. Folded chunk after chunk, each square is lost
 * to the 1; a rank's two summed first (0.6 ulp) would count, twice, and
 * show in the root. */
static float grad(size_t i) {
  if (i % NN_NORM_CHUNK || i == NN_NORM_CHUNK) return 0;
  return i ? ldexpf(0.5477f, -26) : 1;
}

static double norm[RANKS], given[RANKS]; /* given: from chunk sums the caller made */
static int status[RANKS];

static void rank_main(void *ctx, int rank, int ranks) {
  (void)ctx;
  nmt_comm c = thread_comm(rank, ranks);
  nn_params p = {0};
  int st = nn_params_add(&p, "w", 1, (int)N) < 0 ? NMT_EINPUT : nn_params_alloc(&p);
  for (size_t i = 0; !st && i < p.n; i++) p.g[i] = grad(i);
  if (!st) st = nmt_shard_state(&c, &p);
  if (!st) st = nmt_shard_grad_norm(&c, &p, NULL, &norm[rank]);
  double sums[nn_norm_chunks(N)]; /* this shard's, times 4: the norm given them is twice the norm */
  if (!st) nn_sumsq_chunks(p.g + p.lo, p.hi - p.lo, sums);
  for (size_t k = 0; !st && k < nn_norm_chunks(p.hi - p.lo); k++) sums[k] *= 4;
  if (!st) st = nmt_shard_grad_norm(&c, &p, sums, &given[rank]);
  status[rank] = st;
  nn_params_free(&p);
  thread_comm_free(&c);
}

TEST(train_shard_norm_is_the_whole_norm) {
  nn_params p = {0};
  CHECK(nn_params_add(&p, "w", 1, (int)N) == 0 && nn_params_alloc(&p) == NMT_OK);
  for (size_t i = 0; i < p.n; i++) p.g[i] = grad(i);
  double want = nn_params_grad_norm(&p);
  nn_params_free(&p);
  nn_set_threads(1); /* the ranks are threads already */
  thread_comm_begin(RANKS);
  nmt_pool_run(RANKS, rank_main, NULL);
  thread_comm_end();
  nn_set_threads(0);
  for (int r = 0; r < RANKS; r++) {
    CHECK_INT(status[r], NMT_OK);
    CHECK(!memcmp(&norm[r], &want, sizeof want));
    CHECK(given[r] == 2 * want);
  }
}
