/* Terminology constraints' text; see decode/terms.h. */
#include "decode/terms.h"
#include "base/err.h"
#include "io/parallel.h"
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
  char *line;
  size_t len;
  *n = 0, why[0] = 0;
  int st = nmt_parallel_line(c, lineno, "the constraints file", &line, &len);
  return st ? st : nmt_parallel_at(nmt_terms_ids(t, tgt, line, len, ids, n, cap, why, whylen), c, lineno);
}

int nmt_terms_end(nmt_reader *c, const nmt_reader *in) { return nmt_parallel_end(c, in, "the constraints file"); }

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
