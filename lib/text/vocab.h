/* A token vocabulary: dense ids for the tokens of BPE'd text, with four
 * specials first (<pad>=0 <unk>=1 <s>=2 </s>=3). Built by frequency (ties in
 * order of first occurrence), saved as text, one token a line in id order. */
#ifndef NMT_TEXT_VOCAB_H
#define NMT_TEXT_VOCAB_H
#include "base/strbuf.h"
#include <stdbool.h>
#include <stddef.h>

enum { NMT_PAD = 0, NMT_UNK = 1, NMT_BOS = 2, NMT_EOS = 3, NMT_NSPECIALS = 4 };

typedef struct nmt_vocab nmt_vocab;

/* Count the space-separated tokens of `path` (text, zstd allowed) and keep
 * those seen at least min_count times, most frequent first, at most max_size
 * ids in all (0: no limit). Invalid UTF-8 is NMT_EINPUT naming the line. */
int nmt_vocab_build(nmt_vocab **v, const char *path, long min_count, long max_size);
/* Load a vocabulary from text: one token a line, the four specials first.
 * `name` is used in messages. */
int nmt_vocab_parse(nmt_vocab **v, const char *text, size_t len, const char *name);
/* Read and parse a vocabulary file (zstd allowed): the form above, or the count form
 * subword-nmt's get_vocab.py and nmt-bpe vocab/learn-joint --vocab-out write ("TOKEN
 * COUNT" lines, most frequent first), which gets the specials first, then its tokens in
 * order. Which form: the first line's. */
int nmt_vocab_load(nmt_vocab **v, const char *path);
/* The same from a file's text in memory (name for messages). */
int nmt_vocab_from_text(nmt_vocab **v, const char *text, size_t len, const char *name);
/* Append the text form (one token a line) to out. */
int nmt_vocab_text(const nmt_vocab *v, nmt_strbuf *out);
void nmt_vocab_free(nmt_vocab *v);

int nmt_vocab_size(const nmt_vocab *v);
/* The id of s[0..n), or NMT_UNK. */
int nmt_vocab_id(const nmt_vocab *v, const char *s, size_t n);
const char *nmt_vocab_token(const nmt_vocab *v, int id);
/* Whether a and b hold the same tokens under the same ids. */
bool nmt_vocab_equal(const nmt_vocab *a, const nmt_vocab *b);

/* The tokens of a line as pieces of it (split as nmt_vocab_encode splits: at
 * spaces and '\r'): s[i] (not NUL-terminated), n[i] bytes. */
typedef struct {
  const char **s;
  size_t *n;
  int count, cap;
} nmt_tokens;
/* Split line[0..len) into t (its earlier tokens dropped, its room kept). NMT_OK or NMT_EIO. */
int nmt_tokens_split(nmt_tokens *t, const char *line, size_t len);
void nmt_tokens_free(nmt_tokens *t);
/* Ids of the space-separated tokens of line[0..len) appended to *ids (grown
 * with realloc; *n counts them, *cap the room). NMT_OK or NMT_EIO. */
int nmt_vocab_encode(const nmt_vocab *v, const char *line, size_t len, int **ids, int *n,
                     int *cap);

#endif
