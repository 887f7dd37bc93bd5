/* The training loop of nmt-train: Adam or SGD with gradient clipping over an epoch's
 * planned batches, NaN/Inf steps skipped and loss spikes counted (five bad
 * steps in a row stop the run, the files on disk untouched since the last
 * good step),
 * validation (--valid-metrics; the first decides) every valid_freq units with learning
 * rate decay and early stopping on plateaus, the best model and a checkpoint
 * written atomically, and a checkpoint on request (a signal). The library
 * prints nothing: progress goes through hooks. */
#ifndef NMT_TRAIN_LOOP_H
#define NMT_TRAIN_LOOP_H
#include "comm/comm.h"
#include "models/batch.h"
#include "models/model.h"
#include <signal.h>
#include <stdbool.h>

/* The validation metrics (Marian's --valid-metrics names). */
typedef enum { NMT_VM_PERPLEXITY, NMT_VM_CE_MEAN_WORDS, NMT_VM_BLEU, NMT_VM_CHRF, NMT_VM_COUNT } nmt_vmetric;

/* What a validation computes: the metrics, in the order the log line shows them;
 * the first decides the best model, --keep-best, --lr-decay and early stopping.
 * Translations (BLEU, chrF) are made only when a metric needs them. */
typedef struct {
  nmt_vmetric metrics[NMT_VM_COUNT];
  int n;                   /* 0: perplexity, bleu, chrf (nmt-train's default) */
  int beam;                /* of the translations (<= 1: greedy) */
  float max_length_factor; /* at most this times (source tokens + 1) target tokens (0: 2) */
} nmt_valid_opts;

/* The optimiser: its name is in the checkpoint, so a resumed run keeps it. */
typedef enum { NMT_ADAM, NMT_SGD } nmt_optimizer;

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
  int workers;               /* data-parallel workers (train/step.h); <= 1: one */
  int delay;                 /* --optimizer-delay: an update is this many batches' worth, in as many
                                passes (train/step.h); <= 1: one */
  nmt_comm *comm;            /* the ranks under mpirun (NULL: this process alone). Each rank
                                builds the model and state; rank 0's numbers are given to all,
                                and rank 0 alone writes files and calls the hooks' writers */
  const struct nn_backend *be; /* where the steps run (nn/backend.h); NULL: the CPU. On a GPU
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

enum { NMT_MAX_KEEP = 100 }; /* --keep-best's bound */

/* A model kept by --keep-best: its step (the file MODEL.best-STEP) and the first metric's value. */
typedef struct {
  long step;
  double value;
} nmt_kept;

/* Everything a checkpoint restores besides the model and the Adam moments. */
typedef struct {
  uint64_t seed;
  long step, epoch, batch;  /* batch: the next batch of the epoch's plan */
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
  nmt_optimizer optimizer;
  nmt_vmetric metric;       /* the first --valid-metrics: what best, stalls and kept measure */
  long best_step;           /* of the best validation; 0: none yet; -1: one before the checkpoint
                               recorded the step */
  int nkept;                /* --keep-best's models on disk, best first (section "kept") */
  nmt_kept kept[NMT_MAX_KEEP];
} nmt_train_state;

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

/* Where the run is, after every step (for a progress line). */
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
  void (*progress)(void *ctx, const nmt_train_progress *p);  /* after every step */
  /* after every validation; an error status ends the run as the metrics hook's does */
  int (*validated)(void *ctx, const nmt_valid_metrics *v);
} nmt_train_hooks;

/* Peak resident memory of the process so far, in MiB (getrusage). */
double nmt_peak_rss_mib(void);

typedef struct {
  nmt_corpus corpus;
  char **refs;  /* (corpus.n) target lines, BPE joined */
} nmt_valid_set;

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

/* ---- validation (train/valid.c) ---- */
int nmt_valid_load(nmt_valid_set *v, const char *src, const char *tgt, const nmt_model *m);
void nmt_valid_free(nmt_valid_set *v);
typedef struct {
  double ppl, ce, bleu, chrf; /* ce: cross-entropy per target token, ln ppl; NaN: not computed */
} nmt_valid_scores;
/* The metrics o asks for (NULL: the default) of m's network with parameters p
 * (m's, or their copy on the device the training runs on): perplexity without
 * label smoothing, and BLEU and chrF of translations (o->beam). All ranks of c
 * call it: each scores its part of the batches, and every rank gets the
 * one-process numbers. */
int nmt_validate_scores(nmt_comm *c, nmt_model *m, nn_params *p, const nmt_valid_set *v, const nmt_valid_opts *o,
                        nmt_valid_scores *out);
/* Perplexity and greedy BLEU alone. */
int nmt_validate(nmt_model *m, const nmt_valid_set *v, double *ppl, double *bleu);

