/* Dispatch to lib's BLEU, chrF and TER (see metric.h). */
#include "metric.h"
#include <string.h>
#include "base/err.h"

int metric_open(metric *m, const char *which, const metric_opts *o) {
  memset(m, 0, sizeof *m);
  int st;
  if (!strcmp(which, "bleu")) {
    m->kind = M_BLEU;
    if ((st = nmt_bleu_new(&m->bleu, &o->bleu))) return st;
    strcpy(m->name, "BLEU");
    nmt_bleu_signature(m->bleu, m->sig, sizeof m->sig);
    m->nstats = NMT_BLEU_NSTATS;
  } else if (!strcmp(which, "chrf")) {
    m->kind = M_CHRF;
    if ((st = nmt_chrf_new(&m->chrf, &o->chrf))) return st;
    nmt_chrf_name(m->chrf, m->name, sizeof m->name);
    nmt_chrf_signature(m->chrf, m->sig, sizeof m->sig);
    m->nstats = nmt_chrf_nstats(m->chrf);
  } else if (!strcmp(which, "ter")) {
    m->kind = M_TER;
    if ((st = nmt_ter_new(&m->ter, &o->ter))) return st;
    strcpy(m->name, "TER");
    nmt_ter_signature(m->ter, m->sig, sizeof m->sig);
    m->nstats = NMT_TER_NSTATS;
  } else
    return nmt_fail(NMT_EUSAGE, "unknown metric '%s' (bleu, chrf, ter)", which);
  return NMT_OK;
}

void metric_close(metric *m) {
  nmt_bleu_free(m->bleu);
  nmt_chrf_free(m->chrf);
  nmt_ter_free(m->ter);
}

int metric_segment(metric *m, const char *hyp, size_t hyp_len, const char *const *refs,
                   const size_t *ref_lens, int nrefs, double *stats) {
  if (m->bleu) return nmt_bleu_segment(m->bleu, hyp, hyp_len, refs, ref_lens, nrefs, stats);
  if (m->chrf) return nmt_chrf_segment(m->chrf, hyp, hyp_len, refs, ref_lens, nrefs, stats);
  return nmt_ter_segment(m->ter, hyp, hyp_len, refs, ref_lens, nrefs, stats);
}

double metric_score(const metric *m, const double *stats, bool f32, char *verbose, size_t vn) {
  if (verbose && vn) verbose[0] = 0;
  if (m->chrf) return nmt_chrf_score(m->chrf, stats, f32);
  if (m->ter) return nmt_ter_score(stats, f32);
  nmt_bleu_score s;
  nmt_bleu_compute(m->bleu, stats, &s);
  if (verbose) nmt_bleu_verbose(&s, verbose, vn);
  return s.score;
}

double metric_score_fn(const void *ctx, const double *stats, bool f32) {
  return metric_score(ctx, stats, f32, NULL, 0);
}
