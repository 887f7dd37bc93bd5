/* tokenizer.perl (Moses) as passes over code points. Each pass is one of the
 * script's substitutions, scanned left to right with the same match-and-skip
 * behaviour as Perl's s///g, so overlapping cases come out the same. */
#include "text/tok.h"
#include "text/tok_unicode.h"

/* A run of two or more periods stands for Moses' DOTMULTI placeholders: it is
 * a word of its own, not a period and not lowercase, restored on output. */
enum { DOT_RUN = 1 };

#define IS(c, cls) tok_is((c), (cls))

static bool is_lang(const tok_config *cfg, const char *l) { return !strcmp(cfg->lang, l); }

/* Swap so that s->a holds the pass output and s->b is free again. */
static void done(tok_scratch *s, size_t n) {
  tok_cps t = s->a;
  s->a = s->b;
  s->b = t;
  s->a.n = n;
}

/* Flags of what a line contains, so passes with nothing to do are skipped. */
enum { HAS_SPECIAL = 1, HAS_HYPHEN = 2, HAS_DOTS = 4, HAS_COMMA = 8, HAS_APOS = 16 };

/* The pass a kept character that is not alphanumeric calls for. */
static int has_flag(uint32_t c) {
  switch (c) {
  case ' ': case '.': case '`': return 0;
  case '-': return HAS_HYPHEN;
  case ',': return HAS_COMMA;
  case '\'': return HAS_APOS;
  }
  return HAS_SPECIAL;
}

/* Decodes the line into s->a while doing " $text ", whitespace runs to one
 * space, [\000-\037] removed, trimmed, all in one pass.
 * Returns the HAS_* flags of the result, or -1 when the line is all \s. */
static int clean_space(tok_scratch *s, const char *line, size_t n) {
  const unsigned char *b = (const unsigned char *)line;
  uint32_t *o = s->a.p;
  size_t k = 0;
  bool space = true, control = false; /* space: drops leading spaces */
  int has = 0;
  for (size_t i = 0; i < n;) {
    uint32_t c = nmt_utf8_next(b, &i);
    int f = tok_flags(c);
    if (!(f & (TOK_ALNUM | TOK_SPACE))) {
      if (c < 32) {
        control = true;
        continue;
      }
      has |= c == '.' && k && o[k - 1] == '.' ? HAS_DOTS : has_flag(c);
    } else if (f & TOK_SPACE) {
      if (!space) o[k++] = ' ', space = true;
      continue;
    }
    o[k++] = c, space = false;
  }
  if (!k && !control) return -1;
  if (k && o[k - 1] == ' ') k--;
  s->a.n = k;
  return has;
}

/* s/([^\p{IsAlnum}\s\.\'\`\,\-])/ $1 /g, with fi/sv keeping ':' and ca '·'. */
static void split_specials(const tok_config *cfg, tok_scratch *s) {
  uint32_t keep = 0;
  if (is_lang(cfg, "fi") || is_lang(cfg, "sv")) keep = ':';
  else if (is_lang(cfg, "ca")) keep = 0xB7;
  uint32_t *a = s->a.p, *o = s->b.p;
  size_t k = 0;
  for (size_t i = 0; i < s->a.n; i++) {
    uint32_t c = a[i];
    if (c == ' ' || c == '.' || c == '\'' || c == '`' || c == ',' || c == '-' || c == keep ||
        IS(c, TOK_ALNUM))
      o[k++] = c;
    else
      o[k++] = ' ', o[k++] = c, o[k++] = ' ';
  }
  done(s, k);
}

/* s/(X)(?=$|[^\p{Ll}])/ $1 /g: fi/sv ':', ca '·', tdt '\'' inside words only
 * before a lowercase letter. */
static void split_unless_lower(tok_scratch *s, uint32_t x) {
  uint32_t *a = s->a.p, *o = s->b.p;
  size_t k = 0, n = s->a.n;
  for (size_t i = 0; i < n; i++) {
    if (a[i] == x && (i + 1 == n || !IS(a[i + 1], TOK_LL))) o[k++] = ' ', o[k++] = x, o[k++] = ' ';
    else o[k++] = a[i];
  }
  done(s, k);
}

/* s/([\p{IsAlnum}])\-(?=[\p{IsAlnum}])/$1 \@-\@ /g */
static void split_hyphens(tok_scratch *s) {
  uint32_t *a = s->a.p, *o = s->b.p;
  size_t k = 0, n = s->a.n;
  for (size_t i = 0; i < n; i++) {
    if (a[i] == '-' && i > 0 && i + 1 < n && IS(a[i - 1], TOK_ALNUM) && IS(a[i + 1], TOK_ALNUM)) {
      static const uint32_t rep[] = {' ', '@', '-', '@', ' '};
      memcpy(o + k, rep, sizeof rep);
      k += 5;
    } else {
      o[k++] = a[i];
    }
  }
  done(s, k);
}

/* The DOTMULTI dance: ".." and longer become a word of their own, with a space
 * after it when anything follows. */
