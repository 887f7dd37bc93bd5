/* Byte-pair encoding, output-compatible with subword-nmt (git 92d6139d):
 * word counting (get_vocab.py), learning merges (learn_bpe.py) and applying
 * them (apply_bpe.py: vocabulary filter, glossaries, BPE-dropout). */
#ifndef NMT_TEXT_BPE_H
#define NMT_TEXT_BPE_H
#include "io/io.h"
#include "base/strbuf.h"
#include <stdbool.h>
#include <stdint.h>

/* ---- word counts ---- */

/* Words (split on ' ' after stripping "\r\n " at both ends, as subword-nmt
 * does) with their counts, in order of first appearance. */
typedef struct nmt_wordfreq nmt_wordfreq;

int nmt_wordfreq_new(nmt_wordfreq **wf);
void nmt_wordfreq_free(nmt_wordfreq *wf);
/* Count the words of every line of `path` ("-" = stdin); invalid UTF-8 is
 * NMT_EINPUT naming file, line and byte offset. With `dict`, each line is
 * "WORD COUNT" (learn_bpe.py --dict-input). */
int nmt_wordfreq_read(nmt_wordfreq *wf, const char *path, bool dict);
int nmt_wordfreq_add(nmt_wordfreq *wf, const char *word, size_t n, long count);
/* Add one line's words (the line must be valid UTF-8). */
int nmt_wordfreq_add_line(nmt_wordfreq *wf, const char *line, size_t len);
/* "WORD COUNT" lines by descending count, ties in order of first appearance
 * (get_vocab.py: Python's stable sort of a Counter). */
int nmt_wordfreq_write(const nmt_wordfreq *wf, nmt_writer *w);

/* ---- learning ---- */

typedef struct {
  long symbols;       /* merge operations to learn (-s) */
  long min_frequency; /* stop when the best pair is rarer than this (2) */
  bool total_symbols; /* -t: subtract the number of distinct characters */
} nmt_bpe_learn_opts;

typedef struct {
  long merges;                      /* merges written */
  long chars_internal, chars_final; /* distinct characters (with -t) */
  bool stopped;                     /* ended early: no pair >= min_frequency */
} nmt_bpe_learn_info;

/* Learn merges from the counted words; append to `codes` the text of a
 * "#version: 0.2" codes file identical to learn_bpe.py's. */
int nmt_bpe_learn(const nmt_wordfreq *wf, const nmt_bpe_learn_opts *o, nmt_strbuf *codes,
                  nmt_bpe_learn_info *info);

/* ---- applying ---- */

typedef struct nmt_bpe nmt_bpe;

typedef struct {
  const char *separator;   /* between the pieces of a word; "@@" when NULL */
  long merges;             /* use the first N codes only; -1 for all */
  const char *vocab_path;  /* --vocabulary: undo merges that make rare units */
  long vocab_threshold;    /* units with a lower count count as absent; -1 none */
  const char *const *glossaries; /* regexes (Python re-like, PCRE2) never split */
  int n_glossaries;
} nmt_bpe_opts;

/* Load a codes file (version 0.1 without header, or "#version: 0.2"). A bad
 * line is NMT_EINPUT naming the file and line. */
int nmt_bpe_load(nmt_bpe **b, const char *codes_path, const nmt_bpe_opts *o);
/* The same from the codes text in memory; `name` is used in messages. */
int nmt_bpe_load_text(nmt_bpe **b, const char *codes, size_t len, const char *name, const nmt_bpe_opts *o);
void nmt_bpe_free(nmt_bpe *b);
/* BPE-dropout: each merge is skipped with probability p, drawn from our own
 * generator (xoshiro256**) seeded with `seed`, so it is reproducible but not
 * Python's random stream. p = 0 turns it off. */
void nmt_bpe_set_dropout(nmt_bpe *b, double p, uint64_t seed);
/* Segment one line (valid UTF-8, no '\n') and append it to out, without a
 * newline. Leading/trailing whitespace is kept, runs of inner spaces become
 * one, as apply_bpe.py does. Not thread-safe per nmt_bpe (it caches words). */
int nmt_bpe_apply_line(nmt_bpe *b, const char *line, size_t len, nmt_strbuf *out);

/* The word cache behind nmt_bpe_apply_line: words and their segmentations in
 * at most `bytes` (tables and text; 0: no cache), NMT_BPE_CACHE_BYTES from
 * loading. Words used again outlive the rest when it is full; words longer than
 * NMT_BPE_CACHE_WORD_MAX bytes are never cached. Setting it empties it. */
enum { NMT_BPE_CACHE_BYTES = 64 << 20, NMT_BPE_CACHE_WORD_MAX = 1024 };
void nmt_bpe_set_cache(nmt_bpe *b, size_t bytes);
/* The bytes the cache holds now (its tables and text). */
size_t nmt_bpe_cache_size(const nmt_bpe *b);

#endif
