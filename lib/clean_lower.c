/* Perl's lc() through the tokenizer's tables (generated from perl 5.36), with
 * an ASCII fast path; one lowercaser for lowercase.perl and clean-corpus -lc. */
#include "clean_lower.h"
#include "err.h"
#include "tok_unicode.h"
#include "utf8.h"
#include <stdint.h>
#include <stdlib.h>

int nmt_lower_utf8(const char *s, size_t n, char **buf, size_t *cap, size_t *out_len) {
  tok_unicode_init();
  /* No mapping grows a character by more than half its bytes (U+0130: 2 -> 3). */
  size_t need = n + n / 2 + 1;
  if (need > *cap) {
    char *b = realloc(*buf, need);
    if (!b) return nmt_fail(NMT_EIO, "out of memory");
    *buf = b;
    *cap = need;
  }
  char *o = *buf;
  size_t i = 0;
  while (i < n) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) {
      *o++ = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
      i++;
      continue;
    }
    uint32_t cp, lc[2];
    int len = nmt_utf8_decode(s + i, n - i, &cp);
    if (!len) return nmt_fail(NMT_EINPUT, "invalid UTF-8 at byte %zu", i);
    i += (size_t)len;
    int k = tok_lc(cp, lc);
    for (int j = 0; j < k; j++) o += nmt_utf8_encode(lc[j], o);
  }
  *o = 0;
  *out_len = (size_t)(o - *buf);
  return NMT_OK;
}
