/* Batched beam search over the step decoder (one model or an ensemble; (greedy is beam 1): per sentence
 * the best 2K expansions of the K live hypotheses; those ending in </s> are
 * finished, the best K others live on. A sentence stops with K finished
 * hypotheses or at its length limit (live ones then count as finished).
 * Finished hypotheses are ranked by score / length^alpha (length counts </s>).
 * A sentence's target prefix is forced first: each live hypothesis takes its
 * next token, scored as the model scores it, until the prefix ends. With
 * sampling (decode/sample.h) the K rows are K samples drawn one token at a time
 * instead of a beam. With constraints (decode/constrained.h) every hypothesis returned
 * contains them, or the sentence is searched again without them (nmt_nbest.unmet). */
#ifndef NMT_DECODE_SEARCH_H
#define NMT_DECODE_SEARCH_H
#include "decode/lexical.h"
#include "decode/net.h"
#include "decode/sample.h"
#include <stdint.h>

typedef struct {
  int beam;                 /* K >= 1 */
  float normalize;          /* alpha: 0 ranks by the summed log-probability */
  float max_length_factor;  /* at most factor * (source tokens + 1) target tokens */
  int shortlist;            /* nmt_step_args.shortlist (0: the whole vocabulary) */
  nmt_sampling sampling;    /* kind NMT_SAMPLE_NONE (zero): beam search */
  const nmt_lex *lex;       /* a lexical shortlist (NULL: none; then shortlist applies) */
  const bool *joins;        /* (target vocabulary) the tokens that join the next (BPE's "@@"): a
                               constraint's phrase starts only after a word's end (NULL: anywhere) */
} nmt_search_opts;

/* One sentence to translate: its source, src[0..src_n) (src_n >= 1, no </s>), its target
 * prefix, prefix[0..prefix_n) (none: 0), forced before the search; with sampling, its
 * random stream: draws at (seed, stream, step, row), so that its samples depend on
 * nothing else (nmt-decode: --seed and the input line number); its constraints (ignored
 * with sampling). */
typedef struct {
  const int *src;
  int src_n;
  const int *prefix;
  int prefix_n;
  uint64_t seed, stream;
  const int *cons; /* its constraints' target ids, cons[0..cons_n), each phrase followed by -1 (none: 0) */
  int cons_n;
} nmt_sent;

typedef struct {
  int *ids;    /* without </s> */
  int n;
  float score; /* normalised log-probability */
} nmt_hyp;

typedef struct {
  nmt_hyp *hyps; /* best first */
  int n;
  bool unmet; /* its constraints were not all met: these are the unconstrained search's */
} nmt_nbest;

/* Translate B non-empty sentences (src[b] has src_n[b] ids, no </s>); out (B)
 * receives each sentence's hypotheses; free them with nmt_nbest_free. */
int nmt_search(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n, int B,
               const nmt_search_opts *o, nmt_nbest *out);
/* The same for B sentences with their prefixes and random streams. A hypothesis holds
 * its prefix, and its score counts the prefix's tokens: the forced score of the whole. */
int nmt_search_sents(nmt_dec *d, const nmt_models *e, const nmt_sent *in, int B, const nmt_search_opts *o,
                     nmt_nbest *out);
void nmt_nbest_free(nmt_nbest *nb);
/* A sentence's length limit in target tokens (</s> included) under o: src_n source tokens,
 * a prefix of prefix_n. */
int nmt_search_limit(const nmt_search_opts *o, int src_n, int prefix_n);

#endif
