/* The ranks of an mpirun start alike: each reads the corpus and builds (or loads)
 * the model itself, the ranks compare what they got, and rank 0's numbers then
 * replace everyone's, so the replicas are identical by construction. */
#ifndef NMT_TRAIN_RANKS_H
#define NMT_TRAIN_RANKS_H
#include "train/loop.h"

/* That every rank trains the same thing (corpus, parameter count, options,
 * threads, position), else NMT_EINPUT on all ranks naming the first rank that
 * differs and how; then rank 0's weights, Adam moments, average and state to
 * all. Nothing to do in one process. */
int nmt_train_ranks_agree(nmt_trainer *t);

#endif
