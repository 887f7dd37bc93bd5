/* Rescoring an n-best list (Marian's format, as nmt-decode --n-best writes it):
 * each hypothesis of sentence i is scored against line i of the source, and the
 * score joins the features field as "NAME= score"; everything else is kept. */
#include "base/err.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "decode/score.h"
#include "score_tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One hypothesis: its line, its source's and its own ids. */
typedef struct {
  char *line;
  size_t len, cap;
  int *src, *tgt;
  int src_n, tgt_n, src_cap, tgt_cap;
} entry;

/* The source sentence the list has reached: its number (0-based) and ids. */
typedef struct {
  nmt_reader *r;
  long at; /* -1 before the first line */
  int *ids, n, cap;
} source;

/* Read src up to sentence `id` (the list's ids only grow). */
static int seek_source(source *s, const nmt_model *m, long id, const char *name, long lineno) {
  if (id < s->at)
    return nmt_fail(NMT_EINPUT, "%s:%ld: sentence %ld after %ld: an n-best list is in sentence order", name, lineno,
                    id, s->at);
  while (s->at < id) {
    char *line;
    size_t len;
    int r = nmt_reader_next(s->r, &line, &len);
    if (r < 0) return nmt_errcode();
    if (!r)
      return nmt_fail(NMT_EINPUT, "%s:%ld: sentence %ld, but %s has %ld lines", name, lineno, id,
                      nmt_reader_name(s->r), s->at + 1);
    s->at++;
    if (nmt_utf8_check_line(line, len, nmt_reader_name(s->r), nmt_reader_lineno(s->r))) return NMT_EINPUT;
    s->n = 0; /* nmt_vocab_encode appends */
    int st = nmt_vocab_encode(m->src, line, len, &s->ids, &s->n, &s->cap);
    if (st) return st;
  }
  return NMT_OK;
}

/* Parse one n-best line into e: "i ||| hypothesis ||| ... ||| features ||| total". */
static int parse_line(entry *e, source *s, const nmt_model *m, const char *line, size_t len, const char *name,
                      long lineno) {
  if (nmt_utf8_check_line(line, len, name, lineno)) return NMT_EINPUT;
  const char *sep1 = strstr(line, " ||| "), *sep2 = sep1 ? strstr(sep1 + 5, " ||| ") : NULL;
  char *end;
  long id = strtol(line, &end, 10);
  if (!sep2 || end != sep1 || id < 0 || !strstr(sep2 + 5, " ||| "))
    return nmt_fail(NMT_EINPUT, "%s:%ld: not an n-best line (i ||| hypothesis ||| features ||| total)", name, lineno);
  int st = seek_source(s, m, id, name, lineno);
  if (st) return st;
  const char *hyp = sep1 + 5;
  e->tgt_n = 0;
  if ((st = nmt_vocab_encode(m->tgt, hyp, (size_t)(sep2 - hyp), &e->tgt, &e->tgt_n, &e->tgt_cap))) return st;
  if (e->src_cap < s->n + 1) {
    int *p = realloc(e->src, sizeof *p * (size_t)(s->n + 1));
    if (!p) return nmt_fail(NMT_EIO, "out of memory");
    e->src = p, e->src_cap = s->n + 1;
  }
  memcpy(e->src, s->ids, sizeof *s->ids * (size_t)s->n);
  e->src_n = s->n;
  nmt_strbuf b = {e->line, 0, e->cap};
  st = nmt_strbuf_add(&b, line, len);
  e->line = b.s, e->len = b.len, e->cap = b.cap;
  return st;
}

/* The line with " NAME= score" at the end of its features field (before the last " ||| "). */
static int write_entry(nmt_writer *w, const entry *e, const char *feature, double lp, nmt_strbuf *out) {
  const char *last = e->line, *p;
  while ((p = strstr(last + 1, " ||| "))) last = p;
  out->len = 0;
  int st = nmt_strbuf_add(out, e->line, (size_t)(last - e->line));
  if (!st) st = nmt_strbuf_addf(out, " %s= %.6f", feature, lp);
  if (!st) st = nmt_strbuf_add(out, last, e->len - (size_t)(last - e->line));
  return st ? st : nmt_writer_line(w, out->s, out->len);
}

int score_nbest(const nmt_ensemble *ens, const score_args *a, nmt_reader *src, nmt_reader *nbest, nmt_writer *w) {
  const nmt_model *m = &ens->model[0]; /* its vocabularies read the text */
  int B = (int)a->mini_batch, st = NMT_OK;
  entry *e = calloc((size_t)B, sizeof *e);
  const int **s = malloc(sizeof *s * (size_t)B), **t = malloc(sizeof *t * (size_t)B);
  int *sn = malloc(sizeof *sn * (size_t)B), *tn = malloc(sizeof *tn * (size_t)B);
  double *lp = malloc(sizeof *lp * (size_t)B);
  source cur = {src, -1, NULL, 0, 0};
  nmt_dec d = {0};
  nmt_strbuf out = {0};
  if (!e || !s || !t || !sn || !tn || !lp) st = nmt_fail(NMT_EIO, "out of memory");
  for (bool end = false; !st && !end;) {
    int n = 0;
    for (; n < B && !st; n++) {
      char *line;
      size_t len;
      int r = nmt_reader_next(nbest, &line, &len);
      if (r < 0) st = nmt_errcode();
      if (r <= 0) {
        end = true;
        break;
      }
      st = parse_line(&e[n], &cur, m, line, len, nmt_reader_name(nbest), nmt_reader_lineno(nbest));
      s[n] = e[n].src, sn[n] = e[n].src_n, t[n] = e[n].tgt, tn[n] = e[n].tgt_n;
    }
    if (st || !n) break;
    st = nmt_score(&d, &ens->dec, s, sn, t, tn, n, lp, NULL);
    for (int i = 0; i < n && !st; i++) st = write_entry(w, &e[i], a->feature, lp[i], &out);
  }
  for (int i = 0; e && i < B; i++) free(e[i].line), free(e[i].src), free(e[i].tgt);
  free(e), free(s), free(t), free(sn), free(tn), free(lp), free(cur.ids), free(out.s);
  nmt_dec_free(&d);
  return st;
}
