/* An attention heatmap as SVG (nmt-decode --attention-svg DIR): source tokens
 * on x (their labels upright at the top), target tokens on y, one cell per
 * pair, darker for a higher weight, its weight in the cell's tooltip. */
#ifndef NMT_DECODE_SVG_H
#define NMT_DECODE_SVG_H
#include "base/strbuf.h"
#include "text/vocab.h"

/* Append the picture of att (n_tgt rows of n_src weights: row j is target
 * token tgt[j]'s attention over src[0..n_src)) to out, a whole SVG document.
 * Tokens are any UTF-8 text (escaped here). NMT_OK or NMT_EIO. */
int nmt_attention_svg(nmt_strbuf *out, const char *const *src, int n_src, const char *const *tgt, int n_tgt,
                      const float *att);
/* The picture of one translation: the source's tokens (src_toks, len bytes,
 * space-separated; its first src_n label the columns, then </s>), target ids
 * ids[0..n) under v, att (n rows of src_n + 1: nmt_attention's). */
int nmt_attention_svg_ids(nmt_strbuf *out, const char *src_toks, size_t len, int src_n, const nmt_vocab *v,
                          const int *ids, int n, const float *att);

#endif
