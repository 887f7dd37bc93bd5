/* Forced scores, as marian-scorer gives them: the log-probability a model
 * assigns each target sentence (its </s> included) given its source. */
#ifndef NMT_DECODE_SCORE_H
#define NMT_DECODE_SCORE_H
#include "decode/net.h"

/* R pairs: source src[r] (src_n[r] ids, no </s>), target tgt[r] (tgt_n[r] ids,
 * no </s>). logp[r] = Σ log p(y_t | y_<t, x) over the target's tokens and its
 * </s>; word[r] (room for tgt_n[r] + 1), when word is not NULL, gets each
 * token's. d is the decoder of the models e, reused. */
int nmt_score(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
              const int *const *tgt, const int *tgt_n, int R, double *logp, float *const *word);
/* The same, and att[r] (room for tgt_n[r] × (src_n[r] + 1), when att is not NULL) gets
 * each target token's attention as nmt_attention gives it, from the same pass.
 * NMT_EUSAGE for a model without attention. */
int nmt_score_aligned(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
                      const int *const *tgt, const int *tgt_n, int R, double *logp, float *const *word,
                      float *const *att);

#endif
