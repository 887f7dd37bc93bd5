/* Forced-pass attention; see decode/align.h. */
#include "decode/align.h"
#include "base/err.h"
#include "decode/forced.h"
#include <stdio.h>
#include <string.h>

int nmt_attention_argmax(const float *row, int n) {
  int best = 0;
  for (int i = 1; i < n; i++)
    if (row[i] > row[best]) best = i;
  return best;
}

int nmt_attention_text(nmt_strbuf *out, const float *att, int n_tgt, int n_src, nmt_align_kind kind, float threshold) {
  int st = NMT_OK;
  const char *sep = "";
  for (int t = 0; t < n_tgt && !st; t++) {
    const float *row = att + (size_t)t * (n_src + 1);
    if (kind == NMT_ALIGN_SOFT) {
      for (int s = 0; s <= n_src && !st; s++) st = nmt_strbuf_addf(out, "%s%g", s ? "," : t ? " " : "", (double)row[s]);
      continue;
    }
    int best = nmt_attention_argmax(row, n_src);
    for (int s = 0; s < n_src && !st; s++)
      if (kind == NMT_ALIGN_HARD ? s == best : row[s] > threshold) st = nmt_strbuf_addf(out, "%s%d-%d", sep, s, t), sep = " ";
  }
  return st;
}

typedef struct {
  const int *src_n, *tgt_n;
  float *const *out;
} attention_job;

/* Each row's target token t: its weights over the source and </s> (in source order: decode/net.h). */
static int take_attention(void *ctx, const nmt_dec *d, int r0, int B, int t) {
  const attention_job *j = ctx;
  for (int b = 0; b < B; b++) {
    int r = r0 + b, S = j->src_n[r] + 1;
    if (t < j->tgt_n[r]) memcpy(j->out[r] + (size_t)t * S, d->align + (size_t)b * d->S, sizeof(float) * (size_t)S);
  }
  return NMT_OK;
}

int nmt_attention(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
                  const int *const *tgt, const int *tgt_n, int R, float *const *out) {
  for (int m = 0; m < e->n; m++)
    if (e->net[m]->cfg.no_attention) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  attention_job j = {src_n, tgt_n, out};
  return nmt_forced(d, e, src, src_n, tgt, tgt_n, R, false, true, take_attention, &j);
}
