/* The validation metrics (Marian's --valid-metrics names): their names and log
 * labels, which of them a validation computes, and which value of one is better. */
#ifndef NMT_TRAIN_VMETRIC_H
#define NMT_TRAIN_VMETRIC_H
#include <stdbool.h>
#include <stddef.h>

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

/* What a validation gave (train/valid.h). */
typedef struct {
  double ppl, ce, bleu, chrf; /* ce: cross-entropy per target token, ln ppl; NaN: not computed */
} nmt_valid_scores;

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

#endif
