/* BLEU exactly as sacreBLEU 2.6.0 computes it (tokenizers 13a/intl/none/char,
 * smoothing exp/floor/add-k/none, closest reference length, multi-reference
 * max counts), plus Moses multi-bleu.perl's reading of tokenized text.
 *
 *   nmt_bleu *b; nmt_bleu_new(&b, &opts);
 *   for each line: st = nmt_bleu_segment(b, hyp, hyp_len, refs, ref_lens, nrefs, stats);
 *                  add stats into a corpus total (NMT_BLEU_NSTATS doubles)
 *   nmt_bleu_compute(b, total, &score);
 */
#ifndef NMT_METRICS_BLEU_H
#define NMT_METRICS_BLEU_H
#include <stdbool.h>
#include <stddef.h>

enum { NMT_BLEU_ORDER = 4, NMT_BLEU_NSTATS = 2 + 2 * NMT_BLEU_ORDER };

typedef struct {
  const char *tokenize;  /* "13a" (default when NULL), "intl", "none", "char" */
  bool lowercase;
  const char *smooth;    /* "exp" (default when NULL), "floor", "add-k", "none" */
  double smooth_value;   /* < 0: the method's default (floor 0.1, add-k 1) */
  bool effective_order;  /* sentence-level BLEU */
  bool multibleu;        /* multi-bleu.perl: split on ASCII blanks, ASCII lowercase */
} nmt_bleu_opts;

/* Defaults: 13a, mixed case, exp smoothing. */
nmt_bleu_opts nmt_bleu_defaults(void);

typedef struct {
  double score, bp, ratio, precisions[NMT_BLEU_ORDER];
  long sys_len, ref_len, counts[NMT_BLEU_ORDER], totals[NMT_BLEU_ORDER];
} nmt_bleu_score;

typedef struct nmt_bleu nmt_bleu;

/* NMT_EUSAGE for an unknown tokenizer or smoothing method. */
int nmt_bleu_new(nmt_bleu **b, const nmt_bleu_opts *o);
void nmt_bleu_free(nmt_bleu *b);

/* Statistics of one segment: [hyp_len, ref_len, correct 1..4, total 1..4].
 * Lines are valid UTF-8; trailing whitespace is ignored. NMT_OK or NMT_EIO
 * (out of memory). */
int nmt_bleu_segment(nmt_bleu *b, const char *hyp, size_t hyp_len, const char *const *refs,
                     const size_t *ref_lens, int nrefs, double *stats);

/* The score of (summed) statistics. */
void nmt_bleu_compute(const nmt_bleu *b, const double *stats, nmt_bleu_score *out);

/* "13a|smooth:exp"-style parts: writes "case:..|eff:..|tok:..|smooth:.." */
void nmt_bleu_signature(const nmt_bleu *b, char *buf, size_t n);
/* "100.0/86.8/74.3/63.7 (BP = 0.830 ratio = 0.843 hyp_len = 11009 ref_len = 13058)" */
void nmt_bleu_verbose(const nmt_bleu_score *s, char *buf, size_t n);

/* Corpus BLEU of n hypotheses against one reference each (the trainer's
 * validation score). NMT_OK, NMT_EUSAGE or NMT_EIO. */
int nmt_bleu_corpus(const char *const *hyps, const char *const *refs, size_t n,
                    const nmt_bleu_opts *o, nmt_bleu_score *out);

#endif
