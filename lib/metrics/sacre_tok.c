/* sacreBLEU tokenizers. The regex passes of 13a and tercom are written out as
 * byte loops that behave like Python's re.sub (left to right, non-overlapping);
 * every character they test is ASCII, so working on UTF-8 bytes gives the same
 * result as working on code points. intl needs Unicode categories: PCRE2. */
#include "metrics/sacre_tok.h"
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"

enum { TOK_13A, TOK_INTL, TOK_NONE, TOK_CHAR };

struct nmt_tokenizer {
  int kind;
  nmt_strbuf a, b;
  pcre2_code *re[3];
  pcre2_match_data *md;
};

static const char *const intl_pat[3] = {"(\\P{N})(\\p{P})", "(\\p{P})(\\P{N})", "(\\p{S})"};
static const char *const intl_rep[3] = {"$1 $2 ", " $1 $2", " $1 "};

int nmt_tokenizer_new(nmt_tokenizer **out, const char *name) {
  static const char *const names[] = {"13a", "intl", "none", "char"};
  int kind = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(name, names[i])) kind = i;
  if (kind < 0) return nmt_fail(NMT_EUSAGE, "unknown tokenizer '%s' (13a, intl, none, char)", name);
  nmt_tokenizer *t = calloc(1, sizeof *t);
  if (!t) return nmt_fail(NMT_EIO, "out of memory");
  t->kind = kind;
  if (kind == TOK_INTL) {
    for (int i = 0; i < 3; i++) {
      int err;
      PCRE2_SIZE off;
      t->re[i] = pcre2_compile((PCRE2_SPTR)intl_pat[i], PCRE2_ZERO_TERMINATED,
                               PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &err, &off, NULL);
      if (!t->re[i]) { nmt_tokenizer_free(t); return nmt_fail(NMT_EIO, "intl: regex compile failed"); }
    }
    t->md = pcre2_match_data_create(4, NULL);
    if (!t->md) { nmt_tokenizer_free(t); return nmt_fail(NMT_EIO, "out of memory"); }
  }
  *out = t;
  return NMT_OK;
}

const char *nmt_tokenizer_name(const nmt_tokenizer *t) {
  static const char *const names[] = {"13a", "intl", "none", "char"};
  return names[t->kind];
}

void nmt_tokenizer_free(nmt_tokenizer *t) {
  if (!t) return;
  for (int i = 0; i < 3; i++) pcre2_code_free(t->re[i]);
  pcre2_match_data_free(t->md);
  nmt_strbuf_free(&t->a);
  nmt_strbuf_free(&t->b);
  free(t);
}

static inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* mteval's punctuation class [{-~[-` -&(-+:-@/] */
static inline bool is_13a_punct(unsigned char c) {
  return (c >= 0x7B && c <= 0x7E) || (c >= 0x5B && c <= 0x60) || (c >= 0x20 && c <= 0x26) ||
         (c >= 0x28 && c <= 0x2B) || (c >= 0x3A && c <= 0x40) || c == '/';
}

/* Every function that writes a buffer returns NMT_OK or NMT_EIO (out of memory). */

/* out = in with every occurrence of `from` replaced by `to` (str.replace). */
static int replace_all(const nmt_strbuf *in, const char *from, const char *to, nmt_strbuf *out) {
  size_t fl = strlen(from), tl = strlen(to), i = 0;
  out->len = 0;
  if (nmt_strbuf_reserve(out, in->len)) return NMT_EIO;
  while (i < in->len) {
    const char *hit = memmem(in->s + i, in->len - i, from, fl);
    size_t end = hit ? (size_t)(hit - in->s) : in->len;
    if (nmt_strbuf_add(out, in->s + i, end - i)) return NMT_EIO;
    if (!hit) break;
    if (nmt_strbuf_add(out, to, tl)) return NMT_EIO;
    i = end + fl;
  }
  return NMT_OK;
}

static void swap(nmt_strbuf *a, nmt_strbuf *b) { nmt_strbuf t = *a; *a = *b; *b = t; }

/* The punctuation passes shared by 13a and tercom's western normalisation,
 * applied to a (result in a; b is scratch). */
