/* Reading the metrics CSV into the learning curve's series; see train/curve.h. */
#include "train/curve.h"
#include "base/err.h"
#include "io/io.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns read, by header name. */
enum { COL_STEP, COL_EPOCH, COL_LOSS, COL_PPL, COL_BLEU, COL_CHRF, NCOLS };
static const char *const col_names[NCOLS] = {"step", "epoch", "loss", "valid_ppl", "valid_bleu", "valid_chrf"};

/* A point at step x; the points at x or later go first: after a --resume the run
 * appends the steps since its checkpoint again, and the later rows are the run's. */
static int add_point(nmt_series *s, double x, double y) {
  while (s->n > 0 && s->x[s->n - 1] >= x) s->n--;
  if (isnan(y)) return NMT_OK;
  if (s->n == s->cap) {
    long cap = s->cap ? 2 * s->cap : 64;
    double *nx = realloc(s->x, sizeof *nx * (size_t)cap), *ny = nx ? realloc(s->y, sizeof *ny * (size_t)cap) : NULL;
    if (nx) s->x = nx;
    if (!ny) return nmt_fail(NMT_EIO, "out of memory");
    s->y = ny, s->cap = cap;
  }
  s->x[s->n] = x, s->y[s->n++] = y;
  return NMT_OK;
}

/* Split line (NUL-terminated, modified) at commas into at most max cells. */
static int split(char *line, char **cells, int max) {
  int n = 0;
  for (char *p = line;; p++) {
    if (n < max) cells[n] = p;
    n++;
    p = strchr(p, ',');
    if (!p) return n;
    *p = 0;
  }
}

/* The header's index of each column read (-1: absent). */
static int header(char *line, int *idx, const char *path, int *ncells) {
  char *cells[64];
  *ncells = split(line, cells, 64);
  for (int c = 0; c < NCOLS; c++) {
    idx[c] = -1;
    for (int i = 0; i < *ncells && i < 64; i++)
      if (!strcmp(cells[i], col_names[c])) idx[c] = i;
  }
  if (idx[COL_STEP] < 0)
    return nmt_fail(NMT_EINPUT, "%s:1: no 'step' column: not a metrics file of nmt-train --metrics", path);
  return NMT_OK;
}

/* One row's value of column c: NaN when empty or absent. */
static int cell(char **cells, const int *idx, int c, double *v, const char *path, long line) {
  *v = NAN;
  if (idx[c] < 0 || !*cells[idx[c]]) return NMT_OK;
  char *end;
  *v = strtod(cells[idx[c]], &end);
  if (*end || end == cells[idx[c]])
    return nmt_fail(NMT_EINPUT, "%s:%ld: %s is not a number ('%s')", path, line, col_names[c], cells[idx[c]]);
  return NMT_OK;
}

static int row(nmt_curve *c, char *text, const int *idx, int ncells, const char *path, long line,
               double *last_epoch, double *last_step) {
  char *cells[64];
  int n = split(text, cells, 64);
  if (n != ncells) return nmt_fail(NMT_EINPUT, "%s:%ld: %d cells, the header has %d", path, line, n, ncells);
  double v[NCOLS];
  int st = NMT_OK;
  for (int k = 0; k < NCOLS && !st; k++) st = cell(cells, idx, k, &v[k], path, line);
  if (!st && isnan(v[COL_STEP])) st = nmt_fail(NMT_EINPUT, "%s:%ld: no step", path, line);
  if (st) return st;
  double x = v[COL_STEP];
  if (!isnan(v[COL_LOSS]) && !isnan(v[COL_EPOCH])) { /* a training row: where the epochs change */
    if (*last_epoch > 0 && v[COL_EPOCH] > *last_epoch) st = add_point(&c->epochs, *last_step, *last_epoch);
    *last_epoch = v[COL_EPOCH], *last_step = x;
  }
  double ppl = v[COL_PPL], ys[NMT_CURVE_NSERIES] = {v[COL_LOSS], ppl > 0 ? log(ppl) : NAN, v[COL_BLEU], v[COL_CHRF]};
  bool valid = !isnan(ppl) || !isnan(v[COL_BLEU]) || !isnan(v[COL_CHRF]); /* --valid-metrics chrf alone */
  for (int s = 0; s < NMT_CURVE_NSERIES && !st; s++)
    if ((s == NMT_CURVE_LOSS) != valid) st = add_point(&c->s[s], x, ys[s]); /* each row feeds its own kind */
  return st;
}

int nmt_curve_read(nmt_curve *c, const char *path) {
  *c = (nmt_curve){0};
  char *text;
  size_t len;
  int st = nmt_read_file(path, &text, &len);
  if (st) return st;
  int idx[NCOLS], ncells = 0;
  double last_epoch = 0, last_step = 0;
  long line = 0;
  for (char *l = text, *end = text + len; !st && l < end; l++) { /* lines; an empty one is skipped */
    char *nl = memchr(l, '\n', (size_t)(end - l));
    nl = nl ? nl : end;
    *nl = 0; /* (the buffer has its NUL past end) */
    if (nl > l && nl[-1] == '\r') nl[-1] = 0;
    if (++line == 1) st = header(l, idx, path, &ncells);
    else if (*l) st = row(c, l, idx, ncells, path, line, &last_epoch, &last_step);
    l = nl;
  }
  if (!st && !line) st = nmt_fail(NMT_EINPUT, "%s: empty: not a metrics file of nmt-train --metrics", path);
  free(text);
  if (st) nmt_curve_free(c);
  return st;
}

void nmt_curve_free(nmt_curve *c) {
  for (int s = 0; s < NMT_CURVE_NSERIES; s++) free(c->s[s].x), free(c->s[s].y);
  free(c->epochs.x), free(c->epochs.y);
  *c = (nmt_curve){0};
}
