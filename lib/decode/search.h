/* Batched beam search over the step decoder (one model or an ensemble; (greedy is beam 1): per sentence
 * the best 2K expansions of the K live hypotheses; those ending in </s> are
 * finished, the best K others live on. A sentence stops with K finished
 * hypotheses or at its length limit (live ones then count as finished).
 * Finished hypotheses are ranked by score / length^alpha (length counts </s>). */
#ifndef NMT_DECODE_SEARCH_H
#define NMT_DECODE_SEARCH_H
#include "decode/lexical.h"
#include "decode/net.h"

typedef struct {
  int beam;                 /* K >= 1 */
  float normalize;          /* alpha: 0 ranks by the summed log-probability */
  float max_length_factor;  /* at most factor * (source tokens + 1) target tokens */
  int shortlist;            /* nmt_step_args.shortlist (0: the whole vocabulary) */
  const nmt_lex *lex;       /* a lexical shortlist (NULL: none; then shortlist applies) */
} nmt_search_opts;

typedef struct {
  int *ids;    /* without </s> */
  int n;
  float score; /* normalised log-probability */
} nmt_hyp;

typedef struct {
  nmt_hyp *hyps; /* best first */
  int n;
} nmt_nbest;

/* Translate B non-empty sentences (src[b] has src_n[b] ids, no </s>); out (B)
 * receives each sentence's hypotheses; free them with nmt_nbest_free. */
int nmt_search(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n, int B,
               const nmt_search_opts *o, nmt_nbest *out);
void nmt_nbest_free(nmt_nbest *nb);

#endif
