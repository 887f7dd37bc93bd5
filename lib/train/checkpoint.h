/* Checkpoints: a model file with the training state (train/state.h), the optimiser's
 * moments and the weights' moving average, written durably and read back so that a
 * resumed run is the same run. */
#ifndef NMT_TRAIN_CHECKPOINT_H
#define NMT_TRAIN_CHECKPOINT_H
#include "models/model.h"
#include "train/state.h"

/* Write the checkpoint durably (nmt_mf_write): the previous one stays
 * until the new one is on disk. The weights' moving average, when kept, is
 * section "ema". */
int nmt_checkpoint_save(const nmt_model *m, const nmt_train_state *s, const char *path);
/* The same, the state's buffers filled as they are written: fill(ctx, k)
 * puts buffer k (0: m->params.m, 1: .v, 2: .ema) in place just before its
 * section, so the three may be one buffer (a sharded state gathered in turn). */
typedef int (*nmt_state_fill)(void *ctx, int k);
int nmt_checkpoint_save_filled(const nmt_model *m, const nmt_train_state *s, const char *path, nmt_state_fill fill,
                               void *ctx);
/* Load model, Adam moments, the moving average and kept list (if saved) and state from a
 * checkpoint. One older than the optimizer and metric keys was Adam's, by perplexity. */
int nmt_checkpoint_load(nmt_model *m, nmt_train_state *s, const char *path);

#endif
