/* Terminology constraints' text; see decode/terms.h. */
#include "decode/terms.h"
#include "base/err.h"
#include "base/utf8.h"
#include "decode/prefix.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ') return false;
  return true;
}

int nmt_terms_ids(nmt_text *t, const nmt_vocab *tgt, const char *text, size_t len, int **ids, int *n, int *cap,
                  char *why, size_t whylen) {
  int *one = NULL, one_n = 0, one_cap = 0, st = NMT_OK, k = 0;
  *n = 0, why[0] = 0;
  for (size_t at = 0; len && at <= len && !st && !why[0]; k++) {
    const char *tab = memchr(text + at, '\t', len - at);
    size_t end = tab ? (size_t)(tab - text) : len;
    if (blank(text + at, end - at)) {
      st = nmt_fail(NMT_EINPUT, "constraint %d is empty (phrases are separated by one tab)", k + 1);
      break;
    }
    st = nmt_target_ids(t, tgt, text + at, end - at, "a constraint", &one, &one_n, &one_cap);
    if (st == NMT_EINPUT) snprintf(why, whylen, "%s", nmt_errmsg()), st = NMT_OK;
    if (!st && !why[0] && *n + one_n + 1 > *cap) {
      int c = (*n + one_n + 1) * 2, *x = realloc(*ids, sizeof *x * (size_t)c);
      if (!x) st = nmt_fail(NMT_EIO, "out of memory");
      else *ids = x, *cap = c;
    }
    for (int i = 0; !st && !why[0] && i <= one_n; i++) (*ids)[(*n)++] = i < one_n ? one[i] : -1;
    at = end + 1;
  }
  if (why[0]) *n = 0;
  free(one);
  return st;
}

int nmt_terms_read(nmt_reader *c, long lineno, nmt_text *t, const nmt_vocab *tgt, int **ids, int *n, int *cap,
                   char *why, size_t whylen) {
  char *line = NULL;
  size_t len = 0;
  int k = 1;
  const char *name = nmt_reader_name(c);
  *n = 0, why[0] = 0;
  while (nmt_reader_lineno(c) < lineno && (k = nmt_reader_next(c, &line, &len)) == 1) {}
  if (k < 0) return nmt_errcode();
  if (k == 0 || !line)
    return nmt_fail(NMT_EINPUT, "%s: no line %ld, the input has one: the constraints file has one line per input "
                    "line (an empty line: none)", name, lineno);
  if (nmt_utf8_check_line(line, len, name, lineno)) return NMT_EINPUT;
  int st = nmt_terms_ids(t, tgt, line, len, ids, n, cap, why, whylen);
  if (st == NMT_EINPUT) {
    char msg[400];
    snprintf(msg, sizeof msg, "%s", nmt_errmsg());
    return nmt_fail(st, "%s:%ld: %s", name, lineno, msg);
  }
  return st;
}

int nmt_terms_end(nmt_reader *c, const nmt_reader *in) {
  char *line;
  size_t len;
  int k = nmt_reader_next(c, &line, &len);
  if (k < 0) return nmt_errcode();
  return k ? nmt_fail(NMT_EINPUT, "%s has more lines than %s (%ld): the constraints file has one line per input "
                      "line", nmt_reader_name(c), nmt_reader_name(in), nmt_reader_lineno(in))
           : NMT_OK;
}

int nmt_terms_joins(const nmt_vocab *tgt, bool **joins) {
  int V = nmt_vocab_size(tgt);
  if (!(*joins = malloc(sizeof **joins * (size_t)(V ? V : 1)))) return nmt_fail(NMT_EIO, "out of memory");
  for (int v = 0; v < V; v++) {
    const char *w = nmt_vocab_token(tgt, v);
    size_t n = strlen(w);
    (*joins)[v] = n >= 2 && !strcmp(w + n - 2, "@@");
  }
  return NMT_OK;
}
