/* A growable byte string: append, then hand out s[0..len) (NUL-terminated).
 * Zero-initialise it ({0}); free(b.s) when done. */
#ifndef NMT_STRBUF_H
#define NMT_STRBUF_H
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *s;
  size_t len, cap;
} nmt_strbuf;

/* Room for `extra` more bytes plus the NUL. Returns 0, or -1 out of memory. */
static inline int nmt_strbuf_reserve(nmt_strbuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) return -1;
  b->s = s;
  b->cap = cap;
  return 0;
}

static inline int nmt_strbuf_add(nmt_strbuf *b, const void *p, size_t n) {
  if (nmt_strbuf_reserve(b, n)) return -1;
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = 0;
  return 0;
}

static inline int nmt_strbuf_addc(nmt_strbuf *b, char c) { return nmt_strbuf_add(b, &c, 1); }

#endif
