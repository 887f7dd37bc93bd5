/* The training loop; see train/loop.h. */
#include "train/loop.h"
#include "base/clock.h"
#include "base/err.h"
#include "nn/ops.h"
#include "nn/optim.h"
#include "train/keep.h"
#include "train/ranks.h"
#include "train/resume.h"
#include "train/schedule.h"
#include "train/shard.h"
#include "train/update.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* A batch is bad when its loss or gradient is NaN/Inf (the update is skipped)
 * or its loss per token is over SPIKE times the running average of the good
 * ones (the update is made: one hard batch is no divergence). MAX_BAD_STEPS
 * in a row stop the run; meanwhile nothing is saved. */
enum { MAX_BAD_STEPS = 5, SPIKE = 4 };
/* Nor is a batch whose loss is under 1 nat per token: near convergence a ratio is
 * noise (a copy task at 0.08 jumps to 0.4 and back), not a divergence. */
static const double SPIKE_FLOOR = 1.0;
static const double AVG_DECAY = 0.9; /* of the running average: follows the fast early fall */

/* What the loop carries between updates besides the checkpointed state. */
typedef struct {
  nmt_trainer *t;
  nn_params *p;        /* what the updates change: the model's, or their copy on the device */
  nn_params dev;       /* that copy, when the updates run on a GPU */
  nmt_updater upd;
  nmt_plan plan;
  long plan_epoch;     /* epoch the plan is for; -1: none */
  int bad_steps;       /* NaN/Inf or spiking batches in a row */
  double loss_avg;     /* running average of the good batches' loss per token; 0: none yet */
  bool save_due;       /* a periodic save, made once the next loss shows the weights good */
  long saved_step;     /* of the last checkpoint written; -1: none in this run */
  double t0;           /* clock at the start of this run, minus s.elapsed */
  /* since the last log line */
  double loss_sum, norm_sum;
  long loss_tokens, log_steps, log_tokens;
  double log_t0, log_reduce_s; /* the clock, and the communicator's reduce_s */
} run;

/* Rank 0 writes the files; the others train alike and keep quiet. */
static bool writer(const nmt_trainer *t) { return !t->o.comm || t->o.comm->rank == 0; }

static void say(const nmt_trainer *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const nmt_trainer *t, const char *fmt, ...) {
  if (!t->hooks.log || !writer(t)) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  t->hooks.log(t->hooks.ctx, line);
}

double nmt_peak_rss_mib(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) ? 0 : (double)ru.ru_maxrss / 1024; /* Linux: KiB */
}

nmt_train_state nmt_train_state_new(const nmt_train_opts *o) {
  return (nmt_train_state){.seed = o->seed, .lr = o->lr, .optimizer = o->optimizer, .metric = nmt_valid_first_metric(&o->valid)};
}

static int diverged(const run *r, const char *what) {
  return nmt_fail(NMT_EINPUT, "training diverged: %s at %d steps in a row (step %ld); %s; try a lower "
                  "--learn-rate or --clip-norm", what, r->bad_steps, r->t->s.step,
                  r->saved_step >= 0 ? "the last good checkpoint is kept" : "nothing was saved");
}

static int save_checkpoint(run *r);

/* The model's parameters are the device copy's again (before a save or a validation). */
static int to_host(run *r) {
  return r->p == &r->t->model->params ? NMT_OK : nn_params_download(&r->t->model->params, r->p);
}

/* A batch's gradient that could not be had (out of memory, a device error) ends the run
 * with one line naming the batch; the files on disk keep the last good state (nothing is
 * saved after it). */
static int gradient_failed(run *r, int st, long b, int sentences) {
  const nmt_trainer *t = r->t;
  bool oom = strstr(nmt_errmsg(), "out of ") && strstr(nmt_errmsg(), "memory");
  char why[512];
  snprintf(why, sizeof why, "%s", nmt_errmsg());
  return nmt_fail(st, "step %ld (epoch %ld, batch %ld: %d sentences, %ld target words%s%s): %s%s", t->s.step + 1,
                  t->s.epoch + 1, b + 1, sentences, r->upd.words, r->p->be ? " on " : "",
                  r->p->be ? r->p->be->name : "", why,
                  oom ? "; try a smaller --mini-batch-words or --mini-batch (the checkpoint keeps the last good state)"
                      : r->saved_step >= 0 ? "; the last checkpoint is intact" : "");
}