static void mark_dot_runs(tok_scratch *s) {
  uint32_t *a = s->a.p, *o = s->b.p;
  size_t k = 0, n = s->a.n;
  for (size_t i = 0; i < n;) {
    if (a[i] == '.' && i + 1 < n && a[i + 1] == '.') {
      o[k++] = ' ';
      while (i < n && a[i] == '.') o[k++] = DOT_RUN, i++;
      if (i < n) o[k++] = ' ';
    } else {
      o[k++] = a[i++];
    }
  }
  done(s, k);
}

/* s/([^\p{IsN}])[,]/$1 , /g; s/[,]([^\p{IsN}])/ , $1/g; s/([\p{IsN}])[,]$/$1 ,/g */
static void split_commas(tok_scratch *s) {
  uint32_t *a = s->a.p, *o = s->b.p;
  size_t k = 0, n = s->a.n;
  for (size_t i = 0; i < n; i++) { /* before: a match consumes the character before */
    if (i + 1 < n && a[i + 1] == ',' && !IS(a[i], TOK_NUM)) {
      o[k++] = a[i], o[k++] = ' ', o[k++] = ',', o[k++] = ' ';
      i++;
    } else {
      o[k++] = a[i];
    }
  }
  done(s, k);
  a = s->a.p, o = s->b.p, k = 0, n = s->a.n;
  for (size_t i = 0; i < n; i++) { /* after: a match consumes the character after */
    if (a[i] == ',' && i + 1 < n && !IS(a[i + 1], TOK_NUM)) {
      o[k++] = ' ', o[k++] = ',', o[k++] = ' ', o[k++] = a[i + 1];
      i++;
    } else {
      o[k++] = a[i];
    }
  }
  if (k >= 2 && o[k - 1] == ',' && IS(o[k - 2], TOK_NUM)) o[k - 1] = ' ', o[k++] = ',';
  done(s, k);
}

/* One apostrophe rule: s/(A)[']B/$1<mid>$2/g where A and B are classes given as
 * (flags, negate) and mid is " ' ", " '" or "' ". */
typedef struct { int cls; bool neg; } cclass;
static bool in_class(uint32_t c, cclass k) { return IS(c, k.cls) != k.neg; }

static void apostrophe_rule(tok_scratch *s, cclass before, cclass after, const char *mid) {
  uint32_t *a = s->a.p, *o = s->b.p;
  size_t k = 0, n = s->a.n;
  for (size_t i = 0; i < n; i++) {
    if (i + 2 < n && a[i + 1] == '\'' && in_class(a[i], before) && in_class(a[i + 2], after)) {
      o[k++] = a[i];
      for (const char *m = mid; *m; m++) o[k++] = (uint8_t)*m;
      o[k++] = a[i + 2];
      i += 2;
    } else {
      o[k++] = a[i];
    }
  }
  done(s, k);
}

static void split_apostrophes(const tok_config *cfg, tok_scratch *s) {
  const cclass alpha = {TOK_ALPHA, false}, nonalpha = {TOK_ALPHA, true};
  if (is_lang(cfg, "en")) { /* contractions go right: "it 's" */
    apostrophe_rule(s, nonalpha, nonalpha, " ' ");
    apostrophe_rule(s, (cclass){TOK_ALPHA | TOK_NUM, true}, alpha, " ' ");
    apostrophe_rule(s, alpha, nonalpha, " ' ");
    apostrophe_rule(s, alpha, alpha, " '");
    /* "1990's" */
    uint32_t *a = s->a.p, *o = s->b.p;
    size_t k = 0, n = s->a.n;
    for (size_t i = 0; i < n; i++) {
      if (i + 2 < n && a[i + 1] == '\'' && a[i + 2] == 's' && IS(a[i], TOK_NUM)) {
        o[k++] = a[i], o[k++] = ' ', o[k++] = '\'', o[k++] = 's';
        i += 2;
      } else {
        o[k++] = a[i];
      }
    }
    done(s, k);
  } else if (is_lang(cfg, "fr") || is_lang(cfg, "it") || is_lang(cfg, "ga") || is_lang(cfg, "ca")) {
    apostrophe_rule(s, nonalpha, nonalpha, " ' "); /* contractions go left: "l' homme" */
    apostrophe_rule(s, nonalpha, alpha, " ' ");
    apostrophe_rule(s, alpha, nonalpha, " ' ");
    apostrophe_rule(s, alpha, alpha, "' ");
  } else if (is_lang(cfg, "so") || is_lang(cfg, "tdt")) { /* glottal stops stay */
    apostrophe_rule(s, nonalpha, nonalpha, " ' ");
    apostrophe_rule(s, nonalpha, alpha, " ' ");
    apostrophe_rule(s, alpha, nonalpha, " ' ");
  } else {
    uint32_t *a = s->a.p, *o = s->b.p;
    size_t k = 0;
    for (size_t i = 0; i < s->a.n; i++) {
      if (a[i] == '\'') o[k++] = ' ', o[k++] = '\'', o[k++] = ' ';
      else o[k++] = a[i];
    }
    done(s, k);
  }
}

