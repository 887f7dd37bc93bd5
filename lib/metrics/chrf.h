/* chrF and chrF++ as sacreBLEU 2.6.0 computes them: character n-grams of the
 * line without whitespace (orders 1..char_order), optional word n-grams of a
 * punctuation-split line (1..word_order), the best reference by F-score, and
 * effective-order averaging (or chrF++.py's eps smoothing). */
#ifndef NMT_METRICS_CHRF_H
#define NMT_METRICS_CHRF_H
#include <stdbool.h>
#include <stddef.h>

enum { NMT_CHRF_MAX_ORDER = 16 };

typedef struct {
  int char_order, word_order; /* 6, 0 (word_order 2 = chrF++) */
  int beta;                   /* 2 */
  bool lowercase, whitespace, eps_smoothing;
} nmt_chrf_opts;

nmt_chrf_opts nmt_chrf_defaults(void);

typedef struct nmt_chrf nmt_chrf;

/* NMT_EUSAGE for orders out of range. */
int nmt_chrf_new(nmt_chrf **c, const nmt_chrf_opts *o);
void nmt_chrf_free(nmt_chrf *c);
/* 3 * (char_order + word_order) statistics: [hyp, ref, match] per order. */
int nmt_chrf_nstats(const nmt_chrf *c);
/* NMT_OK or NMT_EIO (out of memory). */
int nmt_chrf_segment(nmt_chrf *c, const char *hyp, size_t hyp_len, const char *const *refs,
                     const size_t *ref_lens, int nrefs, double *stats);
/* Score in [0, 100]. f32: divide counts in single precision, as sacreBLEU's
 * bootstrap does on its float32 statistics. */
double nmt_chrf_score(const nmt_chrf *c, const double *stats, bool f32);
/* "chrF2" or "chrF2++" */
void nmt_chrf_name(const nmt_chrf *c, char *buf, size_t n);
/* "case:mixed|eff:yes|nc:6|nw:0|space:no" */
void nmt_chrf_signature(const nmt_chrf *c, char *buf, size_t n);

#endif
