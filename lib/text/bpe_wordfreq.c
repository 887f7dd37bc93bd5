/* Word counts in order of first appearance (subword-nmt's Counter). Text is
 * read whole (learning needs every word anyway) and counted by two threads. */
#include "text/bpe.h"
#include "text/bpe_internal.h"
#include "base/err.h"
#include "base/pool.h"
#include "base/utf8.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int nmt_wordfreq_new(nmt_wordfreq **out) {
  nmt_wordfreq *wf = calloc(1, sizeof *wf);
  if (!wf || !(wf->words = nmt_strmap_new())) {
    free(wf);
    return nmt_fail(NMT_EIO, "out of memory");
  }
  *out = wf;
  return NMT_OK;
}

void nmt_wordfreq_free(nmt_wordfreq *wf) {
  if (!wf) return;
  nmt_strmap_free(wf->words);
  free(wf->counts);
  free(wf);
}

int nmt_wordfreq_add(nmt_wordfreq *wf, const char *word, size_t n, long count) {
  int32_t id = nmt_strmap_intern(wf->words, word, n);
  if (id < 0) return nmt_fail(NMT_EIO, "out of memory");
  if (id == wf->cap) {
    int32_t cap = wf->cap ? wf->cap * 2 : 4096;
    int64_t *c = realloc(wf->counts, (size_t)cap * sizeof *c);
    if (!c) return nmt_fail(NMT_EIO, "out of memory");
    wf->counts = c;
    wf->cap = cap;
  }
  if (id == wf->n) wf->counts[wf->n++] = 0;
  wf->counts[id] += count;
  return NMT_OK;
}

void nmt_bpe_strip(const char **s, size_t *n) {
  const char *p = *s, *e = *s + *n;
  while (p < e && (*p == ' ' || *p == '\r' || *p == '\n')) p++;
  while (e > p && (e[-1] == ' ' || e[-1] == '\r' || e[-1] == '\n')) e--;
  *s = p;
  *n = (size_t)(e - p);
}

int nmt_wordfreq_add_line(nmt_wordfreq *wf, const char *line, size_t len) {
  nmt_bpe_strip(&line, &len);
  const char *p = line, *end = line + len;
  while (p < end) {
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    if (!sp) sp = end;
    if (sp > p && nmt_wordfreq_add(wf, p, (size_t)(sp - p), 1)) return NMT_EIO;
    p = sp + 1;
  }
  return NMT_OK;
}

/* "WORD COUNT": exactly one space between two fields after stripping. */
static int add_dict_line(nmt_wordfreq *wf, const char *line, size_t len, const char *name, long lineno) {
  nmt_bpe_strip(&line, &len);
  const char *sp = memchr(line, ' ', len);
  const char *num = sp ? sp + 1 : NULL;
  size_t numlen = sp ? (size_t)(line + len - num) : 0;
  char buf[32];
  if (!sp || sp == line || !numlen || memchr(num, ' ', numlen) || numlen >= sizeof buf)
    return nmt_fail(NMT_EINPUT, "%s:%ld: expected 'WORD COUNT'", name, lineno);
  memcpy(buf, num, numlen);
  buf[numlen] = 0;
  char *e;
  errno = 0;
  long count = strtol(buf, &e, 10);
  if (*e || errno) return nmt_fail(NMT_EINPUT, "%s:%ld: count is not an integer: '%s'", name, lineno, buf);
  return nmt_wordfreq_add(wf, line, (size_t)(sp - line), count);
}


/* Words of the lines in text[0..n). */
static int count_text(nmt_wordfreq *wf, const char *text, size_t n) {
  const char *p = text, *end = text + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) nl = end;
    if (nmt_wordfreq_add_line(wf, p, (size_t)(nl - p))) return NMT_EIO;
    p = nl + 1;
  }
  return NMT_OK;
}

typedef struct {
  nmt_wordfreq *wf;
  const char *text;
  size_t n;
  int st;
} count_job;

static void count_part(void *ctx, int part, int parts) {
  count_job *j = (count_job *)ctx + part;
  j->st = count_text(j->wf, j->text, j->n);
}

