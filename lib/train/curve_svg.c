/* Drawing the learning curve as SVG: two panels over one step axis, the losses
 * (training, and validation's ln ppl: both nats per target token, so they share
 * an axis) above, BLEU and chrF below; the epochs as dashed lines. */
#include "train/curve_svg.h"
#include "base/err.h"
#include "io/io.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { WIDTH = 800, HEIGHT = 500, LEFT = 70, RIGHT = 780, TICKS = 6, LEGEND_ROW = 16 };

typedef struct {
  int top, bottom;        /* pixels */
  double lo, hi, step;    /* the axis' range and tick step */
  int first, last;        /* its series, NMT_CURVE_* */
  const char *label, *empty;
} panel;

static const char *const names[NMT_CURVE_NSERIES] = {"training loss", "validation loss (ln ppl)", "validation BLEU",
                                                    "validation chrF"};
static const char *const colors[NMT_CURVE_NSERIES] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

/* A round tick step giving about TICKS ticks over range: 1, 2 or 5 times a power of 10. */
static double tick_step(double range) {
  double raw = range / TICKS, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

/* lo..hi widened to whole ticks (a single value: around it). */
static void axis(double min, double max, double *lo, double *hi, double *step) {
  if (!(min < max)) min -= 1, max += 1;
  *step = tick_step(max - min);
  *lo = floor(min / *step) * *step, *hi = ceil(max / *step) * *step;
}

static void range(const nmt_series *s, int n, bool x, double *min, double *max) {
  *min = INFINITY, *max = -INFINITY;
  for (int k = 0; k < n; k++)
    for (long i = 0; i < s[k].n; i++) {
      double v = x ? s[k].x[i] : s[k].y[i];
      *min = fmin(*min, v), *max = fmax(*max, v);
    }
}

static double px_x(double lo, double hi, double v) { return LEFT + (RIGHT - LEFT) * (v - lo) / (hi - lo); }
static double px_y(const panel *p, double v) {
  return p->bottom - (p->bottom - p->top) * (v - p->lo) / (p->hi - p->lo);
}

/* Text with &, <, > and quotes escaped. */
static int text(nmt_strbuf *b, const char *s) {
  int st = NMT_OK;
  for (; *s && !st; s++)
    switch (*s) {
    case '&': st = nmt_strbuf_addf(b, "&amp;"); break;
    case '<': st = nmt_strbuf_addf(b, "&lt;"); break;
    case '>': st = nmt_strbuf_addf(b, "&gt;"); break;
    case '"': st = nmt_strbuf_addf(b, "&quot;"); break;
    default: st = nmt_strbuf_addc(b, *s);
    }
  return st;
}

/* The frame, the y grid with its labels and the axis title. */
static int frame(nmt_strbuf *b, const panel *p) {
  int st = nmt_strbuf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#444\"/>\n",
                           LEFT, p->top, RIGHT - LEFT, p->bottom - p->top);
  for (double v = p->lo; !st && v <= p->hi + p->step / 2; v += p->step) {
    double y = px_y(p, v);
    st = nmt_strbuf_addf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                         LEFT, y, RIGHT, y, LEFT - 6, y + 4, fabs(v) < p->step / 1e6 ? 0 : v);
  }
  int mid = (p->top + p->bottom) / 2;
  return st ? st
            : nmt_strbuf_addf(b, "<text x=\"16\" y=\"%d\" text-anchor=\"middle\" "
                                 "transform=\"rotate(-90 16 %d)\">%s</text>\n", mid, mid, p->label);
}

/* The panel's legend on a white box in its top right corner, or a note that it has no series. */
static int legend(nmt_strbuf *b, const panel *p, const nmt_curve *c) {
  int rows = 0, st = NMT_OK;
  for (int s = p->first; s <= p->last; s++) rows += c->s[s].n > 0;
  if (!rows)
    return nmt_strbuf_addf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#888\">%s</text>\n",
                           (LEFT + RIGHT) / 2, (p->top + p->bottom) / 2, p->empty);
  st = nmt_strbuf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"196\" height=\"%d\" fill=\"#fff\" fill-opacity=\"0.9\" "
                          "stroke=\"#ccc\"/>\n", RIGHT - 206, p->top + 6, LEGEND_ROW * rows + 6);
  for (int s = p->first, row = 0; s <= p->last && !st; s++) {
    if (!c->s[s].n) continue;
    int y = p->top + 22 + LEGEND_ROW * row++;
    st = nmt_strbuf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
                            "<text x=\"%d\" y=\"%d\">%s</text>\n",
                         RIGHT - 200, y - 4, RIGHT - 180, y - 4, colors[s], RIGHT - 174, y, names[s]);
  }
  return st;
}

