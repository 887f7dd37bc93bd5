/* One interface over BLEU, chrF and TER for the tool: per-segment statistics,
 * scores of summed statistics, names and signatures. */
#ifndef NMT_TOOLS_BLEU_METRIC_H
#define NMT_TOOLS_BLEU_METRIC_H
#include <stdbool.h>
#include <stddef.h>
#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "metrics/ter.h"

typedef struct {
  nmt_bleu_opts bleu;
  nmt_chrf_opts chrf;
  nmt_tercom_opts ter;
} metric_opts;

typedef struct {
  int kind;       /* M_BLEU, M_CHRF, M_TER: also the output order */
  char name[24];  /* "BLEU", "chrF2", "chrF2++", "TER" */
  char sig[160];  /* metric part of the signature */
  int nstats;
  nmt_bleu *bleu;
  nmt_chrf *chrf;
  nmt_ter *ter;
} metric;

enum { M_BLEU, M_CHRF, M_TER };

/* which: "bleu", "chrf" or "ter". NMT_EUSAGE for another name. */
int metric_open(metric *m, const char *which, const metric_opts *o);
void metric_close(metric *m);
/* NMT_EIO out of memory; NMT_EINPUT for a line a metric cannot score. */
int metric_segment(metric *m, const char *hyp, size_t hyp_len, const char *const *refs,
                   const size_t *ref_lens, int nrefs, double *stats);
/* Score of summed statistics; verbose (may be NULL) gets BLEU's details. */
double metric_score(const metric *m, const double *stats, bool f32, char *verbose, size_t vn);
/* nmt_score_fn adapter for the significance tests (ctx is a metric). */
double metric_score_fn(const void *ctx, const double *stats, bool f32);

#endif
