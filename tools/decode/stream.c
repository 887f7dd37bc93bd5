/* Windowed batch translation of a line stream; see decode_tool.h. */
#include "decode_align.h"
#include "decode_search.h"
#include "decode_text.h"
#include "decode_tool.h"
#include "err.h"
#include "io.h"
#include "utf8.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SHOWN_WARNINGS = 10 };

typedef struct {
  int *ids;
  int n, cap;
  nmt_nbest out;
  int *align; /* --alignment: the source position of each shown hypothesis's tokens, one after another */
} line_job;

typedef struct {
  nmt_model *m;
  const decode_args *a;
  nmt_search_opts so;
  nmt_dec dec;
  nmt_text *text;
  line_job *jobs;
  int *order;    /* window lines with tokens, sorted by length */
  long first;    /* input line number (0-based) of jobs[0] */
  long warnings;
} stream;

static void warn(stream *s, const char *msg) {
  if (s->warnings++ < SHOWN_WARNINGS) nmt_warn(PROG, "%s", msg);
}

static const line_job *sort_jobs; /* qsort has no context argument */

static int by_length(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y, d = sort_jobs[a].n - sort_jobs[b].n;
  return d ? d : a - b;
}

/* The alignments of the hypotheses shown for lines jobs[idx[0..nb)]. */
static int align_batch(stream *s, const int *idx, int nb) {
  int shown = s->a->n_best ? s->a->beam : 1, R = 0, st = NMT_OK;
  size_t rows = (size_t)nb * shown;
  const int **src = malloc(sizeof *src * rows), **tgt = malloc(sizeof *tgt * rows);
  int *src_n = malloc(sizeof *src_n * rows), *tgt_n = malloc(sizeof *tgt_n * rows);
  int **out = malloc(sizeof *out * rows);
  if (!src || !tgt || !src_n || !tgt_n || !out) st = nmt_fail(NMT_EIO, "out of memory");
  for (int b = 0; b < nb && !st; b++) {
    line_job *j = &s->jobs[idx[b]];
    int k = j->out.n < shown ? j->out.n : shown, total = 0;
    for (int h = 0; h < k; h++) total += j->out.hyps[h].n;
    free(j->align);
    if (!(j->align = malloc(sizeof *j->align * (size_t)(total + 1)))) st = nmt_fail(NMT_EIO, "out of memory");
    for (int h = 0, at = 0; h < k && !st; h++, R++) {
      const nmt_hyp *hyp = &j->out.hyps[h];
      src[R] = j->ids, src_n[R] = j->n, tgt[R] = hyp->ids, tgt_n[R] = hyp->n, out[R] = j->align + at;
      at += hyp->n;
    }
  }
  if (!st) st = nmt_align(&s->dec, &s->m->net, &s->m->params, src, src_n, tgt, tgt_n, R, out);
  free(src), free(tgt), free(src_n), free(tgt_n), free(out);
  return st;
}

static int translate_window(stream *s, int n) {
  int k = 0, st = NMT_OK;
  for (int i = 0; i < n; i++)
    if (s->jobs[i].n) s->order[k++] = i;
  sort_jobs = s->jobs;
  qsort(s->order, (size_t)k, sizeof *s->order, by_length);
  int B = (int)s->a->mini_batch;
  const int **src = malloc(sizeof *src * (size_t)B);
  int *len = malloc(sizeof *len * (size_t)B);
  nmt_nbest *out = malloc(sizeof *out * (size_t)B);
  if (!src || !len || !out) st = nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; !st && i < k; i += B) {
    int nb = k - i < B ? k - i : B;
    for (int b = 0; b < nb; b++) src[b] = s->jobs[s->order[i + b]].ids, len[b] = s->jobs[s->order[i + b]].n;
    st = nmt_search(&s->dec, &s->m->net, &s->m->params, src, len, nb, &s->so, out);
    for (int b = 0; b < nb; b++) s->jobs[s->order[i + b]].out = out[b];
    if (!st && s->a->alignment) st = align_batch(s, s->order + i, nb);
  }
  free(src), free(len), free(out);
  return st;
}