/* A batch's loss and clipped gradient, before its update. */
typedef struct {
  double loss, norm, per_token;
  long ntok;
  bool broken;         /* the loss or the gradient's norm NaN/Inf: no update */
  bool spike;          /* the loss per token far over the running average: updated, but bad */
} batch_grad;

/* The gradient of batch b of the plan, clipped, and what its loss says. */
static int gradient(run *r, long b, batch_grad *g) {
  nmt_trainer *t = r->t;
  const nmt_train_state *s = &t->s;
  const long *pairs = r->plan.pairs + r->plan.start[b];
  int n = (int)(r->plan.start[b + 1] - r->plan.start[b]);
  r->upd.comm->step = s->step + 1; /* for a watchdog's message */
  *g = (batch_grad){0};
  int st = nmt_update_gradient(&r->upd, t->train, pairs, n, &t->model->net, r->p, s->seed, (uint64_t)s->step,
                               &g->loss, &g->ntok);
  if (st) return gradient_failed(r, st, b, n);
  if ((st = nmt_update_clip(&r->upd, r->p, g->loss, t->o.clip_norm, &g->norm))) return st;
  g->per_token = g->loss / (double)(g->ntok ? g->ntok : 1);
  g->broken = !isfinite(g->loss) || !isfinite(g->norm);
  g->spike = !g->broken && r->loss_avg > 0 && g->per_token > SPIKE * r->loss_avg && g->per_token > SPIKE_FLOOR;
  return NMT_OK;
}

/* The update with g's gradient, or none when it is broken. Returns NMT_OK, also for
 * a skipped update; an error after MAX_BAD_STEPS bad batches in a row. */
static int update(run *r, const batch_grad *g) {
  nmt_trainer *t = r->t;
  nmt_train_state *s = &t->s;
  s->step++;
  s->tokens += r->upd.words;
  r->log_tokens += r->upd.words;
  if (g->broken) {
    say(t, "warning: step %ld: %s is %s; step skipped", s->step, isfinite(g->loss) ? "gradient norm" : "loss",
        isnan(isfinite(g->loss) ? g->norm : g->loss) ? "NaN" : "Inf");
    return ++r->bad_steps >= MAX_BAD_STEPS ? diverged(r, "loss or gradient NaN/Inf") : NMT_OK;
  }
  nmt_update_rule rule = {t->o.optimizer,
                          (float)(s->lr * nmt_lr_factor(r->p->step + 1, t->o.lr_warmup, t->o.lr_decay_inv_sqrt)),
                          t->o.lr_recurrent > 0 ? (float)(t->o.lr_recurrent / t->o.lr) : 1, t->o.ema};
  int st = nmt_update_apply(&r->upd, r->p, &rule);
  if (st) return st;
  r->loss_sum += g->loss, r->loss_tokens += g->ntok, r->norm_sum += g->norm, r->log_steps++;
  if (g->spike) {
    say(t, "warning: step %ld: loss %.4g is over %dx its running average %.4g", s->step, g->per_token, SPIKE,
        r->loss_avg);
    return ++r->bad_steps >= MAX_BAD_STEPS ? diverged(r, "loss far above its running average") : NMT_OK;
  }
  r->bad_steps = 0;
  r->loss_avg = r->loss_avg > 0 ? AVG_DECAY * r->loss_avg + (1 - AVG_DECAY) * g->per_token : g->per_token;
  return NMT_OK;
}