/* Add `from` to `to`: words new to `to` keep their order of first appearance. */
static int merge_counts(nmt_wordfreq *to, const nmt_wordfreq *from) {
  for (int32_t id = 0; id < from->n; id++)
    if (nmt_wordfreq_add(to, nmt_strmap_str(from->words, id), nmt_strmap_len(from->words, id), from->counts[id]))
      return NMT_EIO;
  return NMT_OK;
}

/* Big texts are counted by two threads, the second half into its own table,
 * merged after the first so the order of first appearance is kept. */
enum { THREAD_MIN_BYTES = 1 << 20 };

static int count_text_parallel(nmt_wordfreq *wf, const char *text, size_t n) {
  const char *mid = n >= THREAD_MIN_BYTES ? memchr(text + n / 2, '\n', n - n / 2) : NULL;
  if (!mid) return count_text(wf, text, n);
  count_job half[2] = {{wf, text, (size_t)(mid - text), NMT_OK},
                       {NULL, mid + 1, (size_t)(text + n - mid - 1), NMT_OK}};
  int st = nmt_wordfreq_new(&half[1].wf);
  if (st) return st;
  nmt_pool_run(2, count_part, half);
  st = half[0].st ? half[0].st : half[1].st;
  if (!st) st = merge_counts(wf, half[1].wf);
  nmt_wordfreq_free(half[1].wf);
  return st;
}

static int dict_line(void *wf, char *line, size_t len, const char *name, long lineno) {
  return add_dict_line(wf, line, len, name, lineno);
}

static int read_dict(nmt_wordfreq *wf, const char *path) { return nmt_each_utf8_line(path, dict_line, wf); }

int nmt_wordfreq_read(nmt_wordfreq *wf, const char *path, bool dict) {
  if (dict) return read_dict(wf, path);
  char *text;
  size_t n;
  int st = nmt_read_file(path, &text, &n);
  if (st) return st;
  size_t bad = nmt_utf8_invalid(text, n);
  if (bad < n) { /* name the line: count the newlines before it */
    long line = 1;
    size_t start = 0;
    for (size_t i = 0; i < bad; i++)
      if (text[i] == '\n') { line++; start = i + 1; }
    st = nmt_fail(NMT_EINPUT, "%s:%ld: invalid UTF-8 at byte offset %zu",
                  strcmp(path, "-") ? path : "<stdin>", line, bad - start);
  } else {
    st = count_text_parallel(wf, text, n);
  }
  free(text);
  return st;
}

/* Ids by descending count, ties by id (first appearance). */
int32_t *nmt_wordfreq_sorted(const nmt_wordfreq *wf) {
  int32_t *ids = malloc(((size_t)wf->n + 1) * sizeof *ids);
  int32_t *tmp = malloc(((size_t)wf->n + 1) * sizeof *tmp);
  if (!ids || !tmp) { free(ids); free(tmp); return NULL; }
  for (int32_t i = 0; i < wf->n; i++) ids[i] = i;
  /* bottom-up merge sort: stable */
  for (int32_t w = 1; w < wf->n; w *= 2) {
    for (int32_t lo = 0; lo < wf->n; lo += 2 * w) {
      int32_t mid = lo + w < wf->n ? lo + w : wf->n, hi = lo + 2 * w < wf->n ? lo + 2 * w : wf->n;
      int32_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) tmp[o++] = wf->counts[ids[b]] > wf->counts[ids[a]] ? ids[b++] : ids[a++];
      while (a < mid) tmp[o++] = ids[a++];
      while (b < hi) tmp[o++] = ids[b++];
    }
    int32_t *t = ids; ids = tmp; tmp = t;
  }
  free(tmp);
  return ids;
}

int nmt_wordfreq_write(const nmt_wordfreq *wf, nmt_writer *w) {
  int32_t *ids = nmt_wordfreq_sorted(wf);
  if (!ids) return nmt_fail(NMT_EIO, "out of memory");
  int st = NMT_OK;
  for (int32_t i = 0; i < wf->n && !st; i++)
    st = nmt_writer_printf(w, "%s %lld\n", nmt_strmap_str(wf->words, ids[i]), (long long)wf->counts[ids[i]]);
  free(ids);
  return st;
}
