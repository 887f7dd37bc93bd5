/* detokenizer.perl (Moses): unescape, then join words deciding for each whether
 * it attaches to its left or right neighbour (punctuation, currency, quotes
 * counted per line, and the en/fr/it/cs/fi rules). */
#include "text/tok.h"
#include "text/tok_unicode.h"
#include <stdlib.h>

#define IS(c, cls) tok_is((c), (cls))

typedef struct { const uint32_t *p; size_t n; } word;

static bool is_cjk(uint32_t c) {
  if (c < 0x1100) return false; /* the common case, first */
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xA840 && c <= 0xA87F) || (c >= 0xAC00 && c <= 0xD7AF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF65 && c <= 0xFFDC) || (c >= 0x20000 && c <= 0x2FFFF);
}

/* The ASCII sets of the word rules. */
enum { OPEN = 1, CLOSE = 2, QUOTE = 4, FR_SPACED = 8 };
static const uint8_t ASCII_SET[128] = {
  ['('] = OPEN,  ['['] = OPEN,  ['{'] = OPEN,
  [','] = CLOSE, ['.'] = CLOSE, ['?'] = CLOSE | FR_SPACED, ['!'] = CLOSE | FR_SPACED,
  [':'] = CLOSE | FR_SPACED, [';'] = CLOSE | FR_SPACED, ['\\'] = CLOSE | FR_SPACED,
  ['%'] = CLOSE | FR_SPACED, ['}'] = CLOSE, [']'] = CLOSE, [')'] = CLOSE,
  ['\''] = QUOTE, ['"'] = QUOTE, ['`'] = QUOTE};

/* Is every character of w (at least one) in the ASCII set or, when sc, \p{Sc},
 * or in extra? */
static inline bool all_in(word w, int set, bool sc, const uint32_t *extra) {
  if (!w.n) return false;
  for (size_t i = 0; i < w.n; i++) {
    uint32_t c = w.p[i];
    bool ok = (c < 128 && (ASCII_SET[c] & set)) || (sc && IS(c, TOK_SC));
    for (const uint32_t *e = extra; !ok && c >= 128 && e && *e; e++) ok = c == *e; /* no ASCII */
    if (!ok) return false;
  }
  return true;
}


static bool all_digits(word w) {
  if (!w.n) return false;
  for (size_t i = 0; i < w.n; i++)
    if (w.p[i] < '0' || w.p[i] > '9') return false;
  return true;
}

