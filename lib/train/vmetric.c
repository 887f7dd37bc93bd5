/* The validation metrics' names, and which value of a metric is better; see
 * train/vmetric.h. */
#include "train/vmetric.h"
#include "base/err.h"
#include <stdio.h>
#include <string.h>

static const struct {
  const char *name, *label;
  bool higher; /* higher is better */
  int digits;  /* in the log line */
} metrics[NMT_VM_COUNT] = {
    [NMT_VM_PERPLEXITY] = {"perplexity", "ppl", false, 3},
    [NMT_VM_CE_MEAN_WORDS] = {"ce-mean-words", "ce-mean-words", false, 4},
    [NMT_VM_BLEU] = {"bleu", "bleu", true, 2},
    [NMT_VM_CHRF] = {"chrf", "chrf", true, 2},
};

const char *nmt_vmetric_name(nmt_vmetric m) { return metrics[m].name; }
const char *nmt_vmetric_label(nmt_vmetric m) { return metrics[m].label; }

int nmt_vmetric_parse(const char *flag, const char *name, nmt_vmetric *m) {
  for (int i = 0; i < NMT_VM_COUNT; i++)
    if (!strcmp(name, metrics[i].name)) return *m = (nmt_vmetric)i, NMT_OK;
  return nmt_fail(NMT_EUSAGE, "--%s: unknown metric '%s' (perplexity, ce-mean-words, bleu or chrf)", flag, name);
}

int nmt_valid_metrics_of(const nmt_valid_opts *o, nmt_vmetric *out) {
  static const nmt_vmetric dflt[] = {NMT_VM_PERPLEXITY, NMT_VM_BLEU, NMT_VM_CHRF}; /* what validation always gave */
  int n = o && o->n ? o->n : 3;
  memcpy(out, o && o->n ? o->metrics : dflt, sizeof *out * (size_t)n);
  return n;
}

nmt_vmetric nmt_valid_first_metric(const nmt_valid_opts *o) {
  nmt_vmetric m[NMT_VM_COUNT];
  nmt_valid_metrics_of(o, m);
  return m[0];
}

double nmt_vmetric_value(nmt_vmetric m, const nmt_valid_scores *s) {
  switch (m) {
  case NMT_VM_PERPLEXITY: return s->ppl;
  case NMT_VM_CE_MEAN_WORDS: return s->ce;
  case NMT_VM_BLEU: return s->bleu;
  default: return s->chrf;
  }
}

void nmt_valid_scores_text(const nmt_valid_opts *o, const nmt_valid_scores *s, char *out, size_t n) {
  nmt_vmetric m[NMT_VM_COUNT];
  size_t len = 0;
  out[0] = 0;
  for (int i = 0, k = nmt_valid_metrics_of(o, m); i < k && len < n; i++)
    len += (size_t)snprintf(out + len, n - len, "%s%s %.*f", i ? " " : "", metrics[m[i]].label,
                            metrics[m[i]].digits, nmt_vmetric_value(m[i], s));
}

double nmt_vmetric_gain(nmt_vmetric m, double a, double b) { return metrics[m].higher ? a - b : b - a; }

bool nmt_vmetric_better(nmt_vmetric m, double a, double b) { return nmt_vmetric_gain(m, a, b) > 0; }
