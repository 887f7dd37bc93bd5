/* Windowed batch translation of a line stream; see decode_tool.h. */
#include "decode_search.h"
#include "decode_text.h"
#include "decode_tool.h"
#include "err.h"
#include "io.h"
#include "utf8.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  int *ids;
  int n, cap;
  nmt_nbest out;
} line_job;

typedef struct {
  nmt_model *m;
  const decode_args *a;
  nmt_search_opts so;
  nmt_luong_dec dec;
  line_job *jobs;
  int *order;    /* window lines with tokens, sorted by length */
  long first;    /* input line number (0-based) of jobs[0] */
} stream;

static const line_job *sort_jobs; /* qsort has no context argument */

static int by_length(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y, d = sort_jobs[a].n - sort_jobs[b].n;
  return d ? d : a - b;
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
  }
  free(src), free(len), free(out);
  return st;
}

static int write_hyp(stream *s, nmt_writer *w, long lineno, const nmt_hyp *h, nmt_strbuf *text) {
  text->len = 0;
  int st = h ? nmt_ids_text(s->m->tgt, h->ids, h->n, !s->a->no_postprocess, text) : NMT_OK;
  if (!st && s->a->n_best)
    st = nmt_writer_printf(w, "%ld ||| %.*s ||| %.6f\n", lineno, (int)text->len, text->s ? text->s : "",
                           h ? (double)h->score : 0.0);
  else if (!st)
    st = nmt_writer_line(w, text->s ? text->s : "", text->len);
  return st;
}

static int write_window(stream *s, int n, nmt_writer *w) {
  nmt_strbuf text = {0};
  int st = NMT_OK;
  for (int i = 0; i < n && !st; i++) {
    const nmt_nbest *nb = &s->jobs[i].out;
    int shown = s->a->n_best ? nb->n : 1;
    for (int j = 0; j < shown && !st; j++) st = write_hyp(s, w, s->first + i, nb->n ? &nb->hyps[j] : NULL, &text);
    if (!st && s->a->n_best && !nb->n) st = write_hyp(s, w, s->first + i, NULL, &text);
  }
  for (int i = 0; i < n; i++) nmt_nbest_free(&s->jobs[i].out);
  free(text.s);
  return st;
}

/* Read up to `cap` lines into jobs; returns how many (0 at the end), -1 on error. */
static int read_window(stream *s, nmt_reader *r, int cap) {
  int n = 0;
  char *line;
  size_t len;
  int k;
  while (n < cap && (k = nmt_reader_next(r, &line, &len)) == 1) {
    line_job *j = &s->jobs[n++];
    j->n = 0;
    if (nmt_utf8_check_line(line, len, nmt_reader_name(r), nmt_reader_lineno(r)) ||
        nmt_vocab_encode(s->m->src, line, len, &j->ids, &j->n, &j->cap))
      return -1;
  }
  return n < cap && k < 0 ? -1 : n;
}

int decode_stream(nmt_model *m, const decode_args *a) {
  int cap = (int)(a->mini_batch * a->maxi_batch);
  stream s = {m, a, {(int)a->beam, (float)a->normalize, (float)a->max_length_factor}, {0},
              calloc((size_t)cap, sizeof(line_job)), malloc(sizeof(int) * (size_t)cap), 0};
  nmt_reader *r = NULL;
  nmt_writer *w = NULL;
  int st = s.jobs && s.order ? nmt_reader_open(&r, a->input) : nmt_fail(NMT_EIO, "out of memory");
  if (!st) st = nmt_writer_open(&w, a->output, 0);
  for (int n; !st && (n = read_window(&s, r, cap)) != 0; s.first += n) {
    if (n < 0) st = nmt_errcode();
    if (!st) st = translate_window(&s, n);
    if (!st) st = write_window(&s, n, w);
  }
  if (w) st = st ? (nmt_writer_abort(w), st) : nmt_writer_commit(w);
  if (r) nmt_reader_close(r);
  for (int i = 0; s.jobs && i < cap; i++) free(s.jobs[i].ids);
  free(s.jobs), free(s.order);
  nmt_luong_dec_free(&s.dec);
  return st;
}