static uint32_t lower_ascii(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* /^li$|^mail.*\/i */
static bool cs_dash_word(word w) {
  if (w.n == 2 && lower_ascii(w.p[0]) == 'l' && lower_ascii(w.p[1]) == 'i') return true;
  static const char mail[] = "mail";
  if (w.n < 4) return false;
  for (int i = 0; i < 4; i++)
    if (lower_ascii(w.p[i]) != (uint8_t)mail[i]) return false;
  return true;
}

/* Finnish case suffixes after "EU:": /^(case)(possessive)?(clitic)?$/ */
static bool has_prefix(const uint32_t *p, size_t n, const char *utf8, size_t *len) {
  uint32_t buf[8];
  tok_cps c = {buf, 0, 8};
  size_t k = 0;
  for (const unsigned char *s = (const unsigned char *)utf8; *s;) {
    int l = *s < 0x80 ? 1 : *s < 0xE0 ? 2 : 3;
    if (!tok_decode(&c, (const char *)s, (size_t)l)) return false;
    if (k >= n || p[k] != c.p[0]) return false;
    k++, s += l;
  }
  *len = k;
  return true;
}

static bool match_seq(const uint32_t *p, size_t n, const char *const *alts, int stage);
static const char *const fi_case[] = {
  "N", "n", "A", "a", "Ä", "ä", "ssa", "Ssa", "ssä", "Ssä", "sta", "stä", "Sta", "Stä", "hun",
  "Hun", "hyn", "Hyn", "han", "Han", "hän", "Hän", "hön", "Hön", "un", "Un", "yn", "Yn", "an",
  "An", "än", "Än", "ön", "Ön", "seen", "Seen", "lla", "Lla", "llä", "Llä", "lta", "Lta", "ltä",
  "Ltä", "lle", "Lle", "ksi", "Ksi", "kse", "Kse", "tta", "Tta", "ine", "Ine", NULL};
static const char *const fi_poss[] = {"ni", "si", "mme", "nne", "nsa", NULL};
static const char *const fi_clitic[] = {"ko", "kö", "han", "hän", "pa", "pä", "kaan", "kään", "kin", NULL};

/* stage 0: case (required), 1: possessive (optional), 2: clitic (optional), 3: end */
static bool match_seq(const uint32_t *p, size_t n, const char *const *alts, int stage) {
  if (stage == 3) return n == 0;
  const char *const *next = stage == 0 ? fi_poss : fi_clitic;
  if (stage > 0 && match_seq(p, n, next, stage + 1)) return true;
  for (const char *const *a = alts; *a; a++) {
    size_t len;
    if (has_prefix(p, n, *a, &len) && match_seq(p + len, n - len, next, stage + 1)) return true;
  }
  return false;
}

static bool fi_suffix(word w) { return match_seq(w.p, w.n, fi_case, 0); }

static void swap(tok_scratch *s, size_t n) {
  tok_cps t = s->a;
  s->a = s->b;
  s->b = t;
  s->a.n = n;
}

/* s/ \@\-\@ /-/g and de-escaping, on " $line " in s->a; `at` and `amp` say
 * whether the line has an '@' and an '&' (each pass needs one). */
static void unescape(tok_scratch *s, bool at, bool amp) {
  static const struct { const char *ent; uint32_t c; } ents[] = {
    {"&bar;", '|'}, {"&#124;", '|'}, {"&lt;", '<'},  {"&gt;", '>'},  {"&bra;", '['}, {"&ket;", ']'},
    {"&quot;", '"'}, {"&apos;", '\''}, {"&#91;", '['}, {"&#93;", ']'}, {"&amp;", '&'}};
  uint32_t *a = s->a.p, *o = s->b.p;
  size_t k = 0, n = s->a.n;
  for (size_t i = 0; at && i < n; i++) { /* " @-@ " matches do not overlap */
    if (a[i] == ' ' && i + 4 < n && a[i + 1] == '@' && a[i + 2] == '-' && a[i + 3] == '@' &&
        a[i + 4] == ' ') {
      o[k++] = '-';
      i += 4;
    } else {
      o[k++] = a[i];
    }
  }
  if (at) swap(s, k);
  if (!amp) return;
  a = s->a.p, n = s->a.n, k = 0, o = s->b.p;
  for (size_t i = 0; i < n; i++) { /* each entity's replacement cannot form another */
    if (a[i] == '&') {
      size_t e;
      for (e = 0; e < sizeof ents / sizeof ents[0]; e++) {
        size_t l = strlen(ents[e].ent), j;
        for (j = 0; j < l && i + j < n && a[i + j] == (uint8_t)ents[e].ent[j]; j++) {}
        if (j == l) break;
      }
      if (e < sizeof ents / sizeof ents[0]) {
        o[k++] = ents[e].c;
        i += strlen(ents[e].ent) - 1;
        continue;
      }
    }
    o[k++] = a[i];
  }
  swap(s, k);
}

static char *put_word(char *q, word w) {
  for (size_t i = 0; i < w.n; i++) q = nmt_utf8_put(q, w.p[i]);
  return q;
}

/* A space, unless at the start or after one (no UTF-8 sequence ends in 0x20). */
static char *put_space(char *q, const char *start) {
  if (q > start && q[-1] != ' ') *q++ = ' ';
  return q;
}

/* Quote counts are per distinct quote word, as in the script's hash. */
typedef struct { word w; long count; } quote_count;

static long *quote_slot(quote_count *q, int *nq, word w) {
  for (int i = 0; i < *nq; i++)
    if (q[i].w.n == w.n && !memcmp(q[i].w.p, w.p, w.n * sizeof *w.p)) return &q[i].count;
  if (*nq == 64) return &q[63].count; /* more distinct quote words than any sane line */
  q[*nq].w = w, q[*nq].count = 0;
  return &q[(*nq)++].count;
}

/* The line as it is written: UTF-8 straight into out's buffer, which has room for
 * 4 bytes a character and 2 spaces a word; s/ +/ /g and the trim happen as spaces are
 * written. */
typedef struct {
  char *q, *start;
  bool space; /* $prependSpace */
  bool en, fr, it, cs, fi;
  quote_count quotes[64];
  int nq;
} detok_out;

static void put(detok_out *o, word w) { o->q = put_word(o->q, w); }

/* The space before a word, when the last one asked for it ($prependSpace) */
static void space_before(detok_out *o) {
  if (o->space) o->q = put_space(o->q, o->start);
}

static const uint32_t open_extra[] = {0xBF, 0xA1, 0}; /* ¿ ¡ */
static const uint32_t quote_extra[] = {0x201E, 0x201C, 0};
static const uint32_t dquote_only[] = {0x201E, 0x201C, 0x201D, 0};

/* Decode " $line " into s->a; is the line all spaces? */
static bool decode_padded(tok_scratch *s, const char *line, size_t n) {
  size_t k = 0;
  bool blank = true;
  s->a.p[k++] = ' ';
  for (size_t i = 0; i < n;) {
    uint32_t c = nmt_utf8_next((const unsigned char *)line, &i);
    if (blank && !IS(c, TOK_SPACE)) blank = false;
    s->a.p[k++] = c;
  }
  s->a.p[k++] = ' ';
  s->a.n = k;
  return blank;
}

/* split / / of s->a into s->words: the leading empty field kept, trailing ones dropped;
 * the number of words, or -1 when out of memory. */
static long split_words(tok_scratch *s) {
  if (s->words_cap < s->a.n + 1) {
    void *p = realloc(s->words, (s->a.n + 1) * 2 * sizeof(word));
    if (!p) return -1;
    s->words = p, s->words_cap = (s->a.n + 1) * 2;
  }
  word *w = s->words;
  uint32_t *a = s->a.p;
  size_t from = 0, nw = 0;
  a[s->a.n] = ' '; /* a sentinel: there is room for " $line " and one more */
  for (size_t i = 0; i <= s->a.n; i++)
    if (a[i] == ' ') w[nw++] = (word){a + from, i - from}, from = i + 1;
  while (nw && !w[nw - 1].n) nw--;
  return (long)nw;
}

/* en: "it 's" -> "it's" */
static bool en_clitic(const detok_out *o, word cur, word prev, size_t i) {
  return o->en && i > 0 && cur.n >= 2 && cur.p[0] == '\'' && IS(cur.p[1], TOK_ALPHA) &&
         prev.n && IS(prev.p[prev.n - 1], TOK_ALNUM);
}

/* cs: "1 , 5" -> "1,5" */
static bool cs_decimal(const detok_out *o, const word *w, size_t i) {
  return o->cs && i > 1 && all_digits(w[i - 2]) && w[i - 1].n == 1 &&
         (w[i - 1].p[0] == '.' || w[i - 1].p[0] == ',') && all_digits(w[i]);
}

/* fr, it: "l' amour" -> "l'amour" */
static bool elision(const detok_out *o, const word *w, size_t nw, size_t i) {
  word cur = w[i];
  return (o->fr || o->it) && i + 2 <= nw && cur.n >= 2 && cur.p[cur.n - 1] == '\'' &&
         IS(cur.p[cur.n - 2], TOK_ALPHA) && w[i + 1].n && IS(w[i + 1].p[0], TOK_ALPHA);
}

/* cs: "e - mail" -> "e-mail", "chce - li" -> "chce-li" */
static bool cs_dash(const detok_out *o, const word *w, size_t nw, size_t i) {
  word cur = w[i];
  return o->cs && i + 3 < nw && cur.n && IS(cur.p[cur.n - 1], TOK_ALPHA) && w[i + 1].n == 1 &&
         (w[i + 1].p[0] == '-' || w[i + 1].p[0] == 0x2013) && cs_dash_word(w[i + 2]);
}

/* A quote word: it opens (attaches right) or closes (attaches left) by how many of
 * its kind came before on the line. */
static void put_quote(detok_out *o, word cur, word prev, size_t i) {
  word key = cur;
  static const uint32_t dq = '"';
  if (all_in(cur, 0, false, dquote_only)) key = (word){&dq, 1};
  long *count = quote_slot(o->quotes, &o->nq, key);
  if (o->cs && cur.n == 1 && cur.p[0] == 0x201E) *count = 0; /* Czech opening „ */
  if (o->cs && cur.n == 1 && cur.p[0] == 0x201C) *count = 1; /* Czech closing “ */
  if (*count % 2 == 0) {
    if (o->en && cur.n == 1 && cur.p[0] == '\'' && i > 0 && prev.n && prev.p[prev.n - 1] == 's') {
      put(o, cur); /* "The Jones' house" */
      o->space = true;
    } else {
      space_before(o), put(o, cur);
      o->space = false;
      ++*count;
    }
  } else {
    put(o, cur);
    o->space = true;
    ++*count;
  }
}

/* lc: the Finnish suffixes are all single-mapping letters */
static void put_lower(detok_out *o, word w) {
  for (size_t j = 0; j < w.n; j++) {
    uint32_t lc[2];
    tok_lc(w.p[j], lc);
    o->q = nmt_utf8_put(o->q, lc[0]);
  }
}

/* Word i of w[0, nw), with the space before it or none; the number of words it took
 * (2: a Czech word and its dash). */
static size_t place_word(detok_out *o, const word *w, size_t nw, size_t i) {
  word cur = w[i], prev = i ? w[i - 1] : w[nw - 1]; /* $words[-1] is the last */
  if (cur.n && is_cjk(cur.p[0])) {
    if (!(i > 0 && prev.n && is_cjk(prev.p[prev.n - 1]))) space_before(o);
    put(o, cur);
    o->space = true;
  } else if (all_in(cur, OPEN, true, open_extra)) {
    space_before(o), put(o, cur);
    o->space = false;
  } else if (all_in(cur, CLOSE, false, NULL)) {
    if (o->fr && cur.n == 1 && (ASCII_SET[cur.p[0]] & FR_SPACED)) o->q = put_space(o->q, o->start);
    put(o, cur);
    o->space = true;
  } else if (en_clitic(o, cur, prev, i) || cs_decimal(o, w, i)) {
    put(o, cur);
    o->space = true;
  } else if (elision(o, w, nw, i)) {
    space_before(o), put(o, cur);
    o->space = false;
  } else if (cs_dash(o, w, nw, i)) {
    space_before(o), put(o, cur), put(o, w[i + 1]);
    o->space = false;
    return 2;
  } else if (all_in(cur, QUOTE, false, quote_extra)) {
    put_quote(o, cur, prev, i);
  } else if (o->fi && prev.n && prev.p[prev.n - 1] == ':' && fi_suffix(cur)) {
    put_lower(o, cur);
    o->space = true;
  } else {
    space_before(o), put(o, cur);
    o->space = true;
  }
  return 1;
}

bool tok_detokenize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n,
                    nmt_strbuf *out) {
  if (!tok_cps_reserve(&s->a, n + 3) || !tok_cps_reserve(&s->b, n + 3)) return false;
  bool blank = decode_padded(s, line, n);
  bool tag = n >= 3 && line[0] == '<' && line[n - 1] == '>' && !memchr(line, '\n', n);
  if (blank || tag) return tok_put(out, line, n) && tok_put(out, "\n", 1);
  unescape(s, memchr(line, '@', n), memchr(line, '&', n));
  long nw = split_words(s);
  if (nw < 0) return false;

  const char *L = cfg->lang;
  detok_out o = {.space = true, .en = !strcmp(L, "en"), .fr = !strcmp(L, "fr"),
                 .it = !strcmp(L, "it"), .cs = !strcmp(L, "cs"), .fi = !strcmp(L, "fi")};
  if (nmt_strbuf_reserve(out, 6 * s->a.n + 8)) return false;
  o.q = o.start = out->s + out->len;
  for (size_t i = 0; i < (size_t)nw;) i += place_word(&o, s->words, (size_t)nw, i);
  if (o.q > o.start && o.q[-1] == ' ') o.q--;
  *o.q++ = '\n';
  out->len = (size_t)(o.q - out->s);
  return true;
}
