/* Step-wise inference for any model family (models/net.h), for one model or an
 * ensemble: each model's encoder once per batch, then its decoder step once
 * per target position, the shared output layer (out.W, out.b) and a
 * log-softmax; an ensemble's log-probabilities are the weighted sum of its
 * models' (Marian's ensembles). Rows are sentences × beam: row b*K+k is
 * hypothesis k of sentence b. Each model keeps its own memories and each row's
 * state (the family's state tensors); the search reorders and prunes them all.
 * tests/decode/test_decode.c checks that forced decoding scores equal the
 * training loss for every family. */
#ifndef NMT_DECODE_NET_H
#define NMT_DECODE_NET_H
#include "models/net.h"

enum { NMT_MAX_MODELS = 16 };

/* The models decoded together; one model is an ensemble of one. They share the
 * target vocabulary (decode/ensemble.h checks it). */
typedef struct {
  int n;
  const nmt_net *net[NMT_MAX_MODELS];
  nn_params *p[NMT_MAX_MODELS];
  float weight[NMT_MAX_MODELS];       /* of each model's log-probabilities, summing to 1 */
  const int *src_map[NMT_MAX_MODELS]; /* the first model's source ids → model i's (NULL: the same) */
} nmt_models;

/* A pointer to the one-model ensemble of (net, p), alive in the enclosing block. */
#define NMT_ONE_MODEL(net_, p_) (&(nmt_models){.n = 1, .net = {(net_)}, .p = {(p_)}, .weight = {1.0f}})

typedef struct nmt_dec_model nmt_dec_model; /* one model's graphs and states (decode/net.c) */

typedef struct {
  nmt_dec_model *model; /* (nmodel) */
  int nmodel, cap_model;
  float weight[NMT_MAX_MODELS];
  int B, K, R, S, V;   /* sentences, beam, rows R = B*K, source steps, target vocabulary */
  float *logp;         /* (R, V) log-probabilities of the last step (the live rows') */
  float *align;        /* (R, S) the last step's attention weights in source order (</s>
                          last), the models' mean, when asked for */
  float *sum_logp, *sum_align; /* an ensemble's own (one model's are its own) */
  const int *cols;     /* a lexical shortlist's target ids (nmt_dec_restrict), ascending */
  int ncols;           /* how many; 0: none */
  float *sum_cols;     /* (R, ncols) an ensemble's log-probabilities at cols alone */
  size_t cap_sum_logp, cap_sum_align, cap_sum_cols;
} nmt_dec;

/* What one step computes. */
typedef struct {
  const bool *live;    /* rows whose logp the caller reads (NULL: all); the output
                          layer skips the others */
  int shortlist;       /* > 0 scores only the target ids below max(shortlist, 2K), the
                          most frequent words (vocabularies are built by frequency;
                          Marian's shortlist without the lexical part), the others get
                          -inf; 0: the whole vocabulary */
  bool align;          /* fill d->align with the step's attention weights */
  bool candidates;     /* the caller reads nmt_dec_candidates, not d->logp: a GPU keeps the
                          log-probabilities (one model), a lexical shortlist computes its
                          columns alone (d->logp is not written) */
} nmt_step_args;

/* The target ids a step of beam K scores under a shortlist (nmt_step_args.shortlist):
 * those below the result, of V. */
int nmt_step_width(int shortlist, int K, int V);

/* Encode B sentences (src (S*B) time-major with </s> and padding, the first
 * model's ids, src_len (B)) with every model of e and prepare K rows per
 * sentence. NMT_OK or an error (graph message). */
int nmt_dec_start(nmt_dec *d, const nmt_models *e, const int *src, const int *src_len, int B, int S, int K);
/* Until the next nmt_dec_start, score only the target ids[0..n) (ascending; kept by the
 * caller): a lexical shortlist (decode/lexical.h), whose part of each model's output
 * layer is gathered here once; the other ids get -inf and step's shortlist is ignored.
 * The CPU's alone: NMT_EUSAGE on a GPU. NMT_OK, NMT_EIO. */
int nmt_dec_restrict(nmt_dec *d, const int *ids, int n);
/* Feed the previous tokens (R) and compute d->logp (R, Vt) (the rows of a->live
 * only); a NULL: every row, the whole vocabulary, no alignment. */
int nmt_dec_step(nmt_dec *d, const int *prev, const nmt_step_args *a);
/* The beam search's candidates after a step: for each sentence, the best k2
 * of base[r] + logp[r, v] over its K rows (base -inf: no live hypothesis) and
 * the tokens but pad, best first, ties to the lower (row, token); score and
 * index (B, k2), index = (r - b*K)*V + v, -1 where fewer exist. Host memory;
 * computed where the log-probabilities are (a GPU for one model). */
int nmt_dec_candidates(nmt_dec *d, const float *base, int k2, float *score, int *index);
/* Row r takes the decoder state of row from[r] (beam reordering). */
int nmt_dec_reorder(nmt_dec *d, const int *from);
/* Keep only sentences keep[0..nb) (ascending; their K rows each), e.g. those
 * still searching, so later steps compute nothing for finished ones. */
int nmt_dec_keep(nmt_dec *d, const int *keep, int nb);
void nmt_dec_free(nmt_dec *d);

#endif
