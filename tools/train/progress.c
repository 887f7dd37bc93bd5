/* nmt-train's stderr: log lines, and on a terminal one progress line with the
 * ETA, redrawn in place (\r) at most a few times a second so it costs nothing. */
#include "base/clock.h"
#include "base/err.h"
#include "train_tool.h"
#include "train/curve_svg.h"
#include "tool.h"
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

enum { REDRAW_PER_S = 4 };

void console_init(train_console *c, const train_args *a, metrics_csv *csv) {
  *c = (train_console){.quiet = a->quiet, .tty = !a->quiet && isatty(STDERR_FILENO),
                       .after_epochs = a->after_epochs, .after_batches = a->after_batches,
                       .step0 = -1, .csv = csv, .plot = a->plot};
  snprintf(c->title, sizeof c->title, "%s: learning curve", a->model ? a->model : PROG);
}

/* Erase the progress line so a log line does not run into it. */
static void clear(train_console *c) {
  if (c->drawn) fputs("\r\033[K", stderr);
  c->drawn = false;
}

void console_log(void *ctx, const char *line) {
  train_console *c = ctx;
  if (c->quiet && strncmp(line, "warning", 7)) {
    tool_log_line(PROG, line); /* -q quiets the terminal, not the log */
    return;
  }
  clear(c);
  tool_sayf(PROG, "%s", line);
}

void console_say(train_console *c, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  console_log(c, line);
}

int console_metrics(void *ctx, const nmt_train_metrics *row) {
  train_console *c = ctx;
  return c->csv ? metrics_row(c->csv, row) : NMT_OK;
}

int console_validated(void *ctx, const nmt_valid_metrics *v) {
  train_console *c = ctx;
  int st = c->csv ? metrics_valid_row(c->csv, v) : NMT_OK;
  return !st && c->plot ? nmt_curve_plot(c->csv->path, c->plot, c->title) : st;
}

/* Steps left to the nearest limit; without one, to the end of the epoch. */
static long steps_left(const train_console *c, const nmt_train_progress *p) {
  long in_epoch = p->nbatches - p->batch, left = -1;
  if (c->after_epochs > 0) left = in_epoch + (c->after_epochs - p->epoch - 1) * p->nbatches;
  if (c->after_batches > 0 && (left < 0 || c->after_batches - p->step < left))
    left = c->after_batches - p->step;
  return left < 0 ? in_epoch : left;
}

static void hms(char *out, size_t n, double s) {
  long t = (long)(s + 0.5);
  if (t >= 3600) snprintf(out, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else snprintf(out, n, "%ldm%02lds", t / 60, t % 60);
}

void console_progress(void *ctx, const nmt_train_progress *p) {
  train_console *c = ctx;
  if (!c->tty) return;
  double t = nmt_seconds();
  if (c->step0 < 0) c->step0 = p->step, c->tokens0 = p->tokens, c->t0 = t; /* rates of this run's own steps */
  if (t - c->last_draw < 1.0 / REDRAW_PER_S || p->step == c->step0) return;
  c->last_draw = t;
  char eta[32];
  hms(eta, sizeof eta, (t - c->t0) / (double)(p->step - c->step0) * (double)steps_left(c, p));
  bool to_limit = c->after_epochs > 0 || c->after_batches > 0;
  fprintf(stderr, "\r\033[K" PROG ": epoch %ld batch %ld/%ld step %ld loss %.3f %.0f tokens/s, ETA %s%s",
          p->epoch + 1, p->batch, p->nbatches, p->step, p->loss, (double)(p->tokens - c->tokens0) / (t - c->t0),
          eta, to_limit ? "" : " (end of epoch)");
  c->drawn = true;
}

void console_done(train_console *c) { clear(c); }
