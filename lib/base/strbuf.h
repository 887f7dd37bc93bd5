/* A growable byte string: append, then hand out s[0..len) (NUL-terminated).
 * Zero-initialise it ({0}); nmt_strbuf_free (or free(b.s)) when done. The
 * functions that grow it return NMT_OK, or NMT_EIO "out of memory" (nmt_fail)
 * leaving it as it was. */
#ifndef NMT_BASE_STRBUF_H
#define NMT_BASE_STRBUF_H
#include "base/err.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *s;
  size_t len, cap;
} nmt_strbuf;

/* Room for `extra` more bytes plus the NUL. */
static inline int nmt_strbuf_reserve(nmt_strbuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return NMT_OK;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *s = (char *)realloc(b->s, cap); /* (a cast: the SentencePiece shim is C++) */
  if (!s) return nmt_fail(NMT_EIO, "out of memory");
  b->s = s;
  b->cap = cap;
  return NMT_OK;
}

static inline int nmt_strbuf_add(nmt_strbuf *b, const void *p, size_t n) {
  if (nmt_strbuf_reserve(b, n)) return NMT_EIO;
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = 0;
  return NMT_OK;
}

static inline int nmt_strbuf_addc(nmt_strbuf *b, char c) {
  if (b->len + 2 > b->cap && nmt_strbuf_reserve(b, 1)) return NMT_EIO;
  b->s[b->len++] = c;
  b->s[b->len] = 0;
  return NMT_OK;
}

/* printf onto the end. */
static inline int nmt_strbuf_addf(nmt_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int nmt_strbuf_addf(nmt_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || nmt_strbuf_reserve(b, (size_t)n)) return nmt_fail(NMT_EIO, "out of memory");
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return NMT_OK;
}

static inline void nmt_strbuf_free(nmt_strbuf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

#endif
