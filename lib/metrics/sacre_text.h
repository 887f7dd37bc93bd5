/* The bits of Python's str that sacreBLEU's results depend on: which code points
 * are whitespace for str.split()/str.rstrip(), and str.lower(). Inputs are valid
 * UTF-8 (tools validate lines before scoring). */
#ifndef NMT_METRICS_SACRE_TEXT_H
#define NMT_METRICS_SACRE_TEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/err.h"
#include "base/strbuf.h"
#include "base/utf8.h"


/* Python's str.isspace() set (what str.split() with no argument splits on). */
static inline bool nmt_py_space(uint32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Length of s[0..n) without trailing Python whitespace (str.rstrip()). */
size_t nmt_py_rstrip(const char *s, size_t n);

/* out = str.lower() of s[0..n) (replaces out's content). NMT_OK or NMT_EIO. */
int nmt_py_lower(const char *s, size_t n, nmt_strbuf *out);

/* A slice of a buffer: one token. */
typedef struct {
  uint32_t off, len;
} nmt_span;

/* Split s[0..n) on Python whitespace (str.split()) into *count spans indexing
 * s. *toks grows as needed (capacity *cap). NMT_OK or NMT_EIO. */
int nmt_py_split(const char *s, size_t n, nmt_span **toks, size_t *cap, size_t *count);

#endif
