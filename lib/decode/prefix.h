/* Target prefixes (nmt-decode --prefix, nmt-serve's "prefix"): a prefix is given in the
 * output's own form (decode/text.h), segmented as the model segments its target, forced
 * as the first target tokens (decode/search.h) and written verbatim at the start of the
 * output. */
#ifndef NMT_DECODE_PREFIX_H
#define NMT_DECODE_PREFIX_H
#include "base/strbuf.h"
#include "decode/text.h"
#include "io/io.h"
#include "text/vocab.h"

/* The target ids of prefix text[0..n) (valid UTF-8, no line break) into *ids (*n set,
 * *cap its room, grown with realloc); a prefix of spaces alone has none. A token the target
 * vocabulary cannot spell (<unk>) or a control token (<s>, </s>, <pad>) is NMT_EINPUT with
 * the message "WHAT: ..." naming it, for the caller to name its place before. */
int nmt_prefix_ids(nmt_text *t, const nmt_vocab *tgt, const char *text, size_t len, int **ids, int *n, int *cap);
/* The same for any target text (a constraint's phrase, decode/terms.h): `what` names it in
 * the message ("the prefix"). */
int nmt_target_ids(nmt_text *t, const nmt_vocab *tgt, const char *text, size_t len, const char *what, int **ids,
                   int *n, int *cap);

/* Append the output text of a hypothesis whose target tokens are toks[0..n) (space
 * separated, as the model writes them) and whose first `head` bytes are its prefix's
 * tokens: the prefix as given, given[0..given_n), then the rest of the output text, which
 * is that of the whole (detokenized, BPE-joined or decoded as nmt_text_output does) past
 * the text of the prefix's tokens alone. Where the whole's text does not start with that
 * (its detokenization changed across the join), the rest is the text of the tokens after
 * the prefix's, after a space. One space between the prefix and the rest when the prefix
 * ends in a space. */
int nmt_prefix_output(nmt_text *t, const char *toks, size_t n, size_t head, const char *given, size_t given_n,
                      nmt_strbuf *out);

/* The same for the target ids[0..n) of a hypothesis whose first pre_n are its prefix's. */
int nmt_prefix_target(nmt_text *t, const nmt_vocab *tgt, const int *ids, int n, int pre_n, const char *given,
                      size_t given_n, nmt_strbuf *out);

/* Line `lineno` (1-based) of the prefix file p, the prefix of the input's line of that
 * number, into ids (nmt_prefix_ids) and given (its text); p's lines before it are passed
 * over (a shard's input starts further on). A prefix file that ends first, a line that is
 * not UTF-8 or that the target vocabulary cannot spell: NMT_EINPUT, one line naming p's
 * name and line. */
int nmt_prefix_read(nmt_reader *p, long lineno, nmt_text *t, const nmt_vocab *tgt, int **ids, int *n, int *cap,
                    nmt_strbuf *given);
/* After the input `in` ended: NMT_OK when p has ended too, else NMT_EINPUT naming both. */
int nmt_prefix_end(nmt_reader *p, const nmt_reader *in);

#endif