static int log_metrics(run *r) {
  nmt_trainer *t = r->t;
  double tnow = nmt_seconds(), loss = r->loss_sum / (double)(r->loss_tokens ? r->loss_tokens : 1);
  /* the rate of the last update */
  double lr = t->s.lr * nmt_lr_factor(r->p->step, t->o.lr_warmup, t->o.lr_decay_inv_sqrt);
  nmt_train_metrics m = {t->s.step, t->s.epoch + 1, t->s.tokens, loss, exp(loss), lr,
                         r->norm_sum / (double)(r->log_steps ? r->log_steps : 1),
                         (double)r->log_tokens / (tnow - r->log_t0 > 0 ? tnow - r->log_t0 : 1e-9),
                         tnow - r->t0, nmt_peak_rss_mib()};
  const nmt_comm *c = r->upd.comm;
  char reduce[64] = ""; /* under mpirun: what the gradient's exchange cost a step */
  if (c->size > 1)
    snprintf(reduce, sizeof reduce, ", reduction %.2f ms/step",
             1e3 * (c->reduce_s - r->log_reduce_s) / (double)(r->log_steps ? r->log_steps : 1));
  say(t, "epoch %ld step %ld: loss %.4f ppl %.2f lr %.3g grad-norm %.3f %.0f tokens/s, peak RSS %.0f MiB%s",
      m.epoch, m.step, m.loss, m.ppl, m.lr, m.grad_norm, m.tokens_per_s, m.peak_rss_mib, reduce);
  int st = t->hooks.metrics && writer(t) ? t->hooks.metrics(t->hooks.ctx, &m) : NMT_OK;
  r->loss_sum = r->norm_sum = 0;
  r->loss_tokens = r->log_steps = r->log_tokens = 0;
  r->log_t0 = tnow;
  r->log_reduce_s = c->reduce_s;
  return st;
}

static bool weights_finite(const nn_params *p) {
  for (size_t i = 0; i < p->n; i++)
    if (!isfinite(p->w[i])) return false;
  return true;
}

/* Never NaN/Inf weights on disk: the files keep the last good state. Every
 * rank calls it: rank 0 writes the whole state, gathered from the shards. */
static int save_checkpoint(run *r) {
  int st = to_host(r);
  if (st) return st;
  nmt_model *m = r->t->model;
  if (!weights_finite(&m->params)) {
    r->bad_steps = MAX_BAD_STEPS;
    return diverged(r, "NaN/Inf weights");
  }
  r->t->s.elapsed = nmt_seconds() - r->t0;
  r->save_due = false;
  nmt_comm *shards = r->upd.shards;
  if (shards->size > 1 || writer(r->t)) st = nmt_shard_checkpoint(shards, m, &r->t->s, r->t->o.ckpt_path);
  if (!st) r->saved_step = r->t->s.step;
  return st;
}

/* A failure after training began (the metrics file): save the state first.
 * The failure is rank 0's alone (its files), so under mpirun the others,
 * holding their shards of the state, are not there to gather it. */
static int save_then_fail(run *r, int st) {
  char why[512];
  snprintf(why, sizeof why, "%s", nmt_errmsg());
  if (r->upd.shards->size > 1)
    return nmt_fail(st, "%s (no checkpoint saved: the other ranks hold the optimiser's state; --resume "
                    "goes on from the last one)", why);
  if (save_checkpoint(r)) return nmt_fail(st, "%s (no checkpoint saved: %s)", why, nmt_errmsg());
  return nmt_fail(st, "%s (checkpoint %s saved at step %ld)", why, r->t->o.ckpt_path, r->t->s.step);
}

/* A model file: with exponential smoothing, the weights' average (gathered
 * on every rank). */
static int save_model(run *r, const char *path) {
  nmt_trainer *t = r->t;
  int st = nmt_shard_swap_ema(r->upd.shards, &t->model->params, true);
  if (!st && writer(t)) st = nmt_model_save(t->model, path);
  int back = nmt_shard_swap_ema(r->upd.shards, &t->model->params, false);
  return st ? st : back;
}