/* " ||| 0-0 1-2 ...": source-target pairs of target tokens [0, n). */
static int add_alignment(nmt_strbuf *b, const int *align, int n) {
  int st = nmt_strbuf_add(b, " ||| ", 5);
  for (int t = 0; t < n && !st; t++) {
    char pair[32];
    st = nmt_strbuf_add(b, pair, (size_t)snprintf(pair, sizeof pair, t ? " %d-%d" : "%d-%d", align[t], t));
  }
  return st ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

/* One output line: hypothesis h (NULL: an empty line) of input line `lineno`,
 * with its alignment `align` when asked. */
static int write_hyp(stream *s, nmt_writer *w, long lineno, const nmt_hyp *h, const int *align,
                     nmt_strbuf *line) {
  line->len = 0;
  int st = NMT_OK;
  if (s->a->n_best) {
    char head[32];
    if (nmt_strbuf_add(line, head, (size_t)snprintf(head, sizeof head, "%ld ||| ", lineno)))
      st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (!st && h) st = nmt_text_target(s->text, h->ids, h->n, line);
  if (!st && s->a->alignment) st = add_alignment(line, align, h ? h->n : 0);
  if (!st && s->a->n_best) {
    char score[48];
    if (nmt_strbuf_add(line, score, (size_t)snprintf(score, sizeof score, " ||| %.6f", h ? (double)h->score : 0.0)))
      st = nmt_fail(NMT_EIO, "out of memory");
  }
  return st ? st : nmt_writer_line(w, line->s ? line->s : "", line->len);
}

static int write_window(stream *s, int n, nmt_writer *w) {
  nmt_strbuf line = {0};
  int st = NMT_OK;
  for (int i = 0; i < n && !st; i++) {
    const line_job *j = &s->jobs[i];
    int shown = s->a->n_best ? j->out.n : 1, at = 0;
    for (int h = 0; h < shown && !st; h++) {
      const nmt_hyp *hyp = j->out.n ? &j->out.hyps[h] : NULL;
      st = write_hyp(s, w, s->first + i, hyp, j->align + at, &line);
      at += hyp ? hyp->n : 0;
    }
    if (!st && s->a->n_best && !j->out.n) st = write_hyp(s, w, s->first + i, NULL, NULL, &line);
  }
  for (int i = 0; i < n; i++) nmt_nbest_free(&s->jobs[i].out);
  free(line.s);
  return st;
}

/* The ids of one input line; a line that cannot be translated (invalid UTF-8)
 * is left empty with a warning, one over --max-length is cut. */
static int read_line(stream *s, line_job *j, const char *line, size_t len, const char *name, long lineno) {
  char msg[512];
  j->n = 0;
  if (nmt_utf8_check_line(line, len, name, lineno)) {
    snprintf(msg, sizeof msg, "%s; its output line is empty", nmt_errmsg());
    warn(s, msg);
    return NMT_OK;
  }
  const char *toks;
  size_t ntoks;
  int st = nmt_text_source(s->text, line, len, &toks, &ntoks);
  if (!st) st = nmt_vocab_encode(s->m->src, toks, ntoks, &j->ids, &j->n, &j->cap);
  if (!st && j->n > s->a->max_length) {
    snprintf(msg, sizeof msg, "%s:%ld: %d subwords, translating the first %ld (--max-length)", name, lineno,
             j->n, s->a->max_length);
    warn(s, msg);
    j->n = (int)s->a->max_length;
  }
  return st;
}

/* Read up to `cap` lines into jobs; returns how many (0 at the end), -1 on error. */
static int read_window(stream *s, nmt_reader *r, int cap) {
  int n = 0, k;
  char *line;
  size_t len;
  while (n < cap && (k = nmt_reader_next(r, &line, &len)) == 1)
    if (read_line(s, &s->jobs[n++], line, len, nmt_reader_name(r), nmt_reader_lineno(r))) return -1;
  return n < cap && k < 0 ? -1 : n;
}

int decode_stream(nmt_model *m, const decode_args *a) {
  int cap = (int)(a->mini_batch * a->maxi_batch);
  stream s = {.m = m, .a = a, .so = {(int)a->beam, (float)a->normalize, (float)a->max_length_factor},
              .dec = {.shortlist = (int)a->shortlist},
              .jobs = calloc((size_t)cap, sizeof(line_job)), .order = malloc(sizeof(int) * (size_t)cap)};
  nmt_reader *r = NULL;
  nmt_writer *w = NULL;
  int st = s.jobs && s.order ? nmt_text_new(&s.text, m, a->model, a->raw, !a->no_postprocess)
                             : nmt_fail(NMT_EIO, "out of memory");
  if (!st) st = nmt_reader_open(&r, a->input);
  if (!st) st = nmt_writer_open(&w, a->output, 0);
  for (int n; !st && (n = read_window(&s, r, cap)) != 0; s.first += n) {
    if (n < 0) st = nmt_errcode();
    if (!st) st = translate_window(&s, n);
    if (!st) st = write_window(&s, n, w);
  }
  if (w) st = st ? (nmt_writer_abort(w), st) : nmt_writer_commit(w);
  if (!st && s.warnings > SHOWN_WARNINGS)
    nmt_warn(PROG, "%ld warnings in all, the first %d shown", s.warnings, SHOWN_WARNINGS);
  if (r) nmt_reader_close(r);
  for (int i = 0; s.jobs && i < cap; i++) free(s.jobs[i].ids), free(s.jobs[i].align);
  free(s.jobs), free(s.order);
  nmt_text_free(s.text);
  nmt_dec_free(&s.dec);
  return st;
}
