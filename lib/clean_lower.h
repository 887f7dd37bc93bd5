/* Lowercasing as Perl's lc() does on character strings (what Moses'
 * clean-corpus-n.perl -lc applies): Unicode simple lowercase mappings plus
 * the one unconditional special case, U+0130 -> "i" U+0307. */
#ifndef NMT_CLEAN_LOWER_H
#define NMT_CLEAN_LOWER_H
#include <stddef.h>

/* Lowercase valid UTF-8 s[0..n) into *buf (grown as needed, capacity *cap),
 * NUL-terminated; *out_len gets its length. Returns NMT_OK, NMT_EINPUT for
 * invalid UTF-8, or NMT_EIO when out of memory. */
int nmt_lower_utf8(const char *s, size_t n, char **buf, size_t *cap, size_t *out_len);

#endif
