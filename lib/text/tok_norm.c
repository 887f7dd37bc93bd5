/* normalize-punctuation.perl (Moses). The script reads bytes (no :utf8), so
 * its rules match byte sequences: "\d" and "[a-z]" are ASCII, and the spaces
 * before « » % : ? ! ; and between digits are U+00A0 (C2 A0). It also runs with
 * the line's "\n" still attached, which one rule can see. */
#include "text/tok.h"

#define NBSP "\xC2\xA0"

typedef struct {
  nmt_strbuf *in, *out;
  uint8_t seen[256]; /* bytes that may be in `in`: rules needing an absent one are skipped */
  bool spaced;       /* `in` may hold "  ": set on every change, cleared by squeeze */
} norm;

static void swap(norm *m) {
  nmt_strbuf *t = m->in;
  m->in = m->out;
  m->out = t;
  m->out->len = 0;
  m->spaced = true;
}

/* Are all bytes of s in m->seen? Inlined: most rules stop here. */
static inline bool all_seen(const norm *m, const char *s) {
  for (; *s; s++)
    if (!m->seen[(uint8_t)*s]) return false;
  return true;
}

static void mark(norm *m, const char *s) {
  for (; *s; s++) m->seen[(uint8_t)*s] = 1;
}

/* s/from/to/g for a literal `from` */
static bool replace(norm *m, const char *from, const char *to) {
  size_t fl = strlen(from), tl = strlen(to);
  const char *p = m->in->s, *end = p + m->in->len;
  const char *hit = memmem(p, (size_t)(end - p), from, fl);
  if (!hit) return true;
  mark(m, to);
  for (; hit; hit = memmem(p, (size_t)(end - p), from, fl)) {
    if (!tok_put(m->out, p, (size_t)(hit - p)) || !tok_put(m->out, to, tl)) return false;
    p = hit + fl;
  }
  if (!tok_put(m->out, p, (size_t)(end - p))) return false;
  swap(m);
  return true;
}

static inline bool rep(norm *m, const char *from, const char *to) {
  return !all_seen(m, from) || replace(m, from, to);
}

/* Where the first "  " of s ends (its second space), or n. Eight byte pairs at
 * a time: a zero byte of (x ^ spaces) | (y ^ spaces) is a pair of spaces. */
static size_t two_spaces(const char *s, size_t n) {
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u, sp = 0x20 * ones;
  size_t i = 0;
  for (; i + 9 <= n; i += 8) {
    uint64_t x, y;
    memcpy(&x, s + i, 8), memcpy(&y, s + i + 1, 8);
    uint64_t v = (x ^ sp) | (y ^ sp);
    if ((v - ones) & ~v & highs) break;
  }
  for (i++; i < n && !(s[i] == ' ' && s[i - 1] == ' '); i++) {}
  return i < n ? i : n;
}

/* s/ +/ /g */
static void squeeze(norm *m) {
  if (!m->spaced) return;
  m->spaced = false;
  char *s = m->in->s;
  size_t n = m->in->len, k = two_spaces(s, n);
  for (size_t i = k; i < n; i++)
    if (!(s[i] == ' ' && s[k - 1] == ' ')) s[k++] = s[i];
  if (k < n) m->in->len = k;
}

static bool digit(char c) { return c >= '0' && c <= '9'; }
static bool ascii_alpha(char c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }
static bool space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* s/(A)MID(B)/$1TO$2/g where A and B are single bytes tested by `ok`; the
 * match consumes B, so "1 2 3" gives "1,2 3". */
static bool rep_between(norm *m, bool (*ok)(char), const char *mid, const char *to) {
  if (!all_seen(m, mid)) return true;
  size_t ml = strlen(mid), tl = strlen(to), n = m->in->len;
  const char *s = m->in->s;
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    if (i + ml + 1 < n && ok(s[i]) && !memcmp(s + i + 1, mid, ml) && ok(s[i + ml + 1])) {
      if (!tok_put(m->out, s + i, 1) || !tok_put(m->out, to, tl) ||
          !tok_put(m->out, s + i + ml + 1, 1))
        return false;
      i += ml + 1;
      any = true;
    } else if (!tok_put(m->out, s + i, 1)) {
      return false;
    }
  }
  if (any) mark(m, to), swap(m);
  else m->out->len = 0;
  return true;
}

/* s/\) ([\.\!\:\?\;\,])/\)$1/g and s/(\d) \%/$1\%/g: drop a space between two bytes */
static void drop_space(norm *m, bool (*left)(char), const char *right) {
  char *s = m->in->s;
  size_t k = 0, n = m->in->len;
  for (size_t i = 0; i < n; i++) {
    s[k++] = s[i];
    if (left(s[i]) && i + 2 < n && s[i + 1] == ' ' && s[i + 2] && strchr(right, s[i + 2]))
      s[k++] = s[i + 2], i += 2;
  }
  m->in->len = k;
}
static bool close_paren(char c) { return c == ')'; }