static int punct_pass(nmt_strbuf *a, nmt_strbuf *b) {
  b->len = 0; /* ([{-~[-` -&(-+:-@/]) -> " \1 " */
  if (nmt_strbuf_reserve(b, a->len * 3)) return NMT_EIO;
  for (size_t i = 0; i < a->len; i++) {
    unsigned char c = (unsigned char)a->s[i];
    if (is_13a_punct(c)) { b->s[b->len++] = ' '; b->s[b->len++] = c; b->s[b->len++] = ' '; }
    else b->s[b->len++] = c;
  }
  swap(a, b);
  return NMT_OK;
}

static int number_passes(nmt_strbuf *a, nmt_strbuf *b) {
  size_t i;
  b->len = 0; /* ([^0-9])([\.,]) -> "\1 \2 " */
  if (nmt_strbuf_reserve(b, a->len * 2)) return NMT_EIO;
  for (i = 0; i < a->len;) {
    unsigned char c = (unsigned char)a->s[i];
    if (i + 1 < a->len && !is_digit(c) && (a->s[i + 1] == '.' || a->s[i + 1] == ',')) {
      b->s[b->len++] = c; b->s[b->len++] = ' '; b->s[b->len++] = a->s[i + 1]; b->s[b->len++] = ' ';
      i += 2;
    } else b->s[b->len++] = a->s[i++];
  }
  swap(a, b);
  b->len = 0; /* ([\.,])([^0-9]) -> " \1 \2" */
  if (nmt_strbuf_reserve(b, a->len * 2)) return NMT_EIO;
  for (i = 0; i < a->len;) {
    char c = a->s[i];
    if (i + 1 < a->len && (c == '.' || c == ',') && !is_digit((unsigned char)a->s[i + 1])) {
      b->s[b->len++] = ' '; b->s[b->len++] = c; b->s[b->len++] = ' '; b->s[b->len++] = a->s[i + 1];
      i += 2;
    } else b->s[b->len++] = a->s[i++];
  }
  swap(a, b);
  b->len = 0; /* ([0-9])(-) -> "\1 \2 " */
  if (nmt_strbuf_reserve(b, a->len * 2)) return NMT_EIO;
  for (i = 0; i < a->len;) {
    unsigned char c = (unsigned char)a->s[i];
    if (i + 1 < a->len && is_digit(c) && a->s[i + 1] == '-') {
      b->s[b->len++] = c; b->s[b->len++] = ' '; b->s[b->len++] = '-'; b->s[b->len++] = ' ';
      i += 2;
    } else b->s[b->len++] = a->s[i++];
  }
  swap(a, b);
  return NMT_OK;
}

/* XML entities mteval unescapes (not &apos;), in sacreBLEU's order. */
static int unescape(nmt_strbuf *a, nmt_strbuf *b) {
  static const char *const ent[4][2] = {{"&quot;", "\""}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}};
  for (int k = 0; k < 4; k++) {
    if (!memchr(a->s, '&', a->len)) return NMT_OK;
    if (replace_all(a, ent[k][0], ent[k][1], b)) return NMT_EIO;
    swap(a, b);
  }
  return NMT_OK;
}

static int tok_13a(nmt_tokenizer *t, const char *s, size_t n, nmt_strbuf *out) {
  nmt_strbuf *a = &t->a, *b = &t->b;
  a->len = 0;
  if (nmt_strbuf_addc(a, ' ') || nmt_strbuf_add(a, s, n)) return NMT_EIO;
  if (memmem(a->s, a->len, "<skipped>", 9)) {
    if (replace_all(a, "<skipped>", "", b)) return NMT_EIO;
    swap(a, b);
  }
  if (unescape(a, b) || nmt_strbuf_addc(a, ' ') || punct_pass(a, b) || number_passes(a, b)) return NMT_EIO;
  out->len = 0;
  return nmt_strbuf_add(out, a->s, a->len);
}

