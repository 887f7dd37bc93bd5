/* The training loop; see train_loop.h. */
#include "err.h"
#include "nn_ops.h"
#include "train_loop.h"
#include "train_step.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { MAX_BAD_STEPS = 5 };

/* What the loop carries between steps besides the checkpointed state. */
typedef struct {
  nmt_trainer *t;
  nmt_stepper stepper;
  nmt_plan plan;
  long plan_epoch;     /* epoch the plan is for; -1: none */
  int bad_steps;       /* NaN/Inf steps in a row */
  double t0;           /* clock at the start of this run, minus s.elapsed */
  /* since the last log line */
  double loss_sum, norm_sum;
  long loss_tokens, log_steps, log_tokens;
  double log_t0;
} run;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void say(const nmt_trainer *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const nmt_trainer *t, const char *fmt, ...) {
  if (!t->hooks.log) return;
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
  return (nmt_train_state){.seed = o->seed, .lr = o->lr};
}

/* One optimisation step on batch b of the plan. Returns NMT_OK, also for a
 * skipped NaN/Inf step; an error after MAX_BAD_STEPS of them in a row. */
static int step(run *r, long b) {
  nmt_trainer *t = r->t;
  nmt_train_state *s = &t->s;
  nn_params *p = &t->model->params;
  const long *pairs = r->plan.pairs + r->plan.start[b];
  double l;
  long ntok = 0;
  int st = nmt_step_gradient(&r->stepper, t->train, pairs, (int)(r->plan.start[b + 1] - r->plan.start[b]),
                             &t->model->net, p, s->seed, (uint64_t)s->step, &l, &ntok);
  if (st) return st;
  double norm = NAN;
  if (isfinite(l)) norm = t->o.clip_norm > 0 ? nn_params_clip(p, t->o.clip_norm) : nn_params_grad_norm(p);
  if (!isfinite(l) || !isfinite(norm)) {
    say(t, "warning: step %ld: %s is %s; step skipped", s->step + 1, isfinite(l) ? "gradient norm" : "loss",
        isnan(isfinite(l) ? norm : l) ? "NaN" : "Inf");
    if (++r->bad_steps >= MAX_BAD_STEPS)
      return nmt_fail(NMT_EINPUT, "training diverged: loss or gradient NaN/Inf at %d steps in a row "
                                  "(step %ld); try a lower --learn-rate or --clip-norm",
                      r->bad_steps, s->step + 1);
  } else {
    r->bad_steps = 0;
    float rec = t->o.lr_recurrent > 0 ? (float)(t->o.lr_recurrent / t->o.lr) : 1;
    nn_adam_step(p, &(nn_adam){(float)s->lr, 0.9f, 0.999f, 1e-8f, rec});
    r->loss_sum += l, r->loss_tokens += ntok, r->norm_sum += norm, r->log_steps++;
  }
  s->step++;
  s->tokens += r->stepper.words;
  r->log_tokens += r->stepper.words;
  return NMT_OK;
}

static void log_metrics(run *r) {
  nmt_trainer *t = r->t;
  double tnow = now(), loss = r->loss_sum / (double)(r->loss_tokens ? r->loss_tokens : 1);
  nmt_train_metrics m = {t->s.step, t->s.epoch + 1, t->s.tokens, loss, exp(loss), t->s.lr,
                         r->norm_sum / (double)(r->log_steps ? r->log_steps : 1),
                         (double)r->log_tokens / (tnow - r->log_t0 > 0 ? tnow - r->log_t0 : 1e-9),
                         tnow - r->t0, nmt_peak_rss_mib()};
  say(t, "epoch %ld step %ld: loss %.4f ppl %.2f lr %.3g grad-norm %.3f %.0f tokens/s, peak RSS %.0f MiB",
      m.epoch, m.step, m.loss, m.ppl, m.lr, m.grad_norm, m.tokens_per_s, m.peak_rss_mib);
  if (t->hooks.metrics) t->hooks.metrics(t->hooks.ctx, &m);
  r->loss_sum = r->norm_sum = 0;
  r->loss_tokens = r->log_steps = r->log_tokens = 0;
  r->log_t0 = tnow;
}

