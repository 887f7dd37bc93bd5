/* The training loop of nmt-train: an update (train/update.h: Adam or SGD with gradient
 * clipping) per planned batch of an epoch, NaN/Inf batches skipped and loss spikes
 * counted (five bad updates in a row stop the run, the files on disk untouched since
 * the last good one), validation (--valid-metrics; the first decides) every
 * valid_freq units with learning rate decay and early stopping on plateaus, the best
 * model and a checkpoint written atomically, periodic checkpoints between updates,
 * and a checkpoint on request (a signal). The library prints nothing: progress goes
 * through hooks. A "step" of the logs, the state and the options is one update. */
#ifndef NMT_TRAIN_LOOP_H
#define NMT_TRAIN_LOOP_H
#include "comm/comm.h"
#include "models/batch.h"
#include "models/model.h"
#include "train/optimizer.h"
#include "train/state.h"
#include "train/valid.h"
#include "train/vmetric.h"
#include <signal.h>
#include <stdbool.h>

typedef struct {
  nmt_batch_opts batch;
  nmt_optimizer optimizer;   /* Adam (Kingma & Ba), or plain SGD: w -= lr·g */
  uint64_t seed;
  double lr, lr_decay;       /* lr *= lr_decay after a validation without improvement */
  double lr_recurrent;       /* the initial rate of recurrent views (0: lr), decayed alike */
  long lr_decay_start_epoch; /* and after every epoch from this one on (1-based; 0: never) */
  long lr_warmup;            /* the rate rises linearly over this many updates (0: none) */
  long lr_decay_inv_sqrt;    /* after this many updates it falls as 1/sqrt(updates) (0: never) */
  double clip_norm;          /* 0: no clipping */
  double ema;                /* exponential smoothing's factor (nn_ema_decay; 0: off): the model
                                files hold the average, the checkpoint also the weights */
  int workers;               /* data-parallel workers (train/update.h); <= 1: one */
  int delay;                 /* --optimizer-delay: an update is this many batches' worth, in as many
                                passes (train/update.h); <= 1: one */
  nmt_comm *comm;            /* the ranks under mpirun (NULL: this process alone). Each rank
                                builds the model and state; rank 0's numbers are given to all,
                                and rank 0 alone writes files and calls the hooks' writers */
  const struct nn_backend *be; /* where the updates run (nn/backend.h); NULL: the CPU. On a GPU
                                  one host thread drives it: one worker */
  long after_epochs, after_batches, after_tokens; /* stop after this many (0: no limit) */
  long valid_freq, save_freq, log_freq; /* every this many units (0: never) */
  char valid_unit, save_unit, log_unit; /* their units: 'u' (or 0) updates, 'e' epochs, 't' target tokens */
  nmt_valid_opts valid;
  int early_stopping;        /* stop after this many validations without improvement */
  double early_stopping_epsilon; /* an improvement of at most this much is a stall (it is still saved) */
  int keep_best;             /* keep this many best validated models as MODEL.best-STEP (0: none) */
  const char *model_path;    /* the best model (the last one without validation) */
  const char *ckpt_path;     /* the checkpoint: last model + training state */
} nmt_train_opts;

typedef struct {
  long step, epoch, tokens;
  double loss, ppl, lr, grad_norm, tokens_per_s, elapsed;
  double peak_rss_mib;       /* the process's peak resident memory so far */
} nmt_train_metrics;

/* A validation's results (after the model is saved, when it is the best). */
typedef struct {
  long step, epoch, tokens;
  double ppl, bleu;
  double chrf;               /* ppl, bleu, chrf: NaN when not computed (an empty CSV cell) */
  double best;               /* the first metric's best so far, this one included */
  double elapsed;
} nmt_valid_metrics;

/* Where the run is, after every update (for a progress line). */
typedef struct {
  long step, epoch;          /* epoch 0-based */
  long batch, nbatches;      /* batches done in this epoch, of how many */
  long tokens;               /* target tokens trained on */
  double loss;               /* mean loss per target token since the last log line */
} nmt_train_progress;

typedef struct {
  void *ctx;
  void (*log)(void *ctx, const char *line);                  /* progress, validation, warnings */
  /* every log_freq steps; an error status (a failed write) saves a checkpoint and ends the run with it */
  int (*metrics)(void *ctx, const nmt_train_metrics *row);
  void (*progress)(void *ctx, const nmt_train_progress *p);  /* after every update */
  /* after every validation; an error status ends the run as the metrics hook's does */
  int (*validated)(void *ctx, const nmt_valid_metrics *v);
} nmt_train_hooks;

/* Peak resident memory of the process so far, in MiB (getrusage). */
double nmt_peak_rss_mib(void);

typedef struct {
  nmt_model *model;
  const nmt_corpus *train;
  const nmt_valid_set *valid; /* NULL: no validation */
  nmt_train_opts o;
  nmt_train_hooks hooks;
  nmt_train_state s;
  bool interrupted;           /* set when *stop ended the run */
} nmt_trainer;

/* A fresh state for opts. */
nmt_train_state nmt_train_state_new(const nmt_train_opts *o);
/* Train until a limit, early stopping, or *stop becomes non-zero (then a
 * checkpoint is saved and t->interrupted set). */
int nmt_train(nmt_trainer *t, volatile sig_atomic_t *stop);

#endif
