/* Step-wise inference for any model family (models/net.h): the family's encoder
 * once per batch, then its decoder step once per target position, the shared
 * output layer (out.W, out.b) and a log-softmax. Rows are sentences × beam:
 * row b*K+k is hypothesis k of sentence b. The decoder keeps each row's state
 * (the family's state tensors) and memories; the search reorders and prunes
 * them. tests/decode/test_decode.c checks that forced decoding scores equal the
 * training loss for every family. */
#ifndef NMT_DECODE_NET_H
#define NMT_DECODE_NET_H
#include "models/net.h"

typedef struct {
  const nn_net *net;
  nn_params *p;
  nn_graph enc, step;  /* encoder memory lives for the batch; the step graph is reset each step */
  int B, K, R, S;      /* sentences, beam, rows R = B*K, source steps */
  nn_tensor *mem[NN_NET_MAX_MEM]; /* (S*R, F_i) the encoder's memories per row, NULL after the last */
  float *mask;         /* (R, S) attention mask */
  int *len;            /* (R) source lengths */
  int nstate;
  int dim[NN_NET_MAX_STATE]; /* D_i: the family's state tensor i is (R, D_i) */
  float *state[NN_NET_MAX_STATE]; /* into `states`, room for the first R rows */
  float *states, *logp, *tmp;     /* all state blocks; (R, Vt) log-probabilities of the last step; scratch */
  float *align;        /* (R, S) the last step's attention weights, when asked for */
  int out_w, out_b;    /* views of the output layer */
  bool out_t;          /* out_w is the tied target embedding (Vt, O): multiplied transposed */
  size_t cap_states, cap_logp, cap_tmp, cap_align;
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
} nmt_step_args;

/* Encode B sentences (src (S*B) time-major with </s> and padding, src_len (B))
 * and prepare K rows per sentence. NMT_OK or an error (graph message). */
int nmt_dec_start(nmt_dec *d, const nn_net *net, nn_params *p, const int *src,
                  const int *src_len, int B, int S, int K);
/* Feed the previous tokens (R) and compute d->logp (R, Vt) (the rows of a->live
 * only); a NULL: every row, the whole vocabulary, no alignment. */
int nmt_dec_step(nmt_dec *d, const int *prev, const nmt_step_args *a);
/* Row r takes the decoder state of row from[r] (beam reordering). */
int nmt_dec_reorder(nmt_dec *d, const int *from);
/* Keep only sentences keep[0..nb) (ascending; their K rows each), e.g. those
 * still searching, so later steps compute nothing for finished ones. */
int nmt_dec_keep(nmt_dec *d, const int *keep, int nb);
void nmt_dec_free(nmt_dec *d);

#endif
