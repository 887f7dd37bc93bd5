/* Forced decoding in chunks; see decode/forced.h. */
#include "decode/forced.h"
#include "base/err.h"
#include "text/vocab.h"
#include <stdlib.h>

enum { CHUNK = 64 }; /* rows decoded together */

static int forced_chunk(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
                        const int *const *tgt, const int *tgt_n, int r0, int B, bool eos, bool align,
                        nmt_forced_fn visit, void *ctx) {
  int S = 1, T = 0;
  for (int b = 0; b < B; b++) {
    S = src_n[b] + 1 > S ? src_n[b] + 1 : S;
    T = tgt_n[b] + eos > T ? tgt_n[b] + eos : T;
  }
  if (!T) return NMT_OK;
  int *x = malloc(sizeof *x * ((size_t)S * B + 2 * (size_t)B)), *len = x + (size_t)S * B, *prev = len + B;
  if (!x) return nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < B; b++) {
    len[b] = src_n[b] + 1;
    for (int s = 0; s < S; s++) x[s * B + b] = s < src_n[b] ? src[b][s] : s == src_n[b] ? NMT_EOS : NMT_PAD;
  }
  int st = nmt_dec_start(d, e, x, len, B, S, 1);
  for (int t = 0; t < T && !st; t++) {
    /* the decoder reads <s> y1 .. y_n */
    for (int b = 0; b < B; b++) prev[b] = !t ? NMT_BOS : t <= tgt_n[b] ? tgt[b][t - 1] : NMT_PAD;
    st = nmt_dec_step(d, prev, &(nmt_step_args){.align = align});
    if (!st) st = visit(ctx, d, r0, B, t);
  }
  free(x);
  return st;
}

int nmt_forced(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
               const int *const *tgt, const int *tgt_n, int R, bool eos, bool align, nmt_forced_fn visit,
               void *ctx) {
  int st = NMT_OK;
  for (int r = 0; r < R && !st; r += CHUNK) {
    int n = R - r < CHUNK ? R - r : CHUNK;
    st = forced_chunk(d, e, src + r, src_n + r, tgt + r, tgt_n + r, r, n, eos, align, visit, ctx);
  }
  return st;
}
