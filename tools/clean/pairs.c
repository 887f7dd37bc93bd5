/* Pair sources and sinks over nmt_reader/nmt_writer and lib/tsv. */
#include "pairs.h"
#include "base/err.h"
#include "io/io.h"
#include "io/tsv.h"
#include "base/utf8.h"
#include <stdlib.h>

struct pair_source {
  int format;
  nmt_reader *r[2]; /* two files */
  nmt_tsv *t;       /* or a table */
};

int pairs_open(pair_source **out, int format, const char *src_path, const char *tgt_path) {
  pair_source *ps = calloc(1, sizeof *ps);
  if (!ps) return nmt_fail(NMT_EIO, "out of memory");
  ps->format = format;
  int st = format < 0 ? nmt_reader_open(&ps->r[0], src_path) : nmt_tsv_open(&ps->t, src_path, format);
  if (!st && format < 0) st = nmt_reader_open(&ps->r[1], tgt_path);
  if (st) { pairs_close(ps); return st; }
  *out = ps;
  return NMT_OK;
}

/* One side ended first: count the rest of the other for the message. */
static int unequal(pair_source *ps, int longer) {
  char *line;
  size_t n;
  int got;
  while ((got = nmt_reader_next(ps->r[longer], &line, &n)) > 0) {}
  if (got < 0) return -1;
  nmt_fail(NMT_EINPUT, "%s has %ld lines but %s has %ld: the sides must be line-aligned",
           nmt_reader_name(ps->r[0]), nmt_reader_lineno(ps->r[0]), nmt_reader_name(ps->r[1]),
           nmt_reader_lineno(ps->r[1]));
  return -1;
}

static void check_utf8(pair *p, const char *src_name, const char *tgt_name) {
  size_t bad = nmt_utf8_invalid(p->src, p->src_len);
  if (bad < p->src_len) { p->bad_file = src_name; p->bad_byte = (long)bad; return; }
  bad = nmt_utf8_invalid(p->tgt, p->tgt_len);
  if (bad < p->tgt_len) { p->bad_file = tgt_name; p->bad_byte = (long)bad; }
}

static int next_from_files(pair_source *ps, pair *p) {
  char *line[2];
  size_t n[2];
  int got[2];
  for (int i = 0; i < 2; i++)
    if ((got[i] = nmt_reader_next(ps->r[i], &line[i], &n[i])) < 0) return -1;
  if (got[0] != got[1]) return unequal(ps, got[0] ? 0 : 1);
  if (!got[0]) return 0;
  *p = (pair){line[0], line[1], n[0], n[1], nmt_reader_lineno(ps->r[0]), NULL, -1};
  check_utf8(p, nmt_reader_name(ps->r[0]), nmt_reader_name(ps->r[1]));
  return 1;
}

static int next_from_table(pair_source *ps, pair *p) {
  nmt_tsv_row row;
  int got = nmt_tsv_next(ps->t, &row);
  if (got <= 0) return got;
  *p = (pair){"", "", 0, 0, row.line, NULL, -1};
  if (row.invalid_utf8) { p->bad_file = nmt_tsv_name(ps->t); return 1; }
  if (row.n != 2) {
    nmt_fail(NMT_EINPUT, "%s:%ld: %d field%s, expected 2 (source%starget)", nmt_tsv_name(ps->t),
             row.line, row.n, row.n == 1 ? "" : "s", ps->format == NMT_CSV ? "," : "<TAB>");
    return -1;
  }
  p->src = row.field[0], p->src_len = row.len[0];
  p->tgt = row.field[1], p->tgt_len = row.len[1];
  return 1;
}

int pairs_next(pair_source *ps, pair *p) {
  return ps->format < 0 ? next_from_files(ps, p) : next_from_table(ps, p);
}

bool pairs_stalled(const pair_source *ps) { return ps->t && nmt_tsv_stalled(ps->t); }

const char *pairs_name(const pair_source *ps, int side) {
  return ps->t ? nmt_tsv_name(ps->t) : nmt_reader_name(ps->r[side]);
}

void pairs_close(pair_source *ps) {
  if (!ps) return;
  nmt_reader_close(ps->r[0]);
  nmt_reader_close(ps->r[1]);
  nmt_tsv_close(ps->t);
  free(ps);
}

struct pair_sink {
  int format;
  nmt_writer *w[2]; /* w[1] only for two files */
};

int pairs_sink_open(pair_sink **out, int format, const char *src_path, const char *tgt_path, int flags) {
  pair_sink *s = calloc(1, sizeof *s);
  if (!s) return nmt_fail(NMT_EIO, "out of memory");
  s->format = format;
  int st = nmt_writer_open(&s->w[0], src_path, flags);
  if (!st && format < 0) st = nmt_writer_open(&s->w[1], tgt_path, flags);
  if (st) { nmt_writer_abort(s->w[0]); free(s); return st; }
  *out = s;
  return NMT_OK;
}

int pairs_sink_write(pair_sink *s, const char *src, size_t src_len, const char *tgt, size_t tgt_len) {
  if (s->format >= 0)
    return nmt_tsv_write(s->w[0], s->format, 2, (const char *[]){src, tgt}, (size_t[]){src_len, tgt_len});
  if (nmt_writer_line(s->w[0], src, src_len)) return NMT_EIO;
  return nmt_writer_line(s->w[1], tgt, tgt_len);
}

int pairs_sink_flush(pair_sink *s) {
  int st = NMT_OK;
  for (int i = 0; i < 2 && s->w[i] && !st; i++) st = nmt_writer_flush(s->w[i]);
  return st;
}

int pairs_sink_commit(pair_sink *s, nmt_writer *extra) {
  nmt_writer *all[3] = {s->w[0], s->w[1], extra};
  free(s);
  return nmt_writers_commit(all, 3);
}
