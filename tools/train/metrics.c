/* The metrics CSV: one row per log interval and one per validation (their
 * columns, the other kind's left empty), flushed so a crash keeps them. */
#include "base/err.h"
#include "train_tool.h"
#include <errno.h>
#include <math.h>

int metrics_open(metrics_csv *m, const char *path, bool resume) {
  m->path = path;
  m->f = fopen(path, resume ? "a" : "w");
  if (!m->f) return nmt_fail_errno(NMT_EIO, "%s: cannot open", path);
  if (ftell(m->f) == 0)
    fputs("step,epoch,tokens,loss,ppl,lr,grad_norm,tokens_per_s,elapsed_s,peak_rss_mib,"
          "valid_ppl,valid_bleu,valid_chrf,best_valid_ppl\n", m->f);
  return fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", path) : NMT_OK;
}

int metrics_row(void *ctx, const nmt_train_metrics *r) {
  metrics_csv *m = ctx;
  int n = fprintf(m->f, "%ld,%ld,%ld,%.6f,%.4f,%.6g,%.4f,%.1f,%.3f,%.1f,,,,\n", r->step, r->epoch, r->tokens,
          r->loss, r->ppl, r->lr, r->grad_norm, r->tokens_per_s, r->elapsed, r->peak_rss_mib);
  return n < 0 || fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", m->path) : NMT_OK;
}

int metrics_valid_row(metrics_csv *m, const nmt_valid_metrics *v) {
  char chrf[32] = ""; /* empty where not computed */
  if (!isnan(v->chrf)) snprintf(chrf, sizeof chrf, "%.4f", v->chrf);
  int n = fprintf(m->f, "%ld,%ld,%ld,,,,,,%.3f,,%.4f,%.4f,%s,%.4f\n", v->step, v->epoch, v->tokens, v->elapsed,
                  v->ppl, v->bleu, chrf, v->best_ppl);
  return n < 0 || fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", m->path) : NMT_OK;
}

void metrics_close(metrics_csv *m) { fclose(m->f); }
