/* Marian's lexical shortlist: reading its table, choosing a mini-batch's target words. */
#include "decode/lexical.h"
#include "base/err.h"
#include "io/io.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int s, t;
  float p;
} pair;

typedef struct {
  const nmt_vocab *src, *tgt;
  pair *v;
  size_t n, cap;
} reading;

/* The next whitespace-separated field of *line ([*at, end)), or NULL. */
static const char *field(const char **at, const char *end, size_t *n) {
  const char *s = *at;
  while (s < end && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
  const char *e = s;
  while (e < end && *e != ' ' && *e != '\t' && *e != '\r') e++;
  *at = e, *n = (size_t)(e - s);
  return e > s ? s : NULL;
}

/* A vocabulary's id of a word, or -1 where it has none (or the word is Marian's NULL). */
static int word_id(const nmt_vocab *v, const char *s, size_t n) {
  if (n == 4 && !memcmp(s, "NULL", 4)) return -1;
  int id = nmt_vocab_id(v, s, n);
  return id == NMT_UNK && !(n == 5 && !memcmp(s, "<unk>", 5)) ? -1 : id;
}

static int read_line(void *ctx, char *line, size_t len, const char *name, long lineno) {
  reading *r = ctx;
  const char *at = line, *end = line + len, *f[4];
  size_t n[4];
  int k = 0;
  while (k < 4 && (f[k] = field(&at, end, &n[k]))) k++;
  if (!k) return NMT_OK;
  char num[64], *stop;
  double p = NAN;
  if (k == 3 && n[2] < sizeof num) {
    memcpy(num, f[2], n[2]), num[n[2]] = 0;
    p = strtod(num, &stop);
    if (*stop) p = NAN;
  }
  if (k != 3 || !isfinite(p) || p < 0)
    return nmt_fail(NMT_EINPUT, "%s:%ld: expected 'TARGET SOURCE PROBABILITY' (a number >= 0)", name, lineno);
  int t = word_id(r->tgt, f[0], n[0]), s = word_id(r->src, f[1], n[1]);
  if (t < 0 || s < 0) return NMT_OK;
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 4096;
    pair *v = realloc(r->v, cap * sizeof *v);
    if (!v) return nmt_fail(NMT_EIO, "%s: out of memory", name);
    r->v = v, r->cap = cap;
  }
  r->v[r->n++] = (pair){s, t, (float)p};
  return NMT_OK;
}

/* By source, then most likely first, then the lower target. */
static int by_source(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->s != y->s) return x->s < y->s ? -1 : 1;
  if (x->p != y->p) return x->p > y->p ? -1 : 1;
  return (x->t > y->t) - (x->t < y->t);
}

/* l->start and l->tgt from the sorted pairs: each source's first best distinct targets
 * of probability >= prune. */
static int keep_best(nmt_lex *l, const pair *v, size_t n, int best, double prune) {
  l->start = calloc((size_t)l->nsrc + 1, sizeof *l->start);
  l->tgt = malloc((n ? n : 1) * sizeof *l->tgt);
  if (!l->start || !l->tgt) return nmt_fail(NMT_EIO, "out of memory: the lexical shortlist");
  int k = 0;
  for (size_t i = 0; i < n;) {
    int s = v[i].s, from = k;
    for (; i < n && v[i].s == s; i++) {
      bool seen = false;
      for (int j = from; j < k && !seen; j++) seen = l->tgt[j] == v[i].t;
      if (!seen && k - from < best && v[i].p >= prune) l->tgt[k++] = v[i].t;
    }
    l->start[s + 1] = k - from;
  }
  for (int s = 0; s < l->nsrc; s++) l->start[s + 1] += l->start[s];
  return NMT_OK;
}

/* s as a whole number from 0 to max, or -1. */
static long count(const char *s, long max) {
  char *end;
  long v = s[0] >= '0' && s[0] <= '9' ? strtol(s, &end, 10) : -1;
  return v >= 0 && !*end && v <= max ? v : -1;
}

int nmt_shortlist_parse(const char *const *v, int n, nmt_shortlist_spec *s) {
  *s = (nmt_shortlist_spec){0};
  if (n == 1) {
    long f = count(v[0], 10000000);
    if (f < 0)
      return nmt_fail(NMT_EUSAGE, "--shortlist must be an integer between 0 and 10000000 (got %s), or FILE FIRST BEST [PRUNE]",
                      v[0]);
    s->frequent = (int)f;
    return NMT_OK;
  }
  if (n != 3 && n != 4) return nmt_fail(NMT_EUSAGE, "--shortlist takes N, or FILE FIRST BEST [PRUNE] (%d values given)", n);
  long first = count(v[1], 10000000), best = count(v[2], 100000);
  char *end;
  s->prune = n == 4 ? strtod(v[3], &end) : 0;
  if (first < 0 || best < 0) return nmt_fail(NMT_EUSAGE, "--shortlist %s %s %s: FIRST and BEST are numbers of words", v[0], v[1], v[2]);
  if (n == 4 && (*end || !(s->prune >= 0 && s->prune <= 1)))
    return nmt_fail(NMT_EUSAGE, "--shortlist ... %s: PRUNE is a probability from 0 to 1", v[3]);
  s->path = v[0], s->first = (int)first, s->best = (int)best;
  return NMT_OK;
}

int nmt_shortlist_load(const nmt_shortlist_spec *s, const nmt_vocab *src, const nmt_vocab *tgt, nmt_lex *l) {
  *l = (nmt_lex){0};
  return s->path ? nmt_lex_load(l, s->path, src, tgt, s->first, s->best, s->prune) : NMT_OK;
}

int nmt_lex_load(nmt_lex *l, const char *path, const nmt_vocab *src, const nmt_vocab *tgt, int first,
                 int best, double prune) {
  *l = (nmt_lex){.first = first, .nsrc = nmt_vocab_size(src), .ntgt = nmt_vocab_size(tgt)};
  if (first < 0 || best < 0) return nmt_fail(NMT_EUSAGE, "--shortlist %s: FIRST and BEST must be >= 0", path);
  reading r = {src, tgt, NULL, 0, 0};
  int st = nmt_each_utf8_line(path, read_line, &r);
  if (!st) {
    qsort(r.v, r.n, sizeof *r.v, by_source);
    st = keep_best(l, r.v, r.n, best, prune);
  }
  free(r.v);
  if (st) nmt_lex_free(l);
  return st;
}

void nmt_lex_free(nmt_lex *l) {
  free(l->start), free(l->tgt);
  *l = (nmt_lex){0};
}

void nmt_lex_mark(const nmt_lex *l, const int *src, int n, int *mark) {
  for (int i = 0; i < n; i++)
    if (src[i] >= 0 && src[i] < l->nsrc)
      for (int j = l->start[src[i]]; j < l->start[src[i] + 1]; j++) mark[l->tgt[j]] = 1;
}

int nmt_lex_gather(const nmt_lex *l, int at_least, int *mark) {
  int V = l->ntgt, first = l->first > at_least ? l->first : at_least, n = 0;
  first = first > NMT_NSPECIALS ? first : NMT_NSPECIALS;
  for (int t = 0; t < V; t++)
    if (t < first || mark[t]) mark[n++] = t; /* n <= t: a mark is read before its slot is written */
  return n;
}