/* The epochs' ends as dashed lines across the panel, labelled under the upper one. */
static int epochs(nmt_strbuf *b, const panel *p, const nmt_curve *c, double xlo, double xhi, bool labels) {
  int st = NMT_OK;
  for (long i = 0; i < c->epochs.n && !st; i++) {
    double x = px_x(xlo, xhi, c->epochs.x[i]);
    st = nmt_strbuf_addf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" "
                            "stroke-dasharray=\"4 3\"/>\n", x, p->top, x, p->bottom);
    if (!st && labels)
      st = nmt_strbuf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" fill=\"#666\">"
                              "epoch %g</text>\n", x - 3, p->bottom + 16, c->epochs.y[i]);
  }
  return st;
}

/* One series: a polyline, and a dot per point when they are few (validations). */
static int series(nmt_strbuf *b, const panel *p, const nmt_series *s, const char *color, double xlo, double xhi) {
  int st = nmt_strbuf_addf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
  for (long i = 0; i < s->n && !st; i++)
    st = nmt_strbuf_addf(b, "%s%.1f,%.1f", i ? " " : "", px_x(xlo, xhi, s->x[i]), px_y(p, s->y[i]));
  if (!st) st = nmt_strbuf_addf(b, "\"/>\n");
  for (long i = 0; i < s->n && s->n <= 100 && !st; i++)
    st = nmt_strbuf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", px_x(xlo, xhi, s->x[i]),
                         px_y(p, s->y[i]), color);
  return st;
}

static int draw_panel(nmt_strbuf *b, panel *p, const nmt_curve *c, double xlo, double xhi) {
  double min, max;
  range(c->s + p->first, p->last - p->first + 1, false, &min, &max);
  if (p->first == NMT_CURVE_BLEU) min = fmin(min, 0); /* scores from 0 */
  min = isfinite(min) ? min : 0, max = isfinite(max) ? max : 1;
  /* headroom: the curves stay under the legend in the top right corner */
  int rows = 0;
  for (int s = p->first; s <= p->last; s++) rows += c->s[s].n > 0;
  double covered = (double)(LEGEND_ROW * rows + 16) / (p->bottom - p->top);
  if (max > min) max = min + (max - min) / (1 - covered);
  axis(min, max, &p->lo, &p->hi, &p->step);
  int st = frame(b, p);
  if (!st) st = epochs(b, p, c, xlo, xhi, p->first == NMT_CURVE_LOSS);
  for (int s = p->first; s <= p->last && !st; s++)
    if (c->s[s].n) st = series(b, p, &c->s[s], colors[s], xlo, xhi);
  return st ? st : legend(b, p, c);
}

/* The step axis under the lower panel. */
static int step_axis(nmt_strbuf *b, int bottom, double lo, double hi, double step) {
  int st = NMT_OK;
  for (double v = lo; !st && v <= hi + step / 2; v += step)
    st = nmt_strbuf_addf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", px_x(lo, hi, v),
                         bottom + 18, v);
  return st ? st
            : nmt_strbuf_addf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step (updates); dashed: the end "
                                 "of each epoch</text>\n", (LEFT + RIGHT) / 2, bottom + 38);
}

int nmt_curve_svg(const nmt_curve *c, const char *title, nmt_strbuf *b) {
  panel loss = {44, 244, 0, 0, 0, NMT_CURVE_LOSS, NMT_CURVE_VALID_LOSS, "loss (nats per target token)", "no rows"};
  panel score = {274, 444, 0, 0, 0, NMT_CURVE_BLEU, NMT_CURVE_CHRF, "BLEU, chrF", "no validation rows"};
  double min, max, xlo, xhi, xstep;
  range(c->s, NMT_CURVE_NSERIES, true, &min, &max);
  axis(isfinite(min) ? fmin(min, 0) : 0, isfinite(max) ? max : 1, &xlo, &xhi, &xstep);
  int st = nmt_strbuf_addf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                              "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                              "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
                              "<text x=\"%d\" y=\"26\" font-size=\"15\" font-weight=\"bold\">",
                           WIDTH, HEIGHT, WIDTH, HEIGHT, LEFT);
  if (!st) st = text(b, title);
  if (!st) st = nmt_strbuf_addf(b, "</text>\n");
  if (!st) st = draw_panel(b, &loss, c, xlo, xhi);
  if (!st) st = draw_panel(b, &score, c, xlo, xhi);
  if (!st) st = step_axis(b, score.bottom, xlo, xhi, xstep);
  return st ? st : nmt_strbuf_addf(b, "</svg>\n");
}

int nmt_curve_plot(const char *csv, const char *svg, const char *title) {
  nmt_curve c;
  int st = nmt_curve_read(&c, csv);
  if (st) return st;
  nmt_strbuf b = {0};
  nmt_writer *w = NULL;
  st = nmt_curve_svg(&c, title, &b);
  if (!st) st = nmt_writer_open(&w, svg, 0);
  if (!st) st = nmt_writer_write(w, b.s, b.len);
  if (!st) st = nmt_writer_commit(w);
  else if (w) nmt_writer_abort(w);
  free(b.s);
  nmt_curve_free(&c);
  return st;
}