static int tok_intl(nmt_tokenizer *t, const char *s, size_t n, nmt_strbuf *out) {
  nmt_strbuf *a = &t->a, *b = &t->b;
  a->len = 0;
  if (nmt_strbuf_add(a, s, n)) return NMT_EIO;
  for (int k = 0; k < 3; k++) {
    for (;;) {
      if (nmt_strbuf_reserve(b, a->len * 3 + 16)) return NMT_EIO;
      PCRE2_SIZE len = b->cap;
      int rc = pcre2_substitute(t->re[k], (PCRE2_SPTR)a->s, a->len, 0,
                                PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH | PCRE2_NO_UTF_CHECK,
                                t->md, NULL, (PCRE2_SPTR)intl_rep[k], PCRE2_ZERO_TERMINATED,
                                (PCRE2_UCHAR *)b->s, &len);
      if (rc == PCRE2_ERROR_NOMEMORY) {
        b->len = 0;
        if (nmt_strbuf_reserve(b, len)) return NMT_EIO;
        continue;
      }
      b->len = rc >= 0 ? len : 0;
      break;
    }
    swap(a, b);
  }
  out->len = 0;
  return nmt_strbuf_add(out, a->s, a->len);
}

static int tok_char(const char *s, size_t n, nmt_strbuf *out) {
  out->len = 0;
  if (nmt_strbuf_reserve(out, n * 2)) return NMT_EIO;
  for (size_t i = 0; i < n;) {
    size_t st = i;
    nmt_utf8_next(s, &i);
    if (nmt_strbuf_add(out, s + st, i - st) || nmt_strbuf_addc(out, ' ')) return NMT_EIO;
  }
  return NMT_OK;
}

int nmt_tokenize(nmt_tokenizer *t, const char *s, size_t n, nmt_strbuf *out) {
  switch (t->kind) {
  case TOK_13A: return tok_13a(t, s, n, out);
  case TOK_INTL: return tok_intl(t, s, n, out);
  case TOK_CHAR: return tok_char(s, n, out);
  default: out->len = 0; return nmt_strbuf_add(out, s, n);
  }
}

/* Tercom's CJK handling: code points split off as words, and punctuation. */
static bool is_cjk(uint32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x31C0 && c <= 0x31EF) || (c >= 0x2E80 && c <= 0x2EFF) ||
         (c >= 0x3300 && c <= 0x33FF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0x3200 && c <= 0x3F22);
}
static bool is_asian_punct(uint32_t c) {
  return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) || (c >= 0x3014 && c <= 0x301F) ||
         (c >= 0xFF61 && c <= 0xFF65) || c == 0x30FB || c == 0xFF0E || c == 0xFF0C || c == 0xFF1F ||
         c == 0xFF1A || c == 0xFF1B || c == 0xFF01 || c == 0xFF02 || c == 0xFF08 || c == 0xFF09;
}

int nmt_tercom_tokenize(const nmt_tercom_opts *o, const char *s, size_t n, nmt_strbuf *out,
                        nmt_strbuf *tmp) {
  nmt_strbuf *a = out, *b = tmp;
  if (o->case_sensitive) { a->len = 0; if (nmt_strbuf_add(a, s, n)) return NMT_EIO; }
  else if (nmt_py_lower(s, n, a)) return NMT_EIO;
  if (!n) return NMT_OK;
  if (o->normalized) {
    b->len = 0;
    if (nmt_strbuf_addc(b, ' ') || nmt_strbuf_add(b, a->s, a->len) || nmt_strbuf_addc(b, ' ')) return NMT_EIO;
    swap(a, b);
    /* possessives ('s$ cannot match after padding) */
    if (punct_pass(a, b) || replace_all(a, "'s ", " 's ", b)) return NMT_EIO;
    swap(a, b);
    if (number_passes(a, b)) return NMT_EIO;
    if (o->asian_support) {
      b->len = 0;
      for (size_t i = 0; i < a->len;) {
        size_t st = i;
        uint32_t c = nmt_utf8_next(a->s, &i);
        bool pad = is_cjk(c) || is_asian_punct(c);
        if ((pad && nmt_strbuf_addc(b, ' ')) || nmt_strbuf_add(b, a->s + st, i - st) || (pad && nmt_strbuf_addc(b, ' ')))
          return NMT_EIO;
      }
      swap(a, b);
    }
  }
  if (o->no_punct) {
    b->len = 0;
    for (size_t i = 0; i < a->len;) {
      size_t st = i;
      uint32_t c = nmt_utf8_next(a->s, &i);
      bool drop = c < 0x80 ? c && strchr(".,?:;!\"()", (int)c) : o->asian_support && is_asian_punct(c);
      if (drop) continue;
      if (nmt_strbuf_add(b, a->s + st, i - st)) return NMT_EIO;
    }
    swap(a, b);
  }
  return NMT_OK;
}
