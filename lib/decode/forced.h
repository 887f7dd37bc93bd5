/* Forced decoding: the decoder reads given targets instead of searching, in
 * chunks of rows, and a visitor sees each step's log-probabilities (and
 * attention weights) — what alignments and scores are made from. */
#ifndef NMT_DECODE_FORCED_H
#define NMT_DECODE_FORCED_H
#include "decode/net.h"

/* After step t of the chunk of rows [r0, r0+B): d->logp (B, Vt) holds the
 * distribution of target token t of each row (token tgt_n[r] being </s>), and
 * d->align (B, S) the attention weights when asked for. Rows whose target has
 * ended are stepped on padding. NMT_OK or an error, which stops the pass. */
typedef int (*nmt_forced_fn)(void *ctx, const nmt_dec *d, int r0, int B, int t);

/* R rows: source src[r] (src_n[r] >= 1 ids, no </s>) and target tgt[r] (tgt_n[r]
 * ids, no </s>). Steps 0 .. max(tgt_n) - 1, and with eos one more, the step
 * that predicts each row's </s>. d is the decoder of the models e, reused. */
int nmt_forced(nmt_dec *d, const nmt_models *e, const int *const *src, const int *src_n,
               const int *const *tgt, const int *tgt_n, int R, bool eos, bool align, nmt_forced_fn visit,
               void *ctx);

#endif
