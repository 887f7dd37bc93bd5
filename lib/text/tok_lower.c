/* Perl's lc() on each character: lowercase.perl, and clean-corpus-n.perl -lc. */
#include "text/tok.h"
#include "text/tok_unicode.h"

size_t tok_lower_into(char *dst, const char *line, size_t n) {
  tok_unicode_init();
  char *q = dst;
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)line[i];
    if (c < 0x80) { /* ASCII without decoding */
      *q++ = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
      i++;
      continue;
    }
    uint32_t lc[2];
    int k = tok_lc(nmt_utf8_next(line, &i), lc);
    for (int j = 0; j < k; j++) q = nmt_utf8_put(q, lc[j]);
  }
  return (size_t)(q - dst);
}

bool tok_lowercase(tok_scratch *s, const char *line, size_t n, nmt_strbuf *out) {
  if (nmt_strbuf_reserve(out, TOK_LOWER_ROOM(n) + 1)) return false;
  out->len += tok_lower_into(out->s + out->len, line, n);
  return tok_put(out, "\n", 1);
}