/* ---- the metrics' names and order (train/vmetric.c) ---- */
/* "perplexity", "ce-mean-words", "bleu", "chrf" */
const char *nmt_vmetric_name(nmt_vmetric m);
/* The log line's label: "ppl", "ce-mean-words", "bleu", "chrf". */
const char *nmt_vmetric_label(nmt_vmetric m);
/* Name to metric: NMT_OK, or NMT_EUSAGE naming flag, the name and the choices. */
int nmt_vmetric_parse(const char *flag, const char *name, nmt_vmetric *m);
/* o's metrics, the default's when o->n is 0. */
int nmt_valid_metrics_of(const nmt_valid_opts *o, nmt_vmetric *out);
/* The first of them: the one that decides the best model, stalls and early stopping. */
nmt_vmetric nmt_valid_first_metric(const nmt_valid_opts *o);
/* Metric m's value among the scores. */
double nmt_vmetric_value(nmt_vmetric m, const nmt_valid_scores *s);
/* "ppl 10.809 bleu 0.99 chrf 9.12": o's metrics (NULL: the default's) in order, for the log. */
void nmt_valid_scores_text(const nmt_valid_opts *o, const nmt_valid_scores *s, char *out, size_t n);
/* How much a improves on b: positive when a is better (BLEU, chrF: higher; perplexity, ce: lower). */
double nmt_vmetric_gain(nmt_vmetric m, double a, double b);
/* Whether a is strictly better than b. */
bool nmt_vmetric_better(nmt_vmetric m, double a, double b);

/* "adam", "sgd"; and back: NMT_OK, or NMT_EUSAGE naming flag and the choices. */
const char *nmt_optimizer_name(nmt_optimizer o);
int nmt_optimizer_parse(const char *flag, const char *name, nmt_optimizer *o);

/* ---- resuming (train/resume.c) ---- */
/* A 64-bit hash of the corpus' token ids: a changed training set, vocabulary
 * or --max-length changes it. */
uint64_t nmt_corpus_fingerprint(const nmt_corpus *c);
/* Check that t->s (from a checkpoint) fits t->o and t->train, and record
 * them in t->s when it does. A different batch plan is NMT_EUSAGE listing each
 * changed option; another optimizer or first validation metric NMT_EUSAGE
 * naming both; a different corpus NMT_EINPUT; a different worker count is
 * allowed (the run goes on, no longer bit-identical) and *note says so. */
int nmt_train_resume_check(nmt_trainer *t, char *note, size_t n);

/* ---- the ranks of an mpirun (train/ranks.c) ---- */
/* That every rank trains the same thing (corpus, parameter count, options,
 * threads, position), else NMT_EINPUT on all ranks naming the first rank that
 * differs and how; then rank 0's weights, Adam moments, average and state to
 * all. Nothing to do in one process. */
int nmt_train_ranks_agree(nmt_trainer *t);

/* ---- the rate schedule (train/schedule.c) ---- */
/* What update t (1-based, Adam's count) multiplies the rate by: min(1, t/warmup)
 * (linear warm-up; Marian counts the updates before t, so its first is at rate 0)
 * times sqrt(decay/t) once t > decay (Marian's --lr-decay-inv-sqrt); 0 turns each
 * off. On top of the state's rate, which the plateau and epoch decays change. */
double nmt_lr_factor(long t, long warmup, long decay_inv_sqrt);

/* Where the run is after an update, for nmt_every. */
typedef struct {
  long step;
  long epochs_done;           /* epochs completed when this update ended one, else 0 */
  long tokens_before, tokens; /* target tokens trained on before and after it */
} nmt_when;
/* Whether an action every n units (Marian's: 'u' updates, also 0; 'e' epochs; 't'
 * target tokens) is due after this update; n <= 0: never. */
bool nmt_every(long n, char unit, const nmt_when *w);

/* ---- the N best models (train/keep.c) ---- */
/* "MODEL.best-STEP" */
void nmt_kept_path(char *out, size_t n, const char *model, long step);
/* Whether a model validated at value (of s->metric) enters the list of the best `keep`;
 * when it does, it is inserted and *dropped is the step of the one it pushed out, or -1. */
bool nmt_kept_insert(nmt_train_state *s, int keep, long step, double value, long *dropped);
/* The list as the checkpoint's "kept" section ("STEP VALUE" lines, VALUE in %a), and back
 * (best first by s->metric). */
int nmt_kept_text(const nmt_train_state *s, nmt_strbuf *out);
int nmt_kept_parse(nmt_train_state *s, const char *text, size_t len, const char *path);

/* ---- checkpoints (train/checkpoint.c) ---- */
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