/* Does a word ending in '.' keep its period? words[i] = w[0..len), the period
 * included; `next` is the first character of the next split field (0 when that
 * field is empty), `last` says no non-empty field follows. */
static bool keeps_period(const tok_config *cfg, tok_scratch *s, const uint32_t *w, size_t len,
                         uint32_t next, bool last) {
  if (last) return false;
  bool dot = false, alpha = false;
  for (size_t i = 0; i + 1 < len; i++) {
    if (w[i] == '.') dot = true;
    else if (IS(w[i], TOK_ALPHA)) alpha = true;
  }
  if (dot && alpha) return true;
  s->word.len = 0;
  if (!tok_encode(&s->word, w, len - 1)) return false;
  int kind = tok_nbp_get(cfg->nbp, s->word.s, s->word.len);
  if (kind == TOK_NBP_ALWAYS) return true;
  if (next && IS(next, TOK_LOWER)) return true;
  return kind == TOK_NBP_NUMERIC && next >= '0' && next <= '9';
}

/* What an ASCII character is written as, where that is not itself: the dot
 * runs always, the others when escaping. */
static const char *const ESCAPED[128] = {
  [DOT_RUN] = ".",   ['&'] = "&amp;", ['|'] = "&#124;", ['<'] = "&lt;", ['>'] = "&gt;",
  ['\''] = "&apos;", ['"'] = "&quot;", ['['] = "&#91;", [']'] = "&#93;"};
static const char *const UNESCAPED[128] = {[DOT_RUN] = "."};

/* Writes c at q as UTF-8, or as its entry in ent; returns the new end. */
static inline char *put(char *q, uint32_t c, const char *const *ent) {
  const char *rep = c < 0x80 ? ent[c] : NULL;
  if (!rep) return nmt_utf8_put(q, c);
  while (*rep) *q++ = *rep++;
  return q;
}

/* The word loop (split /\s/, the final-period rule) and the space clean-up,
 * written straight out as UTF-8 with the dot runs restored and escaping. */
static bool emit_words(const tok_config *cfg, tok_scratch *s, nmt_strbuf *out) {
  const uint32_t *a = s->a.p;
  size_t n = s->a.n, last = 0, end = 0; /* the last word is a[last..end) */
  const char *const *ent = cfg->escape ? ESCAPED : UNESCAPED;
  /* 6 bytes a character at most ("&#124;"), a split period 1 more, then the
   * final rule and the '\n' */
  if (nmt_strbuf_reserve(out, 7 * n + 16)) return false;
  char *q = out->s + out->len, *start = q;
  for (size_t i = 0; i < n;) {
    if (a[i] == ' ') {
      i++;
      continue;
    }
    if (q != start) *q++ = ' ';
    size_t e = i;
    for (; e < n && a[e] != ' '; e++) q = put(q, a[e], ent);
    if (e - i >= 2 && a[e - 1] == '.') {
      size_t j = e;
      while (j < n && a[j] == ' ') j++;
      uint32_t next = e + 1 < n && a[e + 1] != ' ' ? a[e + 1] : 0;
      if (!keeps_period(cfg, s, a + i, e - i, next, j == n)) q[-1] = ' ', *q++ = '.';
    }
    last = i, end = e, i = e;
  }
  /* s/\.\' ?$/ . ' /: a sentence-final .' is split, leaving a trailing space
   * (a word ending in .' had no period split) */
  if (end - last >= 2 && a[end - 2] == '.' && a[end - 1] == '\'') {
    const char *apos = ent['\''] ? ent['\''] : "'";
    size_t al = strlen(apos);
    q -= al + 1;
    *q++ = ' ', *q++ = '.', *q++ = ' ';
    memcpy(q, apos, al);
    q += al;
    *q++ = ' ';
  }
  *q++ = '\n';
  out->len = (size_t)(q - out->s);
  return true;
}

bool tok_tokenize(const tok_config *cfg, tok_scratch *s, const char *line, size_t n,
                  nmt_strbuf *out) {
  /* worst growth: 3x for specials, then 5x per hyphen, plus a few */
  if (!tok_cps_reserve(&s->a, 16 * n + 16) || !tok_cps_reserve(&s->b, 16 * n + 16)) return false;
  int has = clean_space(s, line, n);
  if (has < 0) /* blank lines pass through untouched */
    return tok_put(out, line, n) && tok_put(out, "\n", 1);
  if (has & HAS_SPECIAL) split_specials(cfg, s);
  if (is_lang(cfg, "fi") || is_lang(cfg, "sv")) split_unless_lower(s, ':');
  else if (is_lang(cfg, "ca")) split_unless_lower(s, 0xB7);
  else if (is_lang(cfg, "tdt") && (has & HAS_APOS)) split_unless_lower(s, '\'');
  if (cfg->aggressive && (has & HAS_HYPHEN)) split_hyphens(s);
  if (has & HAS_DOTS) mark_dot_runs(s);
  if (has & HAS_COMMA) split_commas(s);
  if (has & HAS_APOS) split_apostrophes(cfg, s);
  return emit_words(cfg, s, out);
}