/* English: s/\"([,\.]+)/$1\"/g — the quote goes after the punctuation */
static void quote_after_punct(norm *m) {
  char *s = m->in->s;
  size_t n = m->in->len;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '"') continue;
    size_t j = i + 1;
    while (j < n && (s[j] == ',' || s[j] == '.')) j++;
    if (j == i + 1) continue;
    memmove(s + i, s + i + 1, j - i - 1);
    s[j - 1] = '"';
    i = j - 1;
  }
}

/* s/(\.+)\"(\s*[^<])/\"$1$2/g: periods go after the quote unless "<" follows
 * directly or nothing does ("\n" counts as something). */
static void quote_before_periods(norm *m) {
  char *s = m->in->s;
  size_t n = m->in->len;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '.') continue;
    size_t j = i;
    while (j < n && s[j] == '.') j++;
    if (j < n && s[j] == '"') {
      size_t e = j + 1;
      while (e < n && space(s[e])) e++;
      bool match = (e < n && s[e] != '<') || e > j + 1;
      if (match) {
        size_t after = e < n && s[e] != '<' ? e + 1 : e; /* $2 ends here */
        memmove(s + i + 1, s + i, j - i);
        s[i] = '"';
        i = after - 1;
        continue;
      }
    }
    i = j - 1;
  }
}

bool tok_normalize(const tok_config *cfg, tok_scratch *sc, const char *line, size_t n,
                   nmt_strbuf *out) {
  norm m = {&sc->s, &sc->t, {0}, true};
  m.in->len = m.out->len = 0;
  if (!tok_put(m.in, line, n) || !tok_put(m.in, "\n", 1)) return false;
  for (size_t i = 0; i < n; i++) m.seen[(uint8_t)line[i]] = 1;
  m.seen['\n'] = 1;
  const char *L = cfg->lang;
  bool ok = rep(&m, "\r", "") && rep(&m, "(", " (") && rep(&m, ")", ") ");
  if (!ok) return false;
  squeeze(&m);
  if (m.seen[')']) drop_space(&m, close_paren, ".!:?;,");
  ok = rep(&m, "( ", "(") && rep(&m, " )", ")");
  if (!ok) return false;
  if (m.seen['%']) drop_space(&m, digit, "%");
  ok = rep(&m, " :", ":") && rep(&m, " ;", ";") &&
       /* normalize unicode punctuation */
       rep(&m, "`", "'") && rep(&m, "''", " \" ") && rep(&m, "\xE2\x80\x9E", "\"") &&
       rep(&m, "\xE2\x80\x9C", "\"") && rep(&m, "\xE2\x80\x9D", "\"") &&
       rep(&m, "\xE2\x80\x93", "-") && rep(&m, "\xE2\x80\x94", " - ");
  if (!ok) return false;
  squeeze(&m);
  ok = rep(&m, "\xC2\xB4", "'") &&
       rep_between(&m, ascii_alpha, "\xE2\x80\x98", "'") && /* ‘ inside a word */
       rep_between(&m, ascii_alpha, "\xE2\x80\x99", "'") && /* ’ inside a word */
       rep(&m, "\xE2\x80\x98", "'") && rep(&m, "\xE2\x80\x9A", "'") &&
       rep(&m, "\xE2\x80\x99", "\"") && rep(&m, "''", "\"") && rep(&m, "\xC2\xB4\xC2\xB4", "\"") &&
       rep(&m, "\xE2\x80\xA6", "...") &&
       /* French quotes */
       rep(&m, NBSP "\xC2\xAB" NBSP, " \"") && rep(&m, "\xC2\xAB" NBSP, "\"") &&
       rep(&m, "\xC2\xAB", "\"") && rep(&m, NBSP "\xC2\xBB" NBSP, "\" ") &&
       rep(&m, NBSP "\xC2\xBB", "\"") && rep(&m, "\xC2\xBB", "\"") &&
       /* pseudo-spaces */
       rep(&m, NBSP "%", "%") && rep(&m, "n\xC2\xBA" NBSP, "n\xC2\xBA ") && rep(&m, NBSP ":", ":") &&
       rep(&m, NBSP "\xC2\xBA" "C", " \xC2\xBA" "C") && rep(&m, NBSP "cm", " cm") &&
       rep(&m, NBSP "?", "?") && rep(&m, NBSP "!", "!") && rep(&m, NBSP ";", ";") &&
       rep(&m, "," NBSP, ", ");
  if (!ok) return false;
  squeeze(&m);
  if (!strcmp(L, "en")) {
    if (m.seen['"']) quote_after_punct(&m);
  } else if (strcmp(L, "cs") && strcmp(L, "cz")) {
    if (!rep(&m, ",\"", "\",")) return false;
    if (m.seen['"']) quote_before_periods(&m);
  }
  bool comma = !strcmp(L, "de") || !strcmp(L, "es") || !strcmp(L, "cz") || !strcmp(L, "cs") ||
               !strcmp(L, "fr");
  if (!rep_between(&m, digit, NBSP, comma ? "," : ".")) return false;
  return tok_put(out, m.in->s, m.in->len); /* keeps the "\n" */
}
