/* A run's learning curve: the metrics CSV that nmt-train --metrics writes (rows
 * of training and of validation, docs/formats.md) read back into series, and
 * drawn as an SVG picture against the steps, with the epochs marked. */
#ifndef NMT_TRAIN_CURVE_H
#define NMT_TRAIN_CURVE_H
#include "base/strbuf.h"

/* The series, in drawing order: the loss panel's two, then the score panel's two. */
enum { NMT_CURVE_LOSS, NMT_CURVE_VALID_LOSS, NMT_CURVE_BLEU, NMT_CURVE_CHRF, NMT_CURVE_NSERIES };

typedef struct {
  double *x, *y; /* (n) steps and values */
  long n, cap;
} nmt_series;

typedef struct {
  nmt_series s[NMT_CURVE_NSERIES]; /* training loss, validation loss (ln ppl), BLEU, chrF */
  nmt_series epochs;               /* x: the last logged step of epoch y (where the next begins) */
} nmt_curve;

/* Read a metrics CSV: its header names the columns (step, epoch, loss, valid_ppl,
 * valid_bleu, valid_chrf; others ignored, older files without the valid_ ones too); an
 * empty cell is no point. NMT_EIO, or NMT_EINPUT "FILE:LINE: problem". */
int nmt_curve_read(nmt_curve *c, const char *path);
/* Append the picture (an 800 x 500 SVG document: the losses above, BLEU and chrF below,
 * one polyline per series with points) to out; title heads it. */
int nmt_curve_svg(const nmt_curve *c, const char *title, nmt_strbuf *out);
void nmt_curve_free(nmt_curve *c);
/* Read the CSV, draw it and write the SVG file atomically (io.h's writer; "-": stdout). */
int nmt_curve_plot(const char *csv, const char *svg, const char *title);

#endif
