/* Forced-pass attention; see decode/align.h. */
#include "decode/align.h"
#include "base/err.h"
#include "decode/forced.h"
#include <stdio.h>
#include <stdlib.h>
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

void nmt_attention_take(const nmt_dec *d, int r0, int B, int t, const int *src_n, const int *tgt_n, float *const *out) {
  for (int b = 0; b < B; b++) {
    int r = r0 + b, S = src_n[r] + 1;
    if (t < tgt_n[r]) memcpy(out[r] + (size_t)t * S, d->align + (size_t)b * d->S, sizeof(float) * (size_t)S);
  }
}

static int take_attention(void *ctx, const nmt_dec *d, int r0, int B, int t) {
  const attention_job *j = ctx;
  nmt_attention_take(d, r0, B, t, j->src_n, j->tgt_n, j->out);
  return NMT_OK;
}

int nmt_attention_check(const nmt_models *e) {
  for (int m = 0; m < e->n; m++)
    if (e->net[m]->cfg.no_attention) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  return NMT_OK;
}

int nmt_align_parse(const char *s, nmt_align_kind *kind, float *threshold) {
  char *end;
  double t = strtod(s, &end);
  bool number = end != s && !*end;
  *kind = !strcmp(s, "hard") ? NMT_ALIGN_HARD : !strcmp(s, "soft") ? NMT_ALIGN_SOFT
        : number && t > 0 && t < 1 ? NMT_ALIGN_THRESHOLD : number && t == 1 ? NMT_ALIGN_HARD : NMT_ALIGN_NONE;
  *threshold = (float)t;
  return *kind ? NMT_OK : nmt_fail(NMT_EUSAGE, "--alignment '%s': expected hard, soft or a threshold in (0, 1]", s);
}

int nmt_attention(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
                  const int *const *tgt, const int *tgt_n, int R, float *const *out) {
  if (nmt_attention_check(e)) return NMT_EUSAGE;
  attention_job j = {src_n, tgt_n, out};
  return nmt_forced(d, e, src, src_n, tgt, tgt_n, R, false, true, take_attention, &j);
}
