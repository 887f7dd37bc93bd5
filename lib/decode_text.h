/* From ids back to text: tokens joined by spaces and, by default, BPE joined
 * again (subword-nmt's "@@ " continuation marks removed). */
#ifndef NMT_DECODE_TEXT_H
#define NMT_DECODE_TEXT_H
#include "strbuf.h"
#include "vocab.h"
#include <stdbool.h>

/* Append the text of ids[0..n) to out; with join, BPE pieces are merged. */
int nmt_ids_text(const nmt_vocab *v, const int *ids, int n, bool join, nmt_strbuf *out);
/* Append s[0..n) with every "@@ " and a final "@@" removed. */
int nmt_bpe_join(const char *s, size_t n, nmt_strbuf *out);

#endif
