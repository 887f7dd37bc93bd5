/* The metrics CSV: one row per log interval and one per validation (their
 * columns, the other kind's left empty), flushed so a crash keeps them. */
#include "base/err.h"
#include "train_tool.h"
#include <errno.h>
#include <math.h>

int metrics_open(metrics_csv *m, const char *path, bool resume, nmt_vmetric first) {
  m->path = path;
  m->f = fopen(path, resume ? "a" : "w");
  if (!m->f) return nmt_fail_errno(NMT_EIO, "%s: cannot open", path);
  char best[32]; /* best_valid_ppl, best_valid_ce_mean_words, ... */
  snprintf(best, sizeof best, "best_valid_%s", nmt_vmetric_label(first));
  for (char *c = best; *c; c++) *c = *c == '-' ? '_' : *c;
  if (ftell(m->f) == 0)
    fprintf(m->f, "step,epoch,tokens,loss,ppl,lr,grad_norm,tokens_per_s,elapsed_s,peak_rss_mib,"
            "valid_ppl,valid_bleu,valid_chrf,%s\n", best);
  return fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", path) : NMT_OK;
}

int metrics_row(void *ctx, const nmt_train_metrics *r) {
  metrics_csv *m = ctx;
  int n = fprintf(m->f, "%ld,%ld,%ld,%.6f,%.4f,%.6g,%.4f,%.1f,%.3f,%.1f,,,,\n", r->step, r->epoch, r->tokens,
          r->loss, r->ppl, r->lr, r->grad_norm, r->tokens_per_s, r->elapsed, r->peak_rss_mib);
  return n < 0 || fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", m->path) : NMT_OK;
}

/* A value's cell: empty where not computed. */
static const char *cell(char *out, size_t n, double v) {
  if (isnan(v)) out[0] = 0;
  else snprintf(out, n, "%.4f", v);
  return out;
}

int metrics_valid_row(metrics_csv *m, const nmt_valid_metrics *v) {
  char ppl[32], bleu[32], chrf[32], best[32];
  int n = fprintf(m->f, "%ld,%ld,%ld,,,,,,%.3f,,%s,%s,%s,%s\n", v->step, v->epoch, v->tokens, v->elapsed,
                  cell(ppl, sizeof ppl, v->ppl), cell(bleu, sizeof bleu, v->bleu), cell(chrf, sizeof chrf, v->chrf),
                  cell(best, sizeof best, v->best));
  return n < 0 || fflush(m->f) ? nmt_fail_errno(NMT_EIO, "%s: write error", m->path) : NMT_OK;
}

void metrics_close(metrics_csv *m) { fclose(m->f); }
