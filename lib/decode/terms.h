/* Terminology constraints' text (nmt-decode --constraints FILE): one line per input line,
 * its phrases separated by tabs (an empty line: none), each in the output's own form and
 * segmented as the model segments its target, as a prefix is (decode/prefix.h). The
 * search that meets them: decode/constrained.h. */
#ifndef NMT_DECODE_TERMS_H
#define NMT_DECODE_TERMS_H
#include "decode/text.h"
#include "io/io.h"
#include "text/vocab.h"

/* The phrases of text[0..len) (valid UTF-8, no line break) into ids[0..*n), each phrase's
 * target ids followed by -1 (nmt_sent.cons; *cap its room, grown with realloc). An empty
 * phrase (nothing or spaces between two tabs, or at either end of a line that has a tab):
 * NMT_EINPUT, "WHAT: ...". A phrase the target vocabulary cannot spell (<unk>) or with a
 * control token: NMT_OK with *n = 0 and why (of whylen) saying which: the line is translated
 * without constraints. */
int nmt_terms_ids(nmt_text *t, const nmt_vocab *tgt, const char *text, size_t len, int **ids, int *n, int *cap,
                  char *why, size_t whylen);

/* Line `lineno` (1-based) of the constraints file c, the constraints of the input's line of
 * that number (nmt_terms_ids); c's lines before it are passed over (a shard's input starts
 * further on). A file that ends first, a line that is not UTF-8, an empty phrase:
 * NMT_EINPUT, one line naming c's name and line. why as nmt_terms_ids's (empty: none). */
int nmt_terms_read(nmt_reader *c, long lineno, nmt_text *t, const nmt_vocab *tgt, int **ids, int *n, int *cap,
                   char *why, size_t whylen);
/* After the input `in` ended: NMT_OK when c has ended too, else NMT_EINPUT naming both. */
int nmt_terms_end(nmt_reader *c, const nmt_reader *in);

/* *joins (nmt_vocab_size(tgt), the caller frees it): the target tokens that join the next
 * (ending in BPE's "@@"), nmt_search_opts.joins. NMT_OK or NMT_EIO. */
int nmt_terms_joins(const nmt_vocab *tgt, bool **joins);

#endif
