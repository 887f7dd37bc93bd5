/* Validation during training: the validation sets, and their perplexity, BLEU and
 * chrF (train/vmetric.h) under the model being trained, over the ranks of a run. */
#ifndef NMT_TRAIN_VALID_H
#define NMT_TRAIN_VALID_H
#include "comm/comm.h"
#include "models/model.h"
#include "train/vmetric.h"

typedef struct {
  nmt_corpus corpus;
  char **refs;  /* (corpus.n) target lines, BPE joined */
} nmt_valid_set;

int nmt_valid_load(nmt_valid_set *v, const char *src, const char *tgt, const nmt_model *m);
void nmt_valid_free(nmt_valid_set *v);
/* The metrics o asks for (NULL: the default) of m's network with parameters p
 * (m's, or their copy on the device the training runs on): perplexity without
 * label smoothing, and BLEU and chrF of translations (o->beam). All ranks of c
 * call it: each scores its part of the batches, and every rank gets the
 * one-process numbers. */
int nmt_validate_scores(nmt_comm *c, nmt_model *m, nn_params *p, const nmt_valid_set *v, const nmt_valid_opts *o,
                        nmt_valid_scores *out);
/* Perplexity and greedy BLEU alone. */
int nmt_validate(nmt_model *m, const nmt_valid_set *v, double *ppl, double *bleu);

#endif
