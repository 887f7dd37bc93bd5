/* Terminology constraints (nmt-decode --constraints, nmt-serve's "constraints"): phrases of
 * target tokens that every hypothesis returned must contain, by the constrained beam search
 * of Post & Vilar 2018 with dynamic beam allocation (as Sockeye's lexical_constraints.py).
 * At each step a sentence's candidates are the search's own best 2K expansions, each live
 * hypothesis's allowed constraint tokens (the next of a phrase it has started, or the first
 * of a phrase it has not met) and each hypothesis's best single token; </s> only where every
 * constraint is met. The beam (K less the hypotheses finished) is divided among banks, one
 * per number of constraint tokens met (0..C), a bank's unused slots passed to the bank
 * below; each bank keeps its best. A phrase broken off before its end is unmet again; one
 * starts only at a word's start (not after a token that joins the next, nmt_search_opts.joins). The
 * state of a hypothesis is replayed from its tokens at each step: nothing follows the rows
 * through the search's reordering. decode/search.c calls these; a search without
 * constraints never does. */
#ifndef NMT_DECODE_CONSTRAINED_H
#define NMT_DECODE_CONSTRAINED_H
#include "decode/search.h"
#include <stdbool.h>

enum { NMT_CONS_MAX = 64 }; /* constraint tokens of one sentence, at most */

typedef struct nmt_cons nmt_cons;

/* The constraints of the B sentences in[b] (nmt_sent.cons) for a beam of K, joins as
 * nmt_search_opts's: *c stays NULL
 * when none has any. NMT_OK, NMT_EIO (memory), NMT_EUSAGE (more than NMT_CONS_MAX tokens). */
int nmt_cons_new(nmt_cons **c, const nmt_sent *in, int B, int K, const bool *joins);
void nmt_cons_free(nmt_cons *c);
/* Whether sentence i has constraints, and whether its hypothesis ids[0..n) meets them all. */
bool nmt_cons_has(const nmt_cons *c, int i);
bool nmt_cons_met(const nmt_cons *c, int i, const int *ids, int n);

/* A sentence's K rows at step t: their scores (-INFINITY: not live), log-probabilities (K, V)
 * and token histories (K rows of stride, t tokens each). */
typedef struct {
  const float *base, *logp;
  const int *hist;
  int K, V, stride, t;
} nmt_cons_rows;

/* Sentence i's candidates for a beam of cap (>= 1) slots: score and index (k2 >= K each, as
 * nmt_dec_candidates fills them: index = k*V + v, -1 past the end) hold the search's best on
 * entry and the chosen ones on return, best first. */
void nmt_cons_select(nmt_cons *c, int i, const nmt_cons_rows *r, int cap, float *score, int *index, int k2);

/* After a constrained search of in[0..B): each sentence with constraints and no hypothesis
 * meeting them (out[b].n == 0) is searched again without them; out[b].unmet is set. */
int nmt_cons_retry(nmt_dec *d, const nmt_models *e, const nmt_sent *in, int B, const nmt_search_opts *o,
                   nmt_nbest *out);

#endif
