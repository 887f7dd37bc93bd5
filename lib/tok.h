/* Moses-compatible text processing, one line at a time: tokenizer.perl,
 * detokenizer.perl, normalize-punctuation.perl and lowercase.perl. Every
 * function appends the processed line and its '\n' to `out`; the input is one
 * line of valid UTF-8 without its '\n'. A tok_scratch holds the working buffers
 * (one per thread); nothing is allocated per line once they have grown. */
#ifndef NMT_TOK_H
#define NMT_TOK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tok_nbp.h"

typedef struct { char *p; size_t n, cap; } tok_str;
typedef struct { uint32_t *p; size_t n, cap; } tok_cps;

typedef struct {
  tok_cps a, b;       /* code point passes ping-pong between these */
  tok_str s, t, word; /* byte passes, and a word being looked up */
  void *words;        /* the detokenizer's word list */
  size_t words_cap;
} tok_scratch;

void tok_scratch_free(tok_scratch *s);
/* Grow to hold `need` items; return false when out of memory. */
bool tok_str_reserve(tok_str *s, size_t need);
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
bool tok_tokenize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n, tok_str *out);
bool tok_detokenize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n, tok_str *out);
bool tok_normalize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n, tok_str *out);
bool tok_lowercase(tok_scratch *s, const char *line, size_t n, tok_str *out);

/* Helpers shared by the passes (lib/tok_buf.c). */
/* The code point of valid UTF-8 at b[*i]; moves *i past it. */
static inline uint32_t tok_utf8_next(const unsigned char *b, size_t *i) {
  uint32_t c = b[*i];
  if (c < 0x80) return ++*i, c;
  if (c < 0xE0) return c = (c & 0x1F) << 6 | (b[*i + 1] & 0x3F), *i += 2, c;
  if (c < 0xF0) return c = (c & 0x0F) << 12 | (b[*i + 1] & 0x3F) << 6 | (b[*i + 2] & 0x3F), *i += 3, c;
  c = (c & 0x07) << 18 | (b[*i + 1] & 0x3F) << 12 | (b[*i + 2] & 0x3F) << 6 | (b[*i + 3] & 0x3F);
  *i += 4;
  return c;
}
/* Writes c at q as UTF-8 (room for 4 bytes); returns the new end. */
static inline char *tok_utf8_put(char *q, uint32_t c) {
  if (c < 0x80) {
    *q++ = (char)c;
  } else if (c < 0x800) {
    *q++ = (char)(0xC0 | c >> 6), *q++ = (char)(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *q++ = (char)(0xE0 | c >> 12), *q++ = (char)(0x80 | (c >> 6 & 0x3F)),
    *q++ = (char)(0x80 | (c & 0x3F));
  } else {
    *q++ = (char)(0xF0 | c >> 18), *q++ = (char)(0x80 | (c >> 12 & 0x3F)),
    *q++ = (char)(0x80 | (c >> 6 & 0x3F)), *q++ = (char)(0x80 | (c & 0x3F));
  }
  return q;
}
bool tok_decode(tok_cps *c, const char *s, size_t n);       /* valid UTF-8 → code points */
bool tok_encode(tok_str *out, const uint32_t *cp, size_t n); /* append as UTF-8 */
static inline bool tok_put(tok_str *o, const void *p, size_t n) {
  if (!n) return true; /* p may be NULL for an empty piece */
  if (o->n + n > o->cap && !tok_str_reserve(o, o->n + n)) return false;
  memcpy(o->p + o->n, p, n);
  o->n += n;
  return true;
}

#endif
