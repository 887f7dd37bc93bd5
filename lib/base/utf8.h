/* UTF-8 validation and decoding (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
#ifndef NMT_BASE_UTF8_H
#define NMT_BASE_UTF8_H
#include <stddef.h>
#include <stdint.h>

/* Byte offset of the first invalid sequence in s[0..n), or n if all valid. */
size_t nmt_utf8_invalid(const char *s, size_t n);
/* Decode one code point at s (n bytes left). Returns its length (1-4), or 0 if invalid. */
int nmt_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* s[0..n) into dst as valid UTF-8 (U+FFFD for each byte that starts no character), cut
 * on a character's boundary to fit cap bytes with its NUL: its length. For messages that
 * echo a peer's bytes and must stay valid (JSON, a websocket close reason). */
size_t nmt_utf8_copy(char *dst, size_t cap, const char *s, size_t n);
/* NMT_OK, or NMT_EINPUT with "name:lineno: invalid UTF-8 at byte offset N". */
int nmt_utf8_check_line(const char *line, size_t len, const char *name, long lineno);
/* The code point of valid (already checked) UTF-8 at s[*i]; moves *i past it.
 * The hot-path decoder of the tokenizer and the metrics. */
static inline uint32_t nmt_utf8_next(const void *str, size_t *i) {
  const unsigned char *b = (const unsigned char *)str + *i;
  uint32_t c = b[0];
  if (c < 0x80) return *i += 1, c;
  if (c < 0xE0) return *i += 2, (c & 0x1F) << 6 | (b[1] & 0x3F);
  if (c < 0xF0) return *i += 3, (c & 0x0F) << 12 | (b[1] & 0x3F) << 6 | (b[2] & 0x3F);
  *i += 4;
  return (c & 0x07) << 18 | (b[1] & 0x3F) << 12 | (b[2] & 0x3F) << 6 | (b[3] & 0x3F);
}
/* Writes cp at q as UTF-8 (room for 4 bytes); returns the new end. */
static inline char *nmt_utf8_put(char *q, uint32_t c) {
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
/* Encode cp into out (>= 4 bytes). Returns its length. */
static inline int nmt_utf8_encode(uint32_t cp, char *out) { return (int)(nmt_utf8_put(out, cp) - out); }

#endif
