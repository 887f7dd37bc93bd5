/* The bits of Python's str that sacreBLEU's results depend on: which code points
 * are whitespace for str.split()/str.rstrip(), and str.lower(). Inputs are valid
 * UTF-8 (tools validate lines before scoring). */
#ifndef NMT_SACRE_TEXT_H
#define NMT_SACRE_TEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/err.h"
#include "base/utf8.h"

/* A growable byte buffer reused across lines. The functions that grow it
 * return NMT_OK, or NMT_EIO "out of memory" (nmt_fail) leaving it unchanged. */
typedef struct {
  char *p;
  size_t n, cap;
} nmt_buf;

/* Room for `extra` more bytes plus one. */
int nmt_buf_reserve(nmt_buf *b, size_t extra);
static inline int nmt_buf_put(nmt_buf *b, char c) {
  if (b->n + 1 >= b->cap && nmt_buf_reserve(b, 1)) return NMT_EIO;
  b->p[b->n++] = c;
  return NMT_OK;
}
int nmt_buf_add(nmt_buf *b, const char *s, size_t n);
void nmt_buf_free(nmt_buf *b);

/* Python's str.isspace() set (what str.split() with no argument splits on). */
static inline bool nmt_py_space(uint32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Length of s[0..n) without trailing Python whitespace (str.rstrip()). */
size_t nmt_py_rstrip(const char *s, size_t n);

/* out = str.lower() of s[0..n) (replaces out's content). NMT_OK or NMT_EIO. */
int nmt_py_lower(const char *s, size_t n, nmt_buf *out);

/* A slice of a buffer: one token. */
typedef struct {
  uint32_t off, len;
} nmt_span;

/* Split s[0..n) on Python whitespace (str.split()) into *count spans indexing
 * s. *toks grows as needed (capacity *cap). NMT_OK or NMT_EIO. */
int nmt_py_split(const char *s, size_t n, nmt_span **toks, size_t *cap, size_t *count);

#endif
