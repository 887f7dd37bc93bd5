#include "base/utf8.h"
#include "base/err.h"
#include <string.h>

int nmt_utf8_decode(const char *str, size_t n, uint32_t *cp) {
  const unsigned char *s = (const unsigned char *)str;
  if (n == 0) return 0;
  unsigned c = s[0];
  if (c < 0x80) { *cp = c; return 1; }
  int len;
  uint32_t v, min;
  if (c >= 0xC2 && c <= 0xDF) { len = 2; v = c & 0x1F; min = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { len = 3; v = c & 0x0F; min = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { len = 4; v = c & 0x07; min = 0x10000; }
  else return 0;
  if ((size_t)len > n) return 0;
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

size_t nmt_utf8_invalid(const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0;
  while (i < n) {
    /* ASCII fast path, 8 bytes at a time */
    while (i + 8 <= n) {
      uint64_t w;
      __builtin_memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    if (s[i] < 0x80) { i++; continue; }
    uint32_t cp;
    int len = nmt_utf8_decode(str + i, n - i, &cp);
    if (!len) return i;
    i += len;
  }
  return n;
}

int nmt_utf8_check_line(const char *line, size_t len, const char *name, long lineno) {
  size_t bad = nmt_utf8_invalid(line, len);
  if (bad < len) return nmt_fail(NMT_EINPUT, "%s:%ld: invalid UTF-8 at byte offset %zu", name, lineno, bad);
  return NMT_OK;
}

size_t nmt_utf8_copy(char *dst, size_t cap, const char *s, size_t n) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    int k = nmt_utf8_decode(s + i, n - i, &cp);
    const char *from = k ? s + i : "\xEF\xBF\xBD"; /* U+FFFD for a byte that starts no character */
    size_t len = k ? (size_t)k : 3;
    if (o + len >= cap) break;
    memcpy(dst + o, from, len);
    o += len, i += k ? (size_t)k : 1;
  }
  if (cap) dst[o] = '\0';
  return o;
}
