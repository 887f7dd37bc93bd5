/* The whole-model harness the model-family tests share: a model, its batch
 * and the loss function the gradient checker calls. */
#ifndef NMT_TESTS_MODELS_MODEL_CASE_H
#define NMT_TESTS_MODELS_MODEL_CASE_H
#include "models/net.h"
#include <stdbool.h>

/* The copy batch every family's model tests train and check on: three
 * sentences of lengths 4, 2, 3 (source, time-major) and their copies as
 * targets; ids 0 pad, 1 <s>, 2 </s>, words 3..6 of a vocabulary of 7. */
extern const int copy_src[4 * 3], copy_src_len[3], copy_tgt_in[5 * 3], copy_tgt_out[5 * 3];

enum { MODEL_CASE_MAX_TOKENS = 64 }; /* (S+T)·B of a test batch */

typedef struct {
  nmt_net m;
  nmt_batch batch;
  long ntokens;
  int tgt_len[MODEL_CASE_MAX_TOKENS];     /* the batch's lengths and masks */
  float masks[2 * MODEL_CASE_MAX_TOKENS];
} model_case;

/* The training loss of mc's batch (ctx: a model_case), for T_NN_GRADCHECK. */
nn_tensor *build_model(nn_graph *g, nn_params *p, void *ctx);
/* Lay out cfg's model into a fresh p (a bad configuration fails the test),
 * weights U(±0.3) from seed, on batch b. False when it could not be set up. */
bool model_setup(model_case *mc, nn_params *p, const nmt_net_cfg *cfg, nmt_batch b, uint64_t seed);

/* Train mc's model on its batch: `steps` Adam steps at lr (clipping at 5,
 * dropout stream (seed 1, step)). *first and *last get the per-token training
 * loss of the first and the last step; false (the test failed) when a step
 * could not run. */
bool model_train(model_case *mc, nn_params *p, int steps, float lr, double *first, double *last);

#endif
