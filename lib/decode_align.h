/* Hard word alignments from attention (nmt-decode --alignment): a forced
 * pass in which the decoder reads each finished hypothesis (no output layer),
 * taking for every target token the source position it attended to most. */
#ifndef NMT_DECODE_ALIGN_H
#define NMT_DECODE_ALIGN_H
#include "nn_model_luong.h"

/* R rows: source src[r] (src_n[r] >= 1 ids, no </s>) and hypothesis tgt[r]
 * (tgt_n[r] ids, no </s>). out[r][j] (room for tgt_n[r]) receives the source
 * position, 0-based in the order given (also with reverse_source; </s> never
 * counts), with the highest attention weight when target token j was
 * predicted. The model must have attention. g is scratch, reused across calls. */
int nmt_align(nn_graph *g, const nn_luong *net, nn_params *p, const int *const *src,
              const int *src_n, const int *const *tgt, const int *tgt_n, int R, int *const *out);

#endif
