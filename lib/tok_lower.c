/* lowercase.perl: Perl's lc() on each character. */
#include "tok.h"
#include "tok_unicode.h"

bool tok_lowercase(tok_scratch *s, const char *line, size_t n, tok_str *out) {
  tok_unicode_init();
  if (!tok_str_reserve(out, out->n + 2 * n + 1)) return false;
  size_t i = 0;
  while (i < n) { /* ASCII runs without decoding */
    size_t j = i;
    while (j < n && (unsigned char)line[j] < 0x80) {
      char c = line[j++];
      out->p[out->n++] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
    }
    if (j == n) break;
    size_t e = j + 1;
    while (e < n && ((unsigned char)line[e] & 0xC0) == 0x80) e++;
    if (!tok_decode(&s->a, line + j, e - j)) return false;
    uint32_t lc[2];
    int k = tok_lc(s->a.p[0], lc);
    if (!tok_encode(out, lc, (size_t)k)) return false;
    i = e;
  }
  return tok_put(out, "\n", 1);
}
