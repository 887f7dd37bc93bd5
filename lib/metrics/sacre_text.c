/* Python str semantics for sacreBLEU compatibility (see metrics/sacre_text.h). */
#include "metrics/sacre_text.h"
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>
#include "base/err.h"
#include "base/utf8.h"

size_t nmt_py_rstrip(const char *s, size_t n) {
  size_t end = n;
  while (end > 0) {
    unsigned char c = (unsigned char)s[end - 1];
    if (c < 0x80) {
      if (!nmt_py_space(c)) break;
      end--;
      continue;
    }
    size_t st = end - 1; /* back up to the lead byte */
    while (st > 0 && ((unsigned char)s[st] & 0xC0) == 0x80) st--;
    size_t j = st;
    if (!nmt_py_space(nmt_utf8_next(s, &j))) break;
    end = st;
  }
  return end;
}

/* The C.UTF-8 locale gives Unicode simple case mappings; Python adds a few
 * special ones handled below. */
static locale_t utf8_locale(void) {
  static locale_t loc;
  static int tried;
  if (!tried) {
    loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    tried = 1;
  }
  return loc;
}

static bool is_letter(uint32_t c, locale_t loc) {
  return c < 0x80 ? ((c | 32) >= 'a' && (c | 32) <= 'z') : loc && iswalpha_l((wint_t)c, loc);
}

int nmt_py_lower(const char *s, size_t n, nmt_strbuf *out) {
  out->len = 0;
  if (nmt_strbuf_reserve(out, n + 8)) return NMT_EIO;
  size_t i = 0;
  /* ASCII fast path until the first non-ASCII byte */
  while (i < n && (unsigned char)s[i] < 0x80) {
    char c = s[i++];
    out->s[out->len++] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
  }
  if (i == n) return NMT_OK;
  locale_t loc = utf8_locale();
  uint32_t prev = i ? (unsigned char)s[i - 1] : 0;
  while (i < n) {
    uint32_t c = nmt_utf8_next(s, &i), l;
    if (c < 0x80) l = (c >= 'A' && c <= 'Z') ? c + 32 : c;
    else if (c == 0x130) { /* İ lowers to i + combining dot above */
      if (nmt_strbuf_add(out, "i\xCC\x87", 3)) return NMT_EIO;
      prev = c;
      continue;
    } else if (c == 0x3A3) { /* Σ: final sigma at the end of a word */
      size_t j = i;
      uint32_t next = j < n ? nmt_utf8_next(s, &j) : 0;
      l = is_letter(prev, loc) && !is_letter(next, loc) ? 0x3C2 : 0x3C3;
    } else l = loc ? (uint32_t)towlower_l((wint_t)c, loc) : c;
    char enc[4];
    if (nmt_strbuf_add(out, enc, (size_t)nmt_utf8_encode(l, enc))) return NMT_EIO;
    prev = c;
  }
  return NMT_OK;
}

int nmt_py_split(const char *s, size_t n, nmt_span **toks, size_t *cap, size_t *count) {
  size_t k = 0, i = 0;
  while (i < n) {
    size_t st = i;
    uint32_t c = nmt_utf8_next(s, &i);
    if (nmt_py_space(c)) continue;
    size_t end = i;
    while (i < n) {
      size_t j = i;
      c = nmt_utf8_next(s, &j);
      if (nmt_py_space(c)) break;
      i = end = j;
    }
    if (k == *cap) {
      size_t ncap = *cap ? *cap * 2 : 64;
      nmt_span *t = realloc(*toks, sizeof *t * ncap);
      if (!t) return nmt_fail(NMT_EIO, "out of memory");
      *toks = t;
      *cap = ncap;
    }
    (*toks)[k].off = (uint32_t)st;
    (*toks)[k].len = (uint32_t)(end - st);
    k++;
  }
  *count = k;
  return NMT_OK;
}
