/* Forced-pass alignments; see decode/align.h. */
#include "decode/align.h"
#include "base/err.h"
#include "text/vocab.h"
#include <stdlib.h>

enum { CHUNK = 64 }; /* rows aligned together */

/* The source position of row b with the highest weight in a (S): memory row s
 * holds token s, or token n-s when reversed (</s> first). */
static int argmax_source(const float *a, int n, bool reversed) {
  int best = 0;
  for (int i = 1; i < n; i++)
    if (a[reversed ? n - i : i] > a[reversed ? n - best : best]) best = i;
  return best;
}

static int align_chunk(nmt_dec *d, const nn_net *m, nn_params *p, const int *const *src,
                       const int *src_n, const int *const *tgt, const int *tgt_n, int B,
                       int *const *out) {
  int S = 1, T = 0;
  for (int b = 0; b < B; b++) {
    S = src_n[b] + 1 > S ? src_n[b] + 1 : S;
    T = tgt_n[b] > T ? tgt_n[b] : T;
  }
  if (!T) return NMT_OK;
  int *x = malloc(sizeof *x * ((size_t)S * B + 2 * (size_t)B)), *len = x + (size_t)S * B, *prev = len + B;
  if (!x) return nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < B; b++) {
    len[b] = src_n[b] + 1;
    for (int s = 0; s < S; s++) x[s * B + b] = s < src_n[b] ? src[b][s] : s == src_n[b] ? NMT_EOS : NMT_PAD;
  }
  int st = nmt_dec_start(d, m, p, x, len, B, S, 1);
  for (int t = 0; t < T && !st; t++) {
    /* the decoder reads <s> y1 .. y_{n-1} */
    for (int b = 0; b < B; b++) prev[b] = !t ? NMT_BOS : t <= tgt_n[b] ? tgt[b][t - 1] : NMT_PAD;
    if ((st = nmt_dec_step(d, prev, &(nmt_step_args){.align = true}))) break;
    for (int b = 0; b < B; b++)
      if (t < tgt_n[b]) out[b][t] = argmax_source(d->align + (size_t)b * S, src_n[b], m->cfg.opt.reverse_source);
  }
  free(x);
  return st;
}

int nmt_align(nmt_dec *d, const nn_net *net, nn_params *p, const int *const *src,
              const int *src_n, const int *const *tgt, const int *tgt_n, int R, int *const *out) {
  if (net->cfg.no_attention) return nmt_fail(NMT_EUSAGE, "alignments need a model with attention");
  int st = NMT_OK;
  for (int r = 0; r < R && !st; r += CHUNK) {
    int n = R - r < CHUNK ? R - r : CHUNK;
    st = align_chunk(d, net, p, src + r, src_n + r, tgt + r, tgt_n + r, n, out + r);
  }
  return st;
}
