/* Several models decoded as one (nmt-decode and nmt-score -m a.bin b.bin, as
 * Marian's ensembles): loaded, checked to share the target vocabulary, and
 * weighted. The source is read as the first model reads it (its vocabulary,
 * and with --raw its tokenizer and BPE codes); a model with another source
 * vocabulary looks those tokens up in its own (decode/net.h's src_map; a token
 * the first model does not know is <unk> to all). */
#ifndef NMT_DECODE_ENSEMBLE_H
#define NMT_DECODE_ENSEMBLE_H
#include "decode/net.h"
#include "models/model.h"

typedef struct {
  int n;
  nmt_model *model;             /* (n) */
  nmt_models dec;               /* what the decoder reads */
  int *src_map[NMT_MAX_MODELS]; /* dec's maps, owned */
  nn_params dev[NMT_MAX_MODELS]; /* the parameters on a GPU (nmt_ensemble_upload), owned */
  bool on_device;
} nmt_ensemble;

/* Load the models paths[0..n) (1 <= n <= NMT_MAX_MODELS). weights[0..nw) are
 * the command line's numbers (nw = 0: all equal), relative: each model's
 * log-probabilities are weighed by its weight over their sum, so that scores
 * stay log-probabilities. NMT_EUSAGE (a weight that is not a positive number,
 * nw not n, a target vocabulary unlike the first model's, naming the model and
 * how it differs), or the error of nmt_model_load. */
int nmt_ensemble_load(nmt_ensemble *e, const char *const *paths, int n, const char *const *weights, int nw);
/* Decode on backend be: each model's parameters copied there once, what the
 * decoder reads from then on; on the CPU, float weights packed once for its
 * products (nn_params_pack). */
int nmt_ensemble_upload(nmt_ensemble *e, const struct nn_backend *be);
void nmt_ensemble_free(nmt_ensemble *e);

#endif
