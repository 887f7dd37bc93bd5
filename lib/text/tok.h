/* Moses-compatible text processing, one line at a time: tokenizer.perl,
 * detokenizer.perl, normalize-punctuation.perl and lowercase.perl. Every
 * function appends the processed line and its '\n' to `out`; the input is one
 * line of valid UTF-8 without its '\n'. A tok_scratch holds the working buffers
 * (one per thread); nothing is allocated per line once they have grown. */
#ifndef NMT_TEXT_TOK_H
#define NMT_TEXT_TOK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "text/tok_nbp.h"
#include "base/strbuf.h"
#include "base/utf8.h"

typedef struct { uint32_t *p; size_t n, cap; } tok_cps;

typedef struct {
  tok_cps a, b;       /* code point passes ping-pong between these */
  nmt_strbuf s, t, word; /* byte passes, and a word being looked up */
  void *words;        /* the detokenizer's word list */
  size_t words_cap;
} tok_scratch;

void tok_scratch_free(tok_scratch *s);
/* Grow to hold `need` items; return false when out of memory. */
bool tok_cps_reserve(tok_cps *c, size_t need);

typedef struct {
  char lang[16];
  bool aggressive;  /* -a: split hyphens between alphanumerics as "@-@" */
  bool escape;      /* XML-escape & | < > ' " [ ] (tokenizer.perl's default) */
  tok_nbp *nbp;     /* non-breaking prefixes of lang, or English */
} tok_config;

/* Fills cfg for `lang`. Returns false when lang has no prefix list, in which
 * case English prefixes are used (the caller warns, as Moses does). */
bool tok_config_init(tok_config *cfg, const char *lang, bool aggressive, bool escape);
void tok_config_free(tok_config *cfg);

/* The functions return false only when out of memory. */
bool tok_tokenize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n, nmt_strbuf *out);
bool tok_detokenize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n, nmt_strbuf *out);
bool tok_normalize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n, nmt_strbuf *out);
bool tok_lowercase(tok_scratch *s, const char *line, size_t n, nmt_strbuf *out);
/* Perl's lc() of valid UTF-8 line[0..n) written at dst, which has room for
 * TOK_LOWER_ROOM(n) bytes (no mapping grows a character by more than half its
 * bytes: U+0130 2 -> 3). Returns the length written. */
#define TOK_LOWER_ROOM(n) ((n) + (n) / 2)
size_t tok_lower_into(char *dst, const char *line, size_t n);

/* Helpers shared by the passes (lib/text/tok_buf.c). */
bool tok_decode(tok_cps *c, const char *s, size_t n);       /* valid UTF-8 → code points */
bool tok_encode(nmt_strbuf *out, const uint32_t *cp, size_t n); /* append as UTF-8 */
static inline bool tok_put(nmt_strbuf *o, const void *p, size_t n) {
  return !n || !nmt_strbuf_add(o, p, n); /* p may be NULL for an empty piece */
}

#endif
