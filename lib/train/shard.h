/* The optimiser's state sharded over the ranks of an mpirun: each rank keeps
 * Adam's moments and the weights' average for its shard of the parameter
 * buffer alone (nmt_comm_shard), clips with the whole gradient's norm,
 * updates its shard of the weights, and the weights are gathered. With one
 * process the shard is the whole buffer and the same calls do the same thing.
 *
 * Bits: the norm folds the chunks' sums of squares in chunk order whichever
 * rank summed them (shards are whole chunks), and Adam, clipping and the
 * average are element by element, so the run is the one-process run's. The
 * checkpoint holds the whole state, gathered on rank 0. */
#ifndef NMT_TRAIN_SHARD_H
#define NMT_TRAIN_SHARD_H
#include "comm/comm.h"
#include "nn/params.h"
#include "train/checkpoint.h"
#include <stdbool.h>

/* Keep this rank's shard of the moments and average (every rank holding the
 * whole state, rank 0's). NMT_OK or NMT_EIO. */
int nmt_shard_state(nmt_comm *c, nn_params *p);

/* The L2 norm of the whole gradient, each rank holding its shard of it in
 * p->g: nn_params_grad_norm's bits, the same on every rank. sums: the shard's
 * chunk sums of squares (nn_sumsq_chunks) when the caller has them, else NULL. */
int nmt_shard_grad_norm(nmt_comm *c, const nn_params *p, const double *sums, double *norm);

/* The weights' average into p->w (in), or the weights back (!in), on every
 * rank: to validate or save the average. A shard's average is gathered into
 * the gradient buffer (free between steps), which then trades places with
 * the weights. No-op without an average. */
int nmt_shard_swap_ema(nmt_comm *c, nn_params *p, bool in);

/* Rank 0 writes the checkpoint of m with the whole state (every rank calls
 * it, at the same step): the shards of the moments and the average are
 * gathered on rank 0 one buffer at a time, as the file is written, into its
 * gradient buffer; the gradient's shard [lo, hi) is the same after. */
int nmt_shard_checkpoint(nmt_comm *c, nmt_model *m, const nmt_train_state *s, const char *path);

#endif
