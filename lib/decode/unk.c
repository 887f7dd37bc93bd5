/* Unknown-word replacement; see decode/unk.h. */
#include "decode/unk.h"
#include "base/err.h"
#include "base/strmap.h"
#include "base/utf8.h"
#include "decode/text.h"
#include "io/io.h"
#include <stdlib.h>
#include <string.h>

struct nmt_unk_dict {
  nmt_strmap *src, *tgt;
  int32_t *tgt_of; /* (src words) the id of each source word's translation */
  int32_t cap;
};

/* One "SRC<TAB>TGT" line into d; 1 when the line has another shape, -1 out of memory. */
static int add_entry(nmt_unk_dict *d, const char *line, size_t len) {
  const char *tab = memchr(line, '\t', len);
  size_t sn = tab ? (size_t)(tab - line) : 0, tn = tab ? len - sn - 1 : 0;
  if (!sn || !tn || memchr(tab + 1, '\t', tn) || memchr(line, ' ', sn)) return 1;
  if (nmt_strmap_find(d->src, line, sn) >= 0) return 0; /* the first entry wins */
  int32_t s = nmt_strmap_intern(d->src, line, sn), t = nmt_strmap_intern(d->tgt, tab + 1, tn);
  if (s < 0 || t < 0) return -1;
  if (s >= d->cap) {
    int32_t cap = d->cap ? 2 * d->cap : 256, *a = realloc(d->tgt_of, sizeof *a * (size_t)cap);
    if (!a) return -1;
    d->tgt_of = a, d->cap = cap;
  }
  d->tgt_of[s] = t;
  return 0;
}

int nmt_unk_dict_load(nmt_unk_dict **dp, const char *path) {
  nmt_unk_dict *d = calloc(1, sizeof *d);
  nmt_reader *r = NULL;
  int st = d && (d->src = nmt_strmap_new()) && (d->tgt = nmt_strmap_new()) ? NMT_OK
                                                                            : nmt_fail(NMT_EIO, "out of memory");
  if (!st) st = nmt_reader_open(&r, path);
  char *line;
  size_t len;
  for (int k; !st && (k = nmt_reader_next(r, &line, &len)) != 0;) {
    if (k < 0) {
      st = nmt_errcode();
      break;
    }
    const char *name = nmt_reader_name(r);
    long no = nmt_reader_lineno(r);
    if ((st = nmt_utf8_check_line(line, len, name, no))) break;
    int added = add_entry(d, line, len);
    if (added < 0) st = nmt_fail(NMT_EIO, "out of memory");
    if (added > 0)
      st = nmt_fail(NMT_EINPUT, "%s:%ld: expected SRC<TAB>TGT (one source word, its translation)", name, no);
  }
  if (r) nmt_reader_close(r);
  if (st) nmt_unk_dict_free(d), d = NULL;
  *dp = d;
  return st;
}

void nmt_unk_dict_free(nmt_unk_dict *d) {
  if (!d) return;
  nmt_strmap_free(d->src), nmt_strmap_free(d->tgt), free(d->tgt_of);
  free(d);
}

/* Whether piece i continues into the next ("@@" at its end). */
static bool joins_next(const nmt_tokens *p, int i) { return p->n[i] >= 2 && !memcmp(p->s[i] + p->n[i] - 2, "@@", 2); }

/* Append the whole word of piece i, joined, or its dictionary entry. */
static int add_word(const nmt_tokens *p, int i, const nmt_unk_dict *dict, nmt_strbuf *word, nmt_strbuf *out) {
  int a = i, b = i;
  while (a > 0 && joins_next(p, a - 1)) a--;
  while (b + 1 < p->count && joins_next(p, b)) b++;
  word->len = 0;
  int st = nmt_bpe_join(p->s[a], (size_t)(p->s[b] + p->n[b] - p->s[a]), word);
  if (st) return st;
  int32_t id = dict && word->len ? nmt_strmap_find(dict->src, word->s, word->len) : -1;
  const char *w = id >= 0 ? nmt_strmap_str(dict->tgt, dict->tgt_of[id]) : word->s ? word->s : "";
  size_t n = id >= 0 ? nmt_strmap_len(dict->tgt, dict->tgt_of[id]) : word->len;
  return nmt_strbuf_add(out, w, n) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

int nmt_unk_replace(const nmt_vocab *tgt, const int *ids, int n, const int *align, const char *src, size_t src_len,
                    const nmt_unk_dict *dict, nmt_strbuf *out) {
  nmt_tokens p = {0};
  nmt_strbuf word = {0};
  int st = nmt_tokens_split(&p, src, src_len);
  for (int j = 0; j < n && !st; j++) {
    if (j && nmt_strbuf_addc(out, ' ')) st = nmt_fail(NMT_EIO, "out of memory");
    else if (ids[j] == NMT_UNK && align[j] >= 0 && align[j] < p.count) st = add_word(&p, align[j], dict, &word, out);
    else {
      const char *t = nmt_vocab_token(tgt, ids[j]);
      if (nmt_strbuf_add(out, t, strlen(t))) st = nmt_fail(NMT_EIO, "out of memory");
    }
  }
  nmt_tokens_free(&p);
  free(word.s);
  return st;
}
