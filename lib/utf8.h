/* UTF-8 validation and decoding (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
#ifndef NMT_UTF8_H
#define NMT_UTF8_H
#include <stddef.h>
#include <stdint.h>

/* Byte offset of the first invalid sequence in s[0..n), or n if all valid. */
size_t nmt_utf8_invalid(const char *s, size_t n);
/* Decode one code point at s (n bytes left). Returns its length (1-4), or 0 if invalid. */
int nmt_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* NMT_OK, or NMT_EINPUT with "name:lineno: invalid UTF-8 at byte offset N". */
int nmt_utf8_check_line(const char *line, size_t len, const char *name, long lineno);
/* Encode cp into out (>= 4 bytes). Returns its length. */
int nmt_utf8_encode(uint32_t cp, char *out);

#endif
