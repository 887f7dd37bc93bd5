/* TSV/CSV records: lines from nmt_reader fed to libcsv one at a time, so a
 * record always knows its line and at most one record ends per line. */
#include "io/tsv.h"
#include "base/checked.h"
#include "base/err.h"
#include "base/utf8.h"
#include <csv.h>
#include <stdlib.h>
#include <string.h>

/* TSV has no quote character; 0xFF never occurs in UTF-8, and lines that are
 * not UTF-8 never reach the parser. */
enum { NO_QUOTE = 0xFF };

struct nmt_tsv {
  nmt_reader *r;
  struct csv_parser p;
  int format;
  char *bytes;        /* fields of the current record, each NUL-terminated */
  size_t nbytes, capbytes;
  size_t *off, *len;  /* per field */
  char **field;
  int nf, capf;
  bool done;          /* a record ended during the last feed */
  bool bad;           /* the current record has a line that is not UTF-8 */
  long start;         /* line where the current record starts, 0 = none yet */
  int oom;
};

static int never(unsigned char c) { return 0; }
static int is_lf(unsigned char c) { return c == '\n'; }

int nmt_tsv_open(nmt_tsv **out, const char *path, int format) {
  nmt_tsv *t = calloc(1, sizeof *t);
  if (!t) return nmt_fail(NMT_EIO, "out of memory");
  int st = nmt_reader_open(&t->r, path);
  if (st) { free(t); return st; }
  csv_init(&t->p, CSV_REPALL_NL);
  csv_set_delim(&t->p, format == NMT_CSV ? ',' : '\t');
  csv_set_quote(&t->p, format == NMT_CSV ? '"' : NO_QUOTE);
  csv_set_space_func(&t->p, never); /* keep spaces: they are text */
  csv_set_term_func(&t->p, is_lf);
  t->format = format;
  *out = t;
  return NMT_OK;
}

static void on_field(void *s, size_t n, void *data) {
  nmt_tsv *t = data;
  if (t->nf == t->capf) {
    int cap = nmt_grow_int(t->capf, 8);
    size_t *o = cap > 0 ? realloc(t->off, sizeof *o * (size_t)cap) : NULL, *l = o ? realloc(t->len, sizeof *l * (size_t)cap) : NULL;
    char **f = l ? realloc(t->field, sizeof *f * (size_t)cap) : NULL;
    if (o) t->off = o;
    if (l) t->len = l;
    if (!f) { t->oom = 1; return; }
    t->field = f;
    t->capf = cap;
  }
  if (t->nbytes + n + 1 > t->capbytes) {
    size_t cap = t->capbytes ? t->capbytes : 1024;
    while (cap < t->nbytes + n + 1) cap *= 2;
    char *b = realloc(t->bytes, cap);
    if (!b) { t->oom = 1; return; }
    t->bytes = b;
    t->capbytes = cap;
  }
  if (n) memcpy(t->bytes + t->nbytes, s, n);
  t->bytes[t->nbytes + n] = 0;
  t->off[t->nf] = t->nbytes;
  t->len[t->nf++] = n;
  t->nbytes += n + 1;
}

static void on_record(int c, void *data) {
  nmt_tsv *t = data;
  if (t->nf == 0) on_field("", 0, t); /* an empty line: one empty field */
  t->done = true;
}

static void reset(nmt_tsv *t) {
  t->nf = 0;
  t->nbytes = 0;
  t->done = t->bad = false;
  t->start = 0;
}

static void fill_row(nmt_tsv *t, nmt_tsv_row *row) {
  for (int i = 0; i < t->nf; i++) t->field[i] = t->bytes + t->off[i];
  row->n = t->nf;
  row->field = t->field;
  row->len = t->len;
  row->line = t->start;
  row->invalid_utf8 = t->bad;
}

int nmt_tsv_next(nmt_tsv *t, nmt_tsv_row *row) {
  reset(t);
  char *line;
  size_t n;
  int got;
  while ((got = nmt_reader_next(t->r, &line, &n)) > 0) {
    long no = nmt_reader_lineno(t->r);
    if (!t->start) t->start = no;
    if (n && line[n - 1] == '\r') n--;
    if (nmt_utf8_invalid(line, n) < n) {
      t->bad = true;
      if (t->format == NMT_TSV) { fill_row(t, row); row->n = 0; return 1; }
    }
    line[n] = '\n'; /* the reader's buffer holds a byte here: the '\n' or a NUL */
    if (csv_parse(&t->p, line, n + 1, on_field, on_record, t) != n + 1 || t->oom) {
      nmt_fail(NMT_EIO, "%s:%ld: %s", nmt_reader_name(t->r), no,
               t->oom ? "out of memory" : csv_strerror(csv_error(&t->p)));
      return -1;
    }
    if (t->done) { fill_row(t, row); return 1; }
  }
  if (got < 0) return -1;
  if (t->start) { /* only an open quoted field spans past the last line */
    nmt_fail(NMT_EINPUT, "%s:%ld: quoted field never closed", nmt_reader_name(t->r), t->start);
    return -1;
  }
  return 0;
}

const char *nmt_tsv_name(const nmt_tsv *t) { return nmt_reader_name(t->r); }
bool nmt_tsv_stalled(const nmt_tsv *t) { return nmt_reader_stalled(t->r); }

void nmt_tsv_close(nmt_tsv *t) {
  if (!t) return;
  csv_free(&t->p);
  nmt_reader_close(t->r);
  free(t->bytes);
  free(t->off);
  free(t->len);
  free(t->field);
  free(t);
}

static bool needs_quotes(const char *s, size_t n) {
  if (!n) return false;
  if (s[0] == ' ' || s[n - 1] == ' ') return true;
  for (size_t i = 0; i < n; i++)
    if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') return true;
  return false;
}

static int write_csv_field(nmt_writer *w, const char *s, size_t n) {
  if (!needs_quotes(s, n)) return nmt_writer_write(w, s, n);
  size_t need = csv_write2(NULL, 0, s, n, '"');
  char small[1024], *buf = need <= sizeof small ? small : malloc(need);
  if (!buf) return nmt_fail(NMT_EIO, "out of memory");
  csv_write2(buf, need, s, n, '"');
  int st = nmt_writer_write(w, buf, need);
  if (buf != small) free(buf);
  return st;
}

int nmt_tsv_write(nmt_writer *w, int format, int n, const char *const *field, const size_t *len) {
  for (int i = 0; i < n; i++) {
    if (i && nmt_writer_write(w, format == NMT_CSV ? "," : "\t", 1)) return NMT_EIO;
    if (format == NMT_CSV) {
      if (write_csv_field(w, field[i], len[i])) return NMT_EIO;
      continue;
    }
    if (memchr(field[i], '\t', len[i]) || memchr(field[i], '\n', len[i]))
      return nmt_fail(NMT_EINPUT, "%s: a field holds a tab or newline, which TSV cannot write", nmt_writer_name(w));
    if (nmt_writer_write(w, field[i], len[i])) return NMT_EIO;
  }
  return nmt_writer_write(w, "\n", 1);
}
