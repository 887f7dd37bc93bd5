/* Forced-pass alignments; see decode/align.h. */
#include "decode/align.h"
#include "base/err.h"
#include "decode/forced.h"

/* The source position among the first n with the highest weight in a (in
 * source order: decode/net.h). */
static int argmax_source(const float *a, int n) {
  int best = 0;
  for (int i = 1; i < n; i++)
    if (a[i] > a[best]) best = i;
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
      j->out[r0 + b][t] = argmax_source(d->align + (size_t)b * d->S, j->src_n[r0 + b]);
  return NMT_OK;
}

int nmt_align(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
              const int *const *tgt, const int *tgt_n, int R, int *const *out) {
  for (int m = 0; m < e->n; m++)
    if (e->net[m]->cfg.no_attention) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  align_job j = {src_n, tgt_n, out};
  return nmt_forced(d, e, src, src_n, tgt, tgt_n, R, false, true, take_alignment, &j);
}
