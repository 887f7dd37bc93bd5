/* A run's learning curve: the metrics CSV that nmt-train --metrics writes (rows
 * of training and of validation, docs/formats.md) read back into series, which
 * train/curve_svg.h draws. */
#ifndef NMT_TRAIN_CURVE_H
#define NMT_TRAIN_CURVE_H

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
void nmt_curve_free(nmt_curve *c);

#endif
