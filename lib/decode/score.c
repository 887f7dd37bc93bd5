/* Forced scores; see decode/score.h. */
#include "decode/score.h"
#include "base/err.h"
#include "decode/align.h"
#include "decode/forced.h"
#include "text/vocab.h"

typedef struct {
  const int *const *tgt;
  const int *src_n, *tgt_n;
  double *logp;
  float *const *word, *const *att;
} score_job;

/* Each row's token t (its </s> at t = tgt_n): its log-probability. */
static int take_score(void *ctx, const nmt_dec *d, int r0, int B, int t) {
  const score_job *j = ctx;
  int V = d->V;
  for (int b = 0; b < B; b++) {
    int r = r0 + b, n = j->tgt_n[r];
    if (t > n) continue;
    float lp = d->logp[(size_t)b * V + (t < n ? j->tgt[r][t] : NMT_EOS)];
    j->logp[r] += lp;
    if (j->word) j->word[r][t] = lp;
  }
  if (j->att) nmt_attention_take(d, r0, B, t, j->src_n, j->tgt_n, j->att);
  return NMT_OK;
}

int nmt_score_aligned(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
                      const int *const *tgt, const int *tgt_n, int R, double *logp, float *const *word,
                      float *const *att) {
  for (int r = 0; r < R; r++) logp[r] = 0;
  if (att && nmt_attention_check(e)) return NMT_EUSAGE;
  score_job j = {tgt, src_n, tgt_n, logp, word, att};
  return nmt_forced(d, e, src, src_n, tgt, tgt_n, R, true, att != NULL, take_score, &j);
}

int nmt_score(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
              const int *const *tgt, const int *tgt_n, int R, double *logp, float *const *word) {
  return nmt_score_aligned(d, e, src, src_n, tgt, tgt_n, R, logp, word, NULL);
}