/* A model file no longer among the --keep-best; failing to remove it is no reason to stop. */
static void drop_kept(nmt_trainer *t, long step) {
  char path[4096];
  if (!writer(t)) return;
  nmt_kept_path(path, sizeof path, t->o.model_path, step);
  if (remove(path))
    say(t, "warning: cannot remove %s (no longer among the --keep-best): %s", path, strerror(errno));
}

/* --keep-best: a model among the N best so far is saved beside the others, and
 * the one it pushes out of the N removed. */
static int keep_best(run *r, double value) {
  nmt_trainer *t = r->t;
  long dropped;
  char path[4096];
  if (!nmt_kept_insert(&t->s, t->o.keep_best, t->s.step, value, &dropped)) return NMT_OK;
  nmt_kept_path(path, sizeof path, t->o.model_path, t->s.step);
  int st = save_model(r, path);
  if (!st && dropped >= 0) drop_kept(t, dropped);
  return st;
}

/* Validate; save the best model by the first metric; decay the rate or stop on a plateau. */
static int validate(run *r, bool *stop_now) {
  nmt_trainer *t = r->t;
  nmt_train_state *s = &t->s;
  nmt_valid_scores sc;
  /* the average is what is validated, where the updates run */
  int st = nmt_shard_swap_ema(r->upd.shards, r->p, true);
  if (!st) st = nmt_validate_scores(r->upd.comm, t->model, r->p, t->valid, &t->o.valid, &sc);
  int back = nmt_shard_swap_ema(r->upd.shards, r->p, false);
  if (!st) st = back;
  if (!st) st = to_host(r); /* a model file may be saved */
  double value = nmt_vmetric_value(s->metric, &sc);
  bool good = isfinite(value) && !r->bad_steps;
  if (!st && good) st = keep_best(r, value);
  if (st) return st;
  double gain = s->best_step == 0 ? INFINITY : nmt_vmetric_gain(s->metric, value, s->best);
  bool better = good && gain > 0;
  /* a stall: no improvement by more than --early-stopping-epsilon; a smaller one is still the best model */
  bool stall = !(good && gain > t->o.early_stopping_epsilon);
  const char *label = nmt_vmetric_label(s->metric);
  if (better) {
    s->best = value;
    s->best_step = s->step;
    st = save_model(r, t->o.model_path);
  }
  s->stalls = stall ? s->stalls + 1 : 0;
  if (stall) s->lr *= t->o.lr_decay;
  char text[256], best[96] = "";
  nmt_valid_scores_text(&t->o.valid, &sc, text, sizeof text);
  if (better)
    snprintf(best, sizeof best, " (best %s, saved%s)", label, stall ? "; a stall: within --early-stopping-epsilon" : "");
  say(t, "valid step %ld: %s%s", s->step, text, best);
  /* the epoch of the last update, as the metrics rows count it (1-based) */
  long epoch = s->batch == 0 && s->epoch > 0 ? s->epoch : s->epoch + 1;
  nmt_valid_metrics v = {s->step, epoch, s->tokens, sc.ppl, sc.bleu, sc.chrf, s->best_step ? s->best : NAN,
                         nmt_seconds() - r->t0};
  if (!st && t->hooks.validated && writer(t) && (st = t->hooks.validated(t->hooks.ctx, &v))) return save_then_fail(r, st);
  if (t->o.early_stopping > 0 && s->stalls >= t->o.early_stopping) { /* stalls > 0: this one was a stall */
    char by[64] = "";
    if (t->o.early_stopping_epsilon > 0) snprintf(by, sizeof by, " by more than %g", t->o.early_stopping_epsilon);
    say(t, "early stopping: %d validations without improvement of %s%s", s->stalls, label, by);
    *stop_now = true;
  }
  return st;
}

