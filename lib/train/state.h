/* The training state: everything a checkpoint restores besides the model, its
 * optimiser moments and the weights' average (train/checkpoint.h), which the loop
 * advances (train/loop.h) and --resume checks (train/resume.h). Types alone. */
#ifndef NMT_TRAIN_STATE_H
#define NMT_TRAIN_STATE_H
#include "models/batch.h"
#include "train/optimizer.h"
#include "train/vmetric.h"
#include <stdint.h>

enum { NMT_MAX_KEEP = 100 }; /* --keep-best's bound */

/* A model kept by --keep-best: its step (the file MODEL.best-STEP) and the first metric's value. */
typedef struct {
  long step;
  double value;
} nmt_kept;

typedef struct {
  uint64_t seed;
  long step, epoch, batch;  /* step: updates made; batch: the next batch of the epoch's plan */
  double lr;
  double best;              /* the first --valid-metrics' best value (best_step > 0) */
  int stalls;               /* validations since the best one */
  long tokens;              /* target tokens trained on */
  double elapsed;           /* seconds of training */
  /* What (epoch, batch) refers to, checked on resume (train/resume.c); 0: not recorded */
  int mini_batch, window;   /* nmt_batch_opts max_sents, window */
  long mini_batch_words;    /* nmt_batch_opts max_words */
  int workers;              /* slots: ranks x threads */
  long corpus_pairs;
  uint64_t corpus_hash;     /* nmt_corpus_fingerprint */
  int delay;                /* --optimizer-delay */
  nmt_batch_sort sort;      /* --maxi-batch-sort (before it was recorded: src, then the only order) */
  nmt_optimizer optimizer;
  nmt_vmetric metric;       /* the first --valid-metrics: what best, stalls and kept measure */
  long best_step;           /* of the best validation; 0: none yet; -1: one before the checkpoint
                               recorded the step */
  int nkept;                /* --keep-best's models on disk, best first (section "kept") */
  nmt_kept kept[NMT_MAX_KEEP];
} nmt_train_state;

#endif
