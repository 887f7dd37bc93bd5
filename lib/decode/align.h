/* Hard word alignments from attention (nmt-decode --alignment): a forced
 * pass in which the decoder reads each finished hypothesis,
 * taking for every target token the source position it attended to most. */
#ifndef NMT_DECODE_ALIGN_H
#define NMT_DECODE_ALIGN_H
#include "decode/net.h"

/* R rows: source src[r] (src_n[r] >= 1 ids, no </s>) and hypothesis tgt[r]
 * (tgt_n[r] ids, no </s>). out[r][j] (room for tgt_n[r]) receives the source
 * position, 0-based in the order given (also with reverse_source; </s> never
 * counts), with the highest attention weight when target token j was
 * predicted (an ensemble: the mean of its models' attention). Every model must
 * have attention. d is the decoder, reused. */
int nmt_align(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
              const int *const *tgt, const int *tgt_n, int R, int *const *out);

#endif