/* The plan of the current epoch, made when the epoch changes. */
static int ensure_plan(run *r) {
  nmt_train_state *s = &r->t->s;
  if (r->plan_epoch == s->epoch) return NMT_OK;
  nmt_plan_free(&r->plan);
  r->plan_epoch = s->epoch;
  /* an update with a delay of D is D batches' worth, cut into parts by nmt_update_gradient */
  nmt_batch_opts o = r->t->o.batch;
  int d = r->t->o.delay > 1 ? r->t->o.delay : 1;
  o.max_sents *= d, o.max_words *= d, o.window *= d;
  int st = nmt_plan_epoch(&r->plan, r->t->train, &o, s->seed, s->epoch);
  /* a position from another plan (nmt_train_resume_check refuses those) */
  if (!st && s->batch >= r->plan.nbatches)
    st = nmt_fail(NMT_EINPUT, "epoch %ld has %ld batches, but the state is at batch %ld", s->epoch + 1,
                  r->plan.nbatches, s->batch);
  return st;
}

/* Luong's schedule: from epoch lr_decay_start_epoch on, decay the rate after every epoch. */
static void end_epoch(nmt_trainer *t) {
  nmt_train_state *s = &t->s;
  s->epoch++, s->batch = 0;
  if (t->o.lr_decay_start_epoch > 0 && s->epoch >= t->o.lr_decay_start_epoch) {
    s->lr *= t->o.lr_decay;
    say(t, "epoch %ld done: learning rate %.3g", s->epoch, s->lr);
  }
}

/* After each update: log, validate, mark a checkpoint due; *done when a limit is reached. */
static int after_update(run *r, bool *done) {
  nmt_trainer *t = r->t;
  const nmt_train_opts *o = &t->o;
  long n = t->s.step;
  int st = NMT_OK;
  bool epoch_end = ++t->s.batch == r->plan.nbatches;
  nmt_when w = {n, epoch_end ? t->s.epoch + 1 : 0, t->s.tokens - r->upd.words, t->s.tokens};
  if (o->after_batches > 0 && n >= o->after_batches) *done = true;
  if (epoch_end && o->after_epochs > 0 && t->s.epoch + 1 >= o->after_epochs) *done = true;
  if (o->after_tokens > 0 && t->s.tokens >= o->after_tokens) *done = true;
  if (t->hooks.progress && writer(t)) {
    nmt_train_progress p = {n, t->s.epoch, t->s.batch, r->plan.nbatches, t->s.tokens,
                            r->loss_sum / (double)(r->loss_tokens ? r->loss_tokens : 1)};
    t->hooks.progress(t->hooks.ctx, &p);
  }
  if (o->log_freq > 0 && (nmt_every(o->log_freq, o->log_unit, &w) || *done) && (st = log_metrics(r)))
    return save_then_fail(r, st);
  if (epoch_end) end_epoch(t);
  if (t->valid && nmt_every(o->valid_freq, o->valid_unit, &w)) st = validate(r, done);
  if (nmt_every(o->save_freq, o->save_unit, &w)) r->save_due = true; /* made by save_if_due */
  return st;
}

/* A periodic save due after the last update, made once this batch's loss shows that
 * update good and before this batch's update changes the weights: the files never hold
 * weights whose next loss is NaN/Inf or spiking. */
static int save_if_due(run *r, const batch_grad *g) {
  return r->save_due && !g->broken && !g->spike ? save_checkpoint(r) : NMT_OK;
}

/* The next batch of the plan: its gradient, the save that was due, its update, and
 * what is due after it. */
static int next_batch(run *r, bool *done) {
  batch_grad g;
  int st = ensure_plan(r);
  if (!st) st = gradient(r, r->t->s.batch, &g);
  if (!st) st = save_if_due(r, &g);
  if (!st) st = update(r, &g);
  return st ? st : after_update(r, done);
}

/* The last save of a run, unless it ends in a bad streak. */
static int save_last(run *r) {
  if (!r->bad_steps) return save_checkpoint(r);
  return nmt_fail(NMT_EINPUT, "the run ends at step %ld after %d bad steps in a row: %s", r->t->s.step,
                  r->bad_steps, r->saved_step >= 0 ? "the last good checkpoint is kept" : "nothing was saved");
}

