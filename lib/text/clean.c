/* clean-corpus-n.perl's per-pair rules (Moses scripts/training). */
#include "text/clean.h"
#include "text/tok.h"
#include "base/err.h"
#include "base/utf8.h"
#include <stdlib.h>
#include <string.h>

void nmt_clean_defaults(nmt_clean_opts *o) {
  *o = (nmt_clean_opts){.min = 1, .max = 50, .ratio = 9, .max_word_length = 1000};
}

const char *nmt_clean_rule_name(int verdict) {
  static const char *names[NMT_CLEAN_NRULES] = {
      "kept", "empty", "too many words", "too few words", "word ratio",
      "word too long (--max-word-length)", "token too long (--max-token-chars)"};
  return verdict >= 0 && verdict < NMT_CLEAN_NRULES ? names[verdict] : "?";
}

/* Perl's \s on the script's :utf8 strings, Unicode White_Space: NBSP and
 * U+0085 too (edge.fr line 16 shows NBSP becoming a space). */
static bool is_perl_space(uint32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool nmt_clean_is_factored(const char *src, size_t src_len, const char *tgt, size_t tgt_len) {
  return memchr(src, '|', src_len) || memchr(tgt, '|', tgt_len);
}

/* Where a Moses -ignore-xml tag <\S[^>]*\S> starting at s[i] == '<' ends
 * (index of its '>'), or 0 if none starts there. s holds single spaces only. */
static size_t tag_end(const char *s, size_t n, size_t i) {
  if (i + 2 >= n || s[i + 1] == ' ') return 0;
  const char *gt = memchr(s + i + 2, '>', n - i - 2);
  if (!gt) return 0;
  size_t m = (size_t)(gt - s);
  /* Greedy [^>]* stops before m; the last \S is then either s[m] itself
   * (needs another '>' after it) or s[m-1]. */
  if (m + 1 < n && s[m + 1] == '>') return m + 1;
  if (m >= i + 3 && s[m - 1] != ' ') return m;
  return 0;
}

/* Words once tags are blanked out, as the script's word_count with -ignore-xml. */
static long words_without_tags(const char *s, size_t n) {
  long words = 0;
  bool in_word = false;
  for (size_t i = 0; i < n; i++) {
    size_t e = s[i] == '<' ? tag_end(s, n, i) : 0;
    if (e) { in_word = false; i = e; continue; }
    if (s[i] == ' ') { in_word = false; continue; }
    if (!in_word) words++;
    in_word = true;
  }
  return words;
}

static int reserve(char **buf, size_t *cap, size_t need) {
  if (need <= *cap) return NMT_OK;
  size_t c = *cap ? *cap : 256;
  while (c < need) c *= 2;
  char *b = realloc(*buf, c);
  if (!b) return nmt_fail(NMT_EIO, "out of memory");
  *buf = b;
  *cap = c;
  return NMT_OK;
}

int nmt_clean_side_set(nmt_clean_side *s, const nmt_clean_opts *o, bool keep_bars,
                       const char *line, size_t n) {
  if (o->lc) {
    if (reserve(&s->lower, &s->lower_cap, TOK_LOWER_ROOM(n) + 1)) return NMT_EIO;
    n = tok_lower_into(s->lower, line, n);
    line = s->lower;
  }
  if (reserve(&s->text, &s->cap, n + 1)) return NMT_EIO;
  char *out = s->text;
  size_t len = 0;
  long words = 0, factor = 0, token = 0, longest_factor = 0, longest_token = 0;
  bool pending_space = false;
  for (size_t i = 0; i < n;) {
    uint32_t c = (unsigned char)line[i];
    int k = 1;
    if (c >= 0x80 && !(k = nmt_utf8_decode(line + i, n - i, &c))) k = 1; /* callers validate */
    if (c == '|' && !keep_bars) { i++; continue; }
    if (is_perl_space(c)) {
      pending_space = len > 0;
      factor = token = 0;
      i += (size_t)k;
      continue;
    }
    if (pending_space) { out[len++] = ' '; pending_space = false; }
    if (token == 0) words++;
    token++;
    factor = c == '|' ? 0 : factor + 1;
    if (token > longest_token) longest_token = token;
    if (factor > longest_factor) longest_factor = factor;
    memcpy(out + len, line + i, (size_t)k);
    len += (size_t)k;
    i += (size_t)k;
  }
  out[len] = 0;
  s->len = len;
  s->words = o->ignore_xml ? words_without_tags(out, len) : words;
  s->longest_factor = longest_factor;
  s->longest_token = longest_token;
  return NMT_OK;
}

void nmt_clean_side_free(nmt_clean_side *s) {
  free(s->text);
  free(s->lower);
  memset(s, 0, sizeof *s);
}

int nmt_clean_judge(const nmt_clean_opts *o, const nmt_clean_side *src, const nmt_clean_side *tgt) {
  if (!src->len || !tgt->len) return NMT_CLEAN_EMPTY;
  long ws = src->words, wt = tgt->words;
  if (ws > o->max || wt > o->max) return NMT_CLEAN_TOO_LONG;
  if (ws < o->min || wt < o->min) return NMT_CLEAN_TOO_SHORT;
  /* Division as Perl does it: a zero count (only tags, with min 0) gives inf. */
  if (!o->ignore_ratio && ((double)ws / (double)wt > o->ratio || (double)wt / (double)ws > o->ratio))
    return NMT_CLEAN_RATIO;
  if (src->longest_factor > o->max_word_length || tgt->longest_factor > o->max_word_length)
    return NMT_CLEAN_WORD_LENGTH;
  if (o->max_token_chars > 0 &&
      (src->longest_token > o->max_token_chars || tgt->longest_token > o->max_token_chars))
    return NMT_CLEAN_TOKEN_CHARS;
  return NMT_CLEAN_KEEP;
}

bool nmt_clean_has_blank_factor(const nmt_clean_side *s) {
  for (size_t i = 1; i < s->len; i++)
    if (s->text[i] == '|' && (s->text[i - 1] == ' ' || s->text[i - 1] == '|')) return true;
  return false;
}
