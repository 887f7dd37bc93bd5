/* The learning curve (train/curve.h) drawn as an SVG picture against the steps: two
 * panels, the losses above, BLEU and chrF below, the epochs marked. */
#ifndef NMT_TRAIN_CURVE_SVG_H
#define NMT_TRAIN_CURVE_SVG_H
#include "base/strbuf.h"
#include "train/curve.h"

/* Append the picture (an 800 x 500 SVG document: the losses above, BLEU and chrF below,
 * one polyline per series with points) to out; title heads it. */
int nmt_curve_svg(const nmt_curve *c, const char *title, nmt_strbuf *out);
/* Read the CSV, draw it and write the SVG file atomically (io.h's writer; "-": stdout). */
int nmt_curve_plot(const char *csv, const char *svg, const char *title);

#endif
