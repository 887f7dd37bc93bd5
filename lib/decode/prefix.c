/* Target prefixes; see decode/prefix.h. */
#include "decode/prefix.h"
#include "base/err.h"
#include "io/parallel.h"
#include <stdlib.h>
#include <string.h>

int nmt_target_ids(nmt_text *t, const nmt_vocab *tgt, const char *text, size_t len, const char *what, int **ids,
                   int *n, int *cap) {
  const char *toks;
  size_t ntoks;
  *n = 0;
  int st = nmt_text_target_tokens(t, text, len, &toks, &ntoks);
  if (!st) st = nmt_vocab_encode(tgt, toks, ntoks, ids, n, cap);
  if (st) return st;
  nmt_tokens words = {0};
  for (int i = 0; i < *n && !st; i++) {
    if ((*ids)[i] >= NMT_NSPECIALS) continue;
    if (!words.count && (st = nmt_tokens_split(&words, toks, ntoks))) break;
    int w = (int)words.n[i];
    bool literal = words.n[i] == 5 && !memcmp(words.s[i], "<unk>", 5); /* <unk> written as such */
    st = (*ids)[i] == NMT_UNK && !literal
             ? nmt_fail(NMT_EINPUT, "the target vocabulary cannot spell '%.*s' (a token of %s)", w, words.s[i], what)
             : nmt_fail(NMT_EINPUT, "'%.*s' in %s is a control token, not a word", w, words.s[i], what);
  }
  nmt_tokens_free(&words);
  return st;
}

int nmt_prefix_ids(nmt_text *t, const nmt_vocab *tgt, const char *text, size_t len, int **ids, int *n, int *cap) {
  return nmt_target_ids(t, tgt, text, len, "the prefix", ids, n, cap);
}

static int add(nmt_strbuf *out, const char *s, size_t n) {
  return nmt_strbuf_add(out, s, n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

int nmt_prefix_output(nmt_text *t, const char *toks, size_t n, size_t head, const char *given, size_t given_n,
                      nmt_strbuf *out) {
  nmt_strbuf whole = {0}, pre = {0}, rest = {0};
  int st = nmt_text_output(t, toks, n, &whole);
  if (!st) st = nmt_text_output(t, toks, head, &pre);
  const char *r = whole.s ? whole.s : "";
  size_t rn = whole.len;
  if (!st && pre.len <= whole.len && !memcmp(r, pre.s ? pre.s : "", pre.len)) {
    r += pre.len, rn -= pre.len;
  } else if (!st) { /* the rest alone, after a space */
    size_t skip = head < n ? head + 1 : n;
    if (n > skip && !(st = add(&rest, " ", 1))) st = nmt_text_output(t, toks + skip, n - skip, &rest);
    r = rest.s ? rest.s : "", rn = rest.len;
  }
  bool spaced = given_n && (given[given_n - 1] == ' ' || given[given_n - 1] == '\t');
  if (spaced && rn && *r == ' ') r++, rn--;
  if (!st) st = add(out, given, given_n);
  if (!st) st = add(out, r, rn);
  free(whole.s), free(pre.s), free(rest.s);
  return st;
}

int nmt_prefix_target(nmt_text *t, const nmt_vocab *tgt, const int *ids, int n, int pre_n, const char *given,
                      size_t given_n, nmt_strbuf *out) {
  nmt_strbuf toks = {0}, head = {0};
  int st = nmt_ids_text(tgt, ids, n, false, &toks);
  if (!st) st = nmt_ids_text(tgt, ids, pre_n < n ? pre_n : n, false, &head);
  if (!st) st = nmt_prefix_output(t, toks.s ? toks.s : "", toks.len, head.len, given, given_n, out);
  free(toks.s), free(head.s);
  return st;
}

int nmt_prefix_read(nmt_reader *p, long lineno, nmt_text *t, const nmt_vocab *tgt, int **ids, int *n, int *cap,
                    nmt_strbuf *given) {
  char *line;
  size_t len;
  *n = 0, given->len = 0;
  int st = nmt_parallel_line(p, lineno, "the prefix file", &line, &len);
  if (!st) st = nmt_parallel_at(nmt_prefix_ids(t, tgt, line, len, ids, n, cap), p, lineno);
  return st ? st : add(given, line, len);
}

int nmt_prefix_end(nmt_reader *p, const nmt_reader *in) { return nmt_parallel_end(p, in, "the prefix file"); }
