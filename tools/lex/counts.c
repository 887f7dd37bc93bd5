/* Counting a corpus's links into a lexical table (lex_tool.h). */
#include "lex_tool.h"
#include "base/err.h"
#include <stdlib.h>
#include <string.h>

int lex_counts_init(lex_counts *c) {
  *c = (lex_counts){.src = nmt_strmap_new(), .tgt = nmt_strmap_new()};
  return c->src && c->tgt ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
}

void lex_counts_free(lex_counts *c) {
  nmt_strmap_free(c->src), nmt_strmap_free(c->tgt);
  nmt_u64map_free(&c->pairs);
  free(c->links), free(c->si), free(c->ti);
  nmt_tokens_free(&c->ts), nmt_tokens_free(&c->tt);
  *c = (lex_counts){0};
}

/* The line's words interned into ids (room for t->count), or NMT_EIO. */
static int intern(nmt_strmap *m, nmt_tokens *t, const char *line, int32_t **ids, size_t *cap) {
  if (nmt_tokens_split(t, line, strlen(line))) return NMT_EIO;
  if ((size_t)t->count > *cap) {
    int32_t *x = realloc(*ids, sizeof *x * (size_t)t->count);
    if (!x) return nmt_fail(NMT_EIO, "out of memory");
    *ids = x, *cap = (size_t)t->count;
  }
  for (int i = 0; i < t->count; i++)
    if (((*ids)[i] = nmt_strmap_intern(m, t->s[i], t->n[i])) < 0) return nmt_fail(NMT_EIO, "out of memory");
  return NMT_OK;
}

/* One more link from source word s (t < 0: to nothing). */
static int link(lex_counts *c, int32_t s, int32_t t) {
  if ((size_t)s >= c->cap_links) {
    size_t cap = 2 * (size_t)s + 1024;
    long *x = realloc(c->links, sizeof *x * cap);
    if (!x) return nmt_fail(NMT_EIO, "out of memory");
    memset(x + c->cap_links, 0, sizeof *x * (cap - c->cap_links));
    c->links = x, c->cap_links = cap;
  }
  c->links[s]++;
  uint64_t *n = t < 0 ? &(uint64_t){0} : nmt_u64map_put(&c->pairs, (uint64_t)s << 32 | (uint32_t)t, 0, NULL);
  if (!n) return nmt_fail(NMT_EIO, "out of memory");
  ++*n;
  return NMT_OK;
}

/* "i-j" at *p into i and j (digits alone), moving past it and the spaces after. */
static bool link_at(char **p, long *i, long *j) {
  char *s = *p, *e;
  if (*s < '0' || *s > '9') return false;
  *i = strtol(s, &e, 10);
  if (*e != '-' || e[1] < '0' || e[1] > '9') return false;
  *j = strtol(e + 1, &e, 10);
  if (*e && *e != ' ') return false;
  while (*e == ' ') e++;
  *p = e;
  return true;
}

int lex_counts_add(lex_counts *c, char *src, char *tgt, char *align, const char *name, long lineno) {
  nmt_tokens *ts = &c->ts, *tt = &c->tt;
  bool *linked = NULL;
  for (char *bar; (bar = strstr(align, " ||| "));) align = bar + 5;
  int st = intern(c->src, ts, src, &c->si, &c->cap_s);
  if (!st) st = intern(c->tgt, tt, tgt, &c->ti, &c->cap_t);
  if (!st && !(linked = calloc((size_t)ts->count + 1, 1))) st = nmt_fail(NMT_EIO, "out of memory");
  char *p = align;
  while (*p == ' ') p++;
  long i, j;
  while (!st && *p) {
    char *at = p;
    if (!link_at(&p, &i, &j) || i >= ts->count || j >= tt->count)
      st = nmt_fail(NMT_EINPUT, "%s:%ld: link '%.*s' is not i-j within the pair's %d source and %d target words",
                    name, lineno, (int)strcspn(at, " "), at, ts->count, tt->count);
    else
      linked[i] = true, st = link(c, c->si[i], c->ti[j]);
  }
  for (int k = 0; !st && k < ts->count; k++)
    if (!linked[k]) st = link(c, c->si[k], -1);
  free(linked);
  return st;
}

typedef struct {
  const lex_counts *c;
  int32_t s, t;
  double p;
} entry;

static int by_source(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int d = strcmp(nmt_strmap_str(x->c->src, x->s), nmt_strmap_str(y->c->src, y->s));
  if (d) return d;
  if (x->p != y->p) return x->p > y->p ? -1 : 1;
  return strcmp(nmt_strmap_str(x->c->tgt, x->t), nmt_strmap_str(y->c->tgt, y->t));
}

int lex_counts_write(const lex_counts *c, nmt_writer *w, long min_count) {
  entry *e = malloc(sizeof *e * (c->pairs.n ? c->pairs.n : 1));
  if (!e) return nmt_fail(NMT_EIO, "out of memory");
  size_t n = 0;
  for (size_t k = 0; c->pairs.n && k <= c->pairs.mask; k++) {
    uint64_t key = c->pairs.keys[k];
    if (key == UINT64_MAX || c->pairs.vals[k] < (uint64_t)min_count) continue;
    int32_t s = (int32_t)(key >> 32);
    e[n++] = (entry){c, s, (int32_t)(uint32_t)key, (double)c->pairs.vals[k] / (double)c->links[s]};
  }
  qsort(e, n, sizeof *e, by_source);
  int st = NMT_OK;
  for (size_t k = 0; k < n && !st; k++)
    st = nmt_writer_printf(w, "%s %s %.6g\n", nmt_strmap_str(c->tgt, e[k].t), nmt_strmap_str(c->src, e[k].s), e[k].p);
  free(e);
  return st;
}
