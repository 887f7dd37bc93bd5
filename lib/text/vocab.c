/* Vocabulary: build by frequency, text round trip, lookup via nmt_strmap. */
#include "text/vocab.h"
#include "base/checked.h"
#include "base/err.h"
#include "io/io.h"
#include "base/strmap.h"
#include "io/tstream.h"
#include <stdlib.h>
#include <string.h>

struct nmt_vocab {
  nmt_strmap *map; /* token -> id, ids in vocabulary order */
};

static const char *const specials[NMT_NSPECIALS] = {"<pad>", "<unk>", "<s>", "</s>"};

static int new_with_specials(nmt_vocab **out) {
  nmt_vocab *v = calloc(1, sizeof *v);
  if (!v || !(v->map = nmt_strmap_new())) {
    free(v);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  for (int i = 0; i < NMT_NSPECIALS; i++) nmt_strmap_intern(v->map, specials[i], strlen(specials[i]));
  *out = v;
  return NMT_OK;
}

void nmt_vocab_free(nmt_vocab *v) {
  if (!v) return;
  nmt_strmap_free(v->map);
  free(v);
}

int nmt_vocab_size(const nmt_vocab *v) { return nmt_strmap_size(v->map); }

int nmt_vocab_id(const nmt_vocab *v, const char *s, size_t n) {
  int32_t id = nmt_strmap_find(v->map, s, n);
  return id < 0 ? NMT_UNK : id;
}

const char *nmt_vocab_token(const nmt_vocab *v, int id) {
  return id >= 0 && id < nmt_vocab_size(v) ? nmt_strmap_str(v->map, id) : "<unk>";
}

bool nmt_vocab_equal(const nmt_vocab *a, const nmt_vocab *b) {
  int n = nmt_vocab_size(a);
  if (n != nmt_vocab_size(b)) return false;
  for (int i = 0; i < n; i++)
    if (strcmp(nmt_vocab_token(a, i), nmt_vocab_token(b, i))) return false;
  return true;
}

/* Calls fn(token, n, ctx) for each space-separated token of line. */
static int each_token(const char *line, size_t len, int (*fn)(const char *, size_t, void *),
                      void *ctx) {
  size_t i = 0;
  while (i < len) {
    while (i < len && (line[i] == ' ' || line[i] == '\r')) i++;
    size_t j = i;
    while (j < len && line[j] != ' ' && line[j] != '\r') j++;
    if (j > i && fn(line + i, j - i, ctx)) return NMT_EIO;
    i = j;
  }
  return NMT_OK;
}

static int add_token(const char *s, size_t n, void *ctx) {
  nmt_tokens *t = ctx;
  if (t->count == t->cap) {
    int cap = nmt_grow_int(t->cap, 64);
    const char **s2 = cap > 0 ? realloc(t->s, sizeof *s2 * (size_t)cap) : NULL;
    if (s2) t->s = s2;
    size_t *n2 = cap > 0 ? realloc(t->n, sizeof *n2 * (size_t)cap) : NULL;
    if (n2) t->n = n2;
    if (!s2 || !n2) return -1;
    t->cap = cap;
  }
  t->s[t->count] = s, t->n[t->count++] = n;
  return 0;
}

int nmt_tokens_split(nmt_tokens *t, const char *line, size_t len) {
  t->count = 0;
  return each_token(line, len, add_token, t) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

void nmt_tokens_free(nmt_tokens *t) {
  free(t->s), free(t->n);
  memset(t, 0, sizeof *t);
}

typedef struct {
  const nmt_vocab *v;
  int **ids;
  int *n, *cap;
} encode_ctx;

static int push_id(const char *s, size_t n, void *p) {
  encode_ctx *c = p;
  if (*c->n == *c->cap) {
    int cap = nmt_grow_int(*c->cap, 64);
    int *ids = cap > 0 ? realloc(*c->ids, sizeof *ids * (size_t)cap) : NULL;
    if (!ids) return -1;
    *c->ids = ids;
    *c->cap = cap;
  }
  (*c->ids)[(*c->n)++] = nmt_vocab_id(c->v, s, n);
  return 0;
}

int nmt_vocab_encode(const nmt_vocab *v, const char *line, size_t len, int **ids, int *n,
                     int *cap) {
  encode_ctx c = {v, ids, n, cap};
  return each_token(line, len, push_id, &c) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

/* ---- building ---- */

typedef struct {
  nmt_strmap *seen; /* every token, ids in order of first occurrence */
  long *count;
  long cap;
} counter;

static int count_token(const char *s, size_t n, void *p) {
  counter *c = p;
  int32_t id = nmt_strmap_intern(c->seen, s, n);
  if (id < 0) return -1;
  if (id >= c->cap) {
    long cap = c->cap ? 2 * c->cap : 1024;
    long *count = realloc(c->count, sizeof *count * (size_t)cap);
    if (!count) return -1;
    memset(count + c->cap, 0, sizeof *count * (size_t)(cap - c->cap));
    c->count = count;
    c->cap = cap;
  }
  c->count[id]++;
  return 0;
}

static int count_line(void *c, char *line, size_t len, const char *name, long lineno) {
  return each_token(line, len, count_token, c) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

static int count_file(counter *c, const char *path) { return nmt_each_utf8_line(path, count_line, c); }

static int by_count_then_first(const void *a, const void *b, void *counts) {
  const long *n = counts;
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  if (n[x] != n[y]) return n[x] > n[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

static int add_sorted(nmt_vocab *v, const counter *c, long min_count, long max_size) {
  int32_t n = nmt_strmap_size(c->seen);
  int32_t *order = malloc(sizeof *order * (size_t)(n ? n : 1));
  if (!order) return nmt_fail(NMT_EIO, "out of memory");
  for (int32_t i = 0; i < n; i++) order[i] = i;
  qsort_r(order, (size_t)n, sizeof *order, by_count_then_first, c->count);
  for (int32_t i = 0; i < n && c->count[order[i]] >= min_count; i++) {
    if (max_size > 0 && nmt_vocab_size(v) >= max_size) break;
    if (nmt_strmap_intern(v->map, nmt_strmap_str(c->seen, order[i]), nmt_strmap_len(c->seen, order[i])) < 0) {
      free(order);
      return nmt_fail(NMT_EIO, "out of memory");
    }
  }
  free(order);
  return NMT_OK;
}

int nmt_vocab_build(nmt_vocab **out, const char *path, long min_count, long max_size) {
  counter c = {nmt_strmap_new(), NULL, 0};
  if (!c.seen) return nmt_fail(NMT_EIO, "out of memory");
  nmt_vocab *v = NULL;
  bool ids;
  int st = nmt_ts_sniff(path, &ids);
  if (!st && ids)
    st = nmt_fail(NMT_EUSAGE, "%s is a tensor stream of ids: give the vocabularies it was made with (--vocabs)",
                  path);
  if (!st) st = count_file(&c, path);
  if (!st) st = new_with_specials(&v);
  if (!st) st = add_sorted(v, &c, min_count, max_size);
  nmt_strmap_free(c.seen);
  free(c.count);
  if (st) nmt_vocab_free(v);
  else *out = v;
  return st;
}

/* ---- text form ---- */

int nmt_vocab_parse(nmt_vocab **out, const char *text, size_t len, const char *name) {
  nmt_vocab *v = calloc(1, sizeof *v);
  if (!v || !(v->map = nmt_strmap_new())) {
    free(v);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  size_t i = 0;
  for (long line = 1; i < len; line++) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t j = nl ? (size_t)(nl - text) : len;
    int32_t before = nmt_strmap_size(v->map);
    int32_t id = nmt_strmap_intern(v->map, text + i, j - i);
    const char *problem = id < before ? "duplicate token"
                          : j == i || memchr(text + i, ' ', j - i) ? "empty token or a space in it"
                          : id < NMT_NSPECIALS && strcmp(nmt_strmap_str(v->map, id), specials[id])
                              ? "the specials <pad> <unk> <s> </s> must come first"
                              : NULL;
    if (problem) {
      nmt_vocab_free(v);
      return nmt_fail(NMT_EINPUT, "%s:%ld: %s", name, line, problem);
    }
    i = j + 1;
  }
  if (nmt_vocab_size(v) < NMT_NSPECIALS) {
    nmt_vocab_free(v);
    return nmt_fail(NMT_EINPUT, "%s: a vocabulary needs at least the four specials", name);
  }
  *out = v;
  return NMT_OK;
}

int nmt_vocab_text(const nmt_vocab *v, nmt_strbuf *out) {
  for (int i = 0; i < nmt_vocab_size(v); i++)
    if (nmt_strbuf_add(out, nmt_strmap_str(v->map, i), nmt_strmap_len(v->map, i)) ||
        nmt_strbuf_addc(out, '\n'))
      return nmt_fail(NMT_EIO, "out of memory");
  return NMT_OK;
}

/* A "TOKEN COUNT" line (get_vocab.py's form): the token's length; 0 when it is not one. */
static size_t counted_token(const char *s, size_t n) {
  const char *sp = memchr(s, ' ', n);
  size_t k = sp ? (size_t)(sp - s) : 0;
  if (!k || k + 1 == n) return 0;
  for (size_t i = k + 1; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return k;
}

/* The count form: the specials, then the tokens in the file's order (most frequent
 * first as get_vocab.py writes them); a special among them keeps its place. */
static int parse_counts(nmt_vocab **out, const char *text, size_t len, const char *name) {
  nmt_vocab *v;
  int st = new_with_specials(&v);
  size_t i = 0;
  for (long line = 1; !st && i < len; line++) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t j = nl ? (size_t)(nl - text) : len, k = counted_token(text + i, j - i);
    int32_t before = nmt_strmap_size(v->map), id = k ? nmt_strmap_intern(v->map, text + i, k) : -1;
    if (!k) st = nmt_fail(NMT_EINPUT, "%s:%ld: not a 'TOKEN COUNT' line, as the first line is", name, line);
    else if (id < 0) st = nmt_fail(NMT_EIO, "out of memory");
    else if (id < before && id >= NMT_NSPECIALS) st = nmt_fail(NMT_EINPUT, "%s:%ld: duplicate token", name, line);
    i = j + 1;
  }
  if (st) nmt_vocab_free(v);
  else *out = v;
  return st;
}

int nmt_vocab_from_text(nmt_vocab **v, const char *text, size_t len, const char *name) {
  const char *nl = memchr(text, '\n', len);
  bool counts = counted_token(text, nl ? (size_t)(nl - text) : len) > 0;
  return counts ? parse_counts(v, text, len, name) : nmt_vocab_parse(v, text, len, name);
}

int nmt_vocab_load(nmt_vocab **v, const char *path) {
  char *text;
  size_t len;
  int st = nmt_read_file(path, &text, &len);
  if (st) return st;
  st = nmt_vocab_from_text(v, text, len, path);
  free(text);
  return st;
}
