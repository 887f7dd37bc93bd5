/* Alignments of a translation call's hypotheses (nmt_translator_options.alignment): the
 * attention with which each target token was predicted, from a forced pass over each
 * hypothesis shown, as nmt-decode --alignment computes it after each mini-batch. */
#include "api/api.h"
#include "base/err.h"
#include <stdlib.h>

int api_align_batch(nmt_translator *t, nmt_dec *d, const nmt_sent *in, const nmt_nbest *out, int n, float **att) {
  int shown = t->o.n_best ? t->o.beam_size : 1, R = 0, st = NMT_OK;
  size_t rows = (size_t)n * shown + 1;
  const int **src = malloc(sizeof *src * rows), **tgt = malloc(sizeof *tgt * rows);
  int *src_n = malloc(sizeof *src_n * rows), *tgt_n = malloc(sizeof *tgt_n * rows);
  float **rows_out = malloc(sizeof *rows_out * rows);
  if (!src || !tgt || !src_n || !tgt_n || !rows_out) st = nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < n && !st; i++) {
    int k = out[i].n < shown ? out[i].n : shown, S = in[i].src_n + 1;
    size_t total = 0;
    for (int h = 0; h < k; h++) total += (size_t)out[i].hyps[h].n * S;
    if (!(att[i] = malloc(sizeof **att * (total + 1)))) st = nmt_fail(NMT_EIO, "out of memory");
    for (size_t at = 0, h = 0; !st && h < (size_t)k; at += (size_t)out[i].hyps[h].n * S, h++, R++)
      src[R] = in[i].src, src_n[R] = in[i].src_n, tgt[R] = out[i].hyps[h].ids, tgt_n[R] = out[i].hyps[h].n,
      rows_out[R] = att[i] + at;
  }
  if (!st) st = nmt_attention(d, &t->e.dec, src, src_n, tgt, tgt_n, R, rows_out);
  free(src), free(tgt), free(src_n), free(tgt_n), free(rows_out);
  return st;
}
