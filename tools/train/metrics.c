/* The metrics CSV: one row per log interval, flushed so a crash keeps them. */
#include "base/err.h"
#include "train_tool.h"
#include <errno.h>

int metrics_open(metrics_csv *m, const char *path, bool resume) {
  m->path = path;
  m->f = fopen(path, resume ? "a" : "w");
  if (!m->f) return nmt_fail_errno(NMT_EIO, "%s: cannot open", path);
  if (ftell(m->f) == 0)
    fputs("step,epoch,tokens,loss,ppl,lr,grad_norm,tokens_per_s,elapsed_s,peak_rss_mib\n", m->f);
  return fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", path) : NMT_OK;
}

int metrics_row(void *ctx, const nmt_train_metrics *r) {
  metrics_csv *m = ctx;
  int n = fprintf(m->f, "%ld,%ld,%ld,%.6f,%.4f,%.6g,%.4f,%.1f,%.3f,%.1f\n", r->step, r->epoch, r->tokens,
          r->loss, r->ppl, r->lr, r->grad_norm, r->tokens_per_s, r->elapsed, r->peak_rss_mib);
  return n < 0 || fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", m->path) : NMT_OK;
}

void metrics_close(metrics_csv *m) { fclose(m->f); }