/* The end of a run: a final checkpoint and, without validation, the model. */
static int finish(run *r) {
  nmt_trainer *t = r->t;
  int st = save_last(r);
  if (!st && !t->valid) st = save_model(r, t->o.model_path);
  if (!st && t->valid && t->s.best_step == 0) {
    bool ignore = false;
    st = validate(r, &ignore);
  }
  return st;
}

/* Under mpirun: a --mini-batch too small to give every slot a part leaves ranks idle. */
static void warn_small_parts(const run *r) {
  const nmt_updater *k = &r->upd;
  int slots = k->comm->size * k->workers, per_part = r->t->o.batch.max_sents / slots;
  if (k->comm->size > 1 && per_part < NMT_MIN_PART)
    say(r->t, "warning: --mini-batch %d over %d slots (%d ranks x %d threads) is %d sentences a part, under %d: "
        "some slots idle; --mini-batch is the whole update's, whatever the number of ranks", r->t->o.batch.max_sents,
        slots, k->comm->size, k->workers, per_part, NMT_MIN_PART);
}

/* On a GPU the updates change a copy of the parameters there. */
static int to_device(run *r) {
  const nn_backend *be = r->t->o.be;
  if (!be || be == &nn_cpu_backend) return NMT_OK;
  int st = nn_params_upload(&r->dev, &r->t->model->params, be);
  if (!st) r->p = &r->dev;
  return st;
}

/* Under mpirun on devices the gradients are summed there (train/device_sum.h). */
static int sum_on_device(run *r) {
  char note[512];
  int st = nmt_device_sum_open(&r->upd.dev, r->upd.comm, r->p->be, note, sizeof note);
  if (!st) say(r->t, "%s", note);
  return st;
}

int nmt_train(nmt_trainer *t, volatile sig_atomic_t *stop) {
  run r = {.t = t, .p = &t->model->params, .plan_epoch = -1, .saved_step = -1};
  r.t0 = nmt_seconds() - t->s.elapsed;
  r.log_t0 = nmt_seconds();
  bool done = (t->o.after_epochs > 0 && t->s.epoch >= t->o.after_epochs) ||
              (t->o.after_batches > 0 && t->s.step >= t->o.after_batches) ||
              (t->o.after_tokens > 0 && t->s.tokens >= t->o.after_tokens);
  char note[256];
  int st = nmt_train_resume_check(t, note, sizeof note);
  if (!st && note[0]) say(t, "warning: %s", note);
  /* a run resumed with a smaller --keep-best keeps its best so many (without it, all stay) */
  while (!st && t->o.keep_best > 0 && t->s.nkept > t->o.keep_best) drop_kept(t, t->s.kept[--t->s.nkept].step);
  /* a checkpoint's average goes on; a run without smoothing drops it */
  if (!st) st = nn_params_keep_ema(&t->model->params, t->o.ema > 0);
  if (!st) st = nmt_train_ranks_agree(t);
  if (!st) st = to_device(&r);
  if (!st) st = nmt_updater_init(&r.upd, r.p == &r.dev ? 1 : t->o.workers, t->model->params.n);
  if (!st && t->o.comm) r.upd.comm = t->o.comm;
  if (!st && r.p == &r.dev && r.upd.comm->size > 1) st = sum_on_device(&r);
  r.upd.shards = r.p == &r.dev ? nmt_comm_local() : r.upd.comm;
  if (!st) st = nmt_shard_state(r.upd.shards, r.p);
  r.upd.delay = t->o.delay > 1 ? t->o.delay : 1;
  if (!st) warn_small_parts(&r);
  while (!st && !done) {
    /* a signal reaches the ranks at different times: they stop together */
    if ((st = nmt_comm_any(r.upd.comm, stop && *stop, &t->interrupted)) || t->interrupted) break;
    st = next_batch(&r, &done);
  }
  if (!st) st = t->interrupted ? save_last(&r) : finish(&r);
  nmt_updater_free(&r.upd);
  nmt_plan_free(&r.plan);
  if (r.p == &r.dev) nn_params_free(&r.dev);
  return st;
}
