/* Attention over the source for given translations (nmt-decode --alignment,
 * --replace-unk, --attention-svg): a forced pass in which the decoder reads
 * each finished hypothesis, keeping the attention weights with which each of
 * its tokens was predicted. Hard alignments take each row's highest weight. */
#ifndef NMT_DECODE_ALIGN_H
#define NMT_DECODE_ALIGN_H
#include "base/strbuf.h"
#include "decode/net.h"

/* R rows: source src[r] (src_n[r] >= 1 ids, no </s>) and hypothesis tgt[r]
 * (tgt_n[r] ids, no </s>). out[r] (room for tgt_n[r] × (src_n[r] + 1)) gets
 * one row per target token j: the weights of source positions 0 .. src_n[r],
 * the last one </s>, 0-based in the order given (also with reverse_source); an
 * ensemble's are the mean of its models'. Every model must have attention.
 * d is the decoder, reused. */
int nmt_attention(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
                  const int *const *tgt, const int *tgt_n, int R, float *const *out);
/* NMT_OK when every model has attention, else NMT_EUSAGE "alignments need a model with
 * attention". */
int nmt_attention_check(const nmt_models *e);
/* A forced pass's step t (nmt_forced_fn's arguments, asked with align): rows r0 .. r0+B-1
 * of out (as nmt_attention's) get their target token t's weights. */
void nmt_attention_take(const nmt_dec *d, int r0, int B, int t, const int *src_n, const int *tgt_n, float *const *out);
/* The hard alignment of a row of weights: the position among the first n (the
 * source tokens; </s> never) with the highest weight, the first of ties. */
int nmt_attention_argmax(const float *row, int n);

/* Marian's --alignment kinds. */
typedef enum {
  NMT_ALIGN_NONE,
  NMT_ALIGN_HARD,      /* "s-t" for each target token t: its argmax source token */
  NMT_ALIGN_THRESHOLD, /* "s-t" for every source token s whose weight is above a threshold */
  NMT_ALIGN_SOFT       /* each target token's weights, comma separated, </s>'s last */
} nmt_align_kind;

/* --alignment's value: hard, soft or a threshold in (0, 1] (1 is hard, as Marian's). NMT_OK,
 * or NMT_EUSAGE naming it. */
int nmt_align_parse(const char *s, nmt_align_kind *kind, float *threshold);

/* Append the alignment of att (n_tgt rows of n_src + 1 weights, nmt_attention's)
 * to out: pairs space separated, in target then source order. */
int nmt_attention_text(nmt_strbuf *out, const float *att, int n_tgt, int n_src, nmt_align_kind kind, float threshold);

#endif