static int save_checkpoint(run *r) {
  r->t->s.elapsed = now() - r->t0;
  return nmt_checkpoint_save(r->t->model, &r->t->s, r->t->o.ckpt_path);
}

/* Validate; save the best model; decay the rate or stop on a plateau. */
static int validate(run *r, bool *stop_now) {
  nmt_trainer *t = r->t;
  nmt_train_state *s = &t->s;
  double ppl, bleu;
  int st = nmt_validate(t->model, t->valid, &ppl, &bleu);
  if (st) return st;
  bool better = s->best_ppl == 0 || ppl < s->best_ppl;
  if (better) {
    s->best_ppl = ppl;
    s->stalls = 0;
    st = nmt_model_save(t->model, t->o.model_path);
  } else {
    s->stalls++;
    s->lr *= t->o.lr_decay;
  }
  say(t, "valid step %ld: ppl %.3f bleu %.2f%s", s->step, ppl, bleu,
      better ? " (best, saved)" : "");
  if (!better && t->o.early_stopping > 0 && s->stalls >= t->o.early_stopping) {
    say(t, "early stopping: %d validations without improvement", s->stalls);
    *stop_now = true;
  }
  return st;
}

/* The plan of the current epoch, made when the epoch changes. */
static int ensure_plan(run *r) {
  if (r->plan_epoch == r->t->s.epoch) return NMT_OK;
  nmt_plan_free(&r->plan);
  r->plan_epoch = r->t->s.epoch;
  return nmt_plan_epoch(&r->plan, r->t->train, &r->t->o.batch, r->t->s.seed, r->t->s.epoch);
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

/* After each step: log, validate, checkpoint; *done when a limit is reached. */
static int after_step(run *r, bool *done) {
  nmt_trainer *t = r->t;
  const nmt_train_opts *o = &t->o;
  long n = t->s.step;
  int st = NMT_OK;
  bool epoch_end = ++t->s.batch == r->plan.nbatches;
  if (o->after_batches > 0 && n >= o->after_batches) *done = true;
  if (epoch_end && o->after_epochs > 0 && t->s.epoch + 1 >= o->after_epochs) *done = true;
  if (t->hooks.progress) {
    nmt_train_progress p = {n, t->s.epoch, t->s.batch, r->plan.nbatches, t->s.tokens,
                            r->loss_sum / (double)(r->loss_tokens ? r->loss_tokens : 1)};
    t->hooks.progress(t->hooks.ctx, &p);
  }
  if (o->log_freq > 0 && (n % o->log_freq == 0 || *done)) log_metrics(r);
  if (epoch_end) end_epoch(t);
  if (t->valid && o->valid_freq > 0 && n % o->valid_freq == 0) st = validate(r, done);
  if (!st && o->save_freq > 0 && n % o->save_freq == 0) st = save_checkpoint(r);
  return st;
}

/* The end of a run: a final checkpoint and, without validation, the model. */
static int finish(run *r) {
  nmt_trainer *t = r->t;
  int st = save_checkpoint(r);
  if (!st && !t->valid) st = nmt_model_save(t->model, t->o.model_path);
  if (!st && t->valid && t->s.best_ppl == 0) {
    bool ignore = false;
    st = validate(r, &ignore);
  }
  return st;
}

int nmt_train(nmt_trainer *t, volatile sig_atomic_t *stop) {
  run r = {.t = t, .plan_epoch = -1};
  r.t0 = now() - t->s.elapsed;
  r.log_t0 = now();
  bool done = (t->o.after_epochs > 0 && t->s.epoch >= t->o.after_epochs) ||
              (t->o.after_batches > 0 && t->s.step >= t->o.after_batches);
  int st = nmt_stepper_init(&r.stepper, t->o.workers, t->model->params.n);
  while (!st && !done) {
    if (stop && *stop) {
      t->interrupted = true;
      break;
    }
    if (!(st = ensure_plan(&r)) && !(st = step(&r, t->s.batch))) st = after_step(&r, &done);
  }
  if (!st) st = t->interrupted ? save_checkpoint(&r) : finish(&r);
  nmt_stepper_free(&r.stepper);
  nmt_plan_free(&r.plan);
  return st;
}
