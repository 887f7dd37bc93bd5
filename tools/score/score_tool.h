/* nmt-score's pieces: options and pair scoring (main.c), n-best rescoring (nbest.c). */
#ifndef NMT_TOOLS_SCORE_SCORE_TOOL_H
#define NMT_TOOLS_SCORE_SCORE_TOOL_H
#include "base/cli.h"
#include "io/io.h"
#include "decode/align.h"
#include "decode/ensemble.h"

#define PROG "nmt-score"

typedef struct {
  nmt_strlist models, weights; /* an ensemble: several models, their relative weights */
  const char *output, *tsv, *summary, *nbest, *feature, *alignment;
  nmt_align_kind align_kind; /* --alignment's, parsed */
  float align_threshold;
  long mini_batch, cpu_threads;
  bool normalize, word_scores, zstd;
  nmt_strlist files;
} score_args;

/* The n-best list `nbest` (Marian's format: i ||| hypothesis ||| ... ||| features
 * ||| total) of the sources in src, with the model's (or ensemble's) score of
 * each hypothesis added to its features as "FEATURE= score". */
int score_nbest(const nmt_ensemble *e, const score_args *a, nmt_reader *src, nmt_reader *nbest, nmt_writer *w);

#endif
