/* Checkpoint averaging: the element-wise mean of the weights of models with
 * the same options, vocabularies and codes, added one file at a time (only
 * one input in memory besides the sum). */
#ifndef NMT_MODELS_AVERAGE_H
#define NMT_MODELS_AVERAGE_H
#include "models/model.h"

typedef struct {
  nmt_model out;     /* the first model, its weights the mean once finished */
  const char *first; /* its path, for messages */
  double *sum;       /* (out.params.n) the weights summed in double: exact for a few models */
  int n;             /* models added */
} nmt_average;

/* NMT_OK when b can be averaged with a; else NMT_EINPUT, one line naming b's first
 * difference from a: "B: differs from A: dim-rnn=16 (A: 8)", "...: the target
 * vocabulary", "...: the BPE codes", "...: the tokenizer settings". */
int nmt_model_compare(const nmt_model *a, const char *a_path, const nmt_model *b, const char *b_path);
/* Load the model at path and add its weights (the first one also gives the output's
 * configuration; path must outlive avg). */
int nmt_average_add(nmt_average *avg, const char *path);
/* out's weights = sum / n, rounded to float. */
void nmt_average_finish(nmt_average *avg);
void nmt_average_free(nmt_average *avg);

#endif
