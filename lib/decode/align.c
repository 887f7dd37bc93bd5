/* Forced-pass alignments; see decode/align.h. */
#include "decode/align.h"
#include "base/err.h"
#include "decode/forced.h"

/* The source position of row b with the highest weight in a (S): memory row s
 * holds token s, or token n-s when reversed (</s> first). */
static int argmax_source(const float *a, int n, bool reversed) {
  int best = 0;
  for (int i = 1; i < n; i++)
    if (a[reversed ? n - i : i] > a[reversed ? n - best : best]) best = i;
  return best;
}

typedef struct {
  const int *src_n, *tgt_n;
  int *const *out;
} align_job;

/* Each row's target token t: the source position it attended to most. */
static int take_alignment(void *ctx, const nmt_dec *d, int r0, int B, int t) {
  const align_job *j = ctx;
  for (int b = 0; b < B; b++)
    if (t < j->tgt_n[r0 + b])
      j->out[r0 + b][t] = argmax_source(d->align + (size_t)b * d->S, j->src_n[r0 + b], d->net->cfg.opt.reverse_source);
  return NMT_OK;
}

int nmt_align(nmt_dec *d, const nn_net *net, nn_params *p, const int *const *src,
              const int *src_n, const int *const *tgt, const int *tgt_n, int R, int *const *out) {
  if (net->cfg.no_attention) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  align_job j = {src_n, tgt_n, out};
  return nmt_forced(d, net, p, src, src_n, tgt, tgt_n, R, false, true, take_alignment, &j);
}
