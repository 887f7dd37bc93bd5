/* The rules of Moses' clean-corpus-n.perl, one sentence pair at a time:
 * normalise each side (optional lowercasing, '|' deleted, Unicode whitespace
 * runs to one space, ends trimmed), count words, and judge the pair. The
 * normalised text is what the script writes out. */
#ifndef NMT_TEXT_CLEAN_H
#define NMT_TEXT_CLEAN_H
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  long min, max;          /* words per side, inclusive */
  double ratio;           /* drop when one side has more than ratio x the other's words */
  bool ignore_ratio;
  bool ignore_xml;        /* words are counted with <tags> removed */
  bool lc;                /* lowercase (Perl lc) before anything else */
  long max_word_length;   /* Moses: drop when a word or factor has more chars; default 1000 */
  long max_token_chars;   /* ours: drop when a space-separated token has more chars; 0 = off */
} nmt_clean_opts;

void nmt_clean_defaults(nmt_clean_opts *o); /* Moses defaults: 1, 50, ratio 9, 1000 */

/* Why a pair goes; KEEP first. The order is the order the rules are checked. */
enum nmt_clean_verdict {
  NMT_CLEAN_KEEP,
  NMT_CLEAN_EMPTY,         /* a side is empty after normalising */
  NMT_CLEAN_TOO_LONG,      /* more than max words */
  NMT_CLEAN_TOO_SHORT,     /* fewer than min words */
  NMT_CLEAN_RATIO,         /* word-count ratio above ratio */
  NMT_CLEAN_WORD_LENGTH,   /* a word longer than max_word_length chars */
  NMT_CLEAN_TOKEN_CHARS,   /* a token longer than max_token_chars chars */
  NMT_CLEAN_NRULES
};
const char *nmt_clean_rule_name(int verdict);

/* One side of a pair after normalising; reuse it across lines. */
typedef struct {
  char *text;             /* normalised, NUL-terminated */
  size_t len;
  long words;             /* Moses word count (tags removed under ignore_xml) */
  long longest_factor;    /* chars in the longest run of non-space, non-'|' */
  long longest_token;     /* chars in the longest run of non-space */
  char *lower;            /* lowercasing buffer */
  size_t cap, lower_cap;
} nmt_clean_side;

/* Does a corpus's first pair make it "factored" (the script then keeps '|')? */
bool nmt_clean_is_factored(const char *src, size_t src_len, const char *tgt, size_t tgt_len);

/* Normalise line (valid UTF-8) into s. keep_bars: the corpus is factored.
 * Returns NMT_OK, or NMT_EIO (memory, locale). */
int nmt_clean_side_set(nmt_clean_side *s, const nmt_clean_opts *o, bool keep_bars,
                       const char *line, size_t n);
void nmt_clean_side_free(nmt_clean_side *s);

/* The script's verdict on a normalised pair. */
int nmt_clean_judge(const nmt_clean_opts *o, const nmt_clean_side *src, const nmt_clean_side *tgt);

/* Factored corpora only: a blank factor ("a||b", "a |b") is fatal in the script. */
bool nmt_clean_has_blank_factor(const nmt_clean_side *s);

#endif
