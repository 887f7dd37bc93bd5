/* Inference for the Luong model one target step at a time: the inference twin
 * of nn_luong_forward (same ops, same weights; tests/test_decode.c checks that
 * forced decoding scores equal the training loss). Rows are sentences × beam:
 * row b*K+k is hypothesis k of sentence b. */
#ifndef NMT_DECODE_LUONG_H
#define NMT_DECODE_LUONG_H
#include "nn_model_luong.h"

typedef struct {
  const nn_luong *net;
  nn_params *p;
  nn_graph enc, step;  /* encoder memory lives for the batch; the step graph is reset each step */
  int B, K, R, S;      /* sentences, beam, rows R = B*K, source steps */
  nn_tensor *Hs, *keys; /* (S*R, H) encoder outputs and attention keys, per row; NULL without attention */
  float *mask;          /* (R, S) attention mask */
  int *len;             /* (R) source lengths */
  float *h, *c;         /* (dec_layers, R, H) decoder state */
  float *feed;          /* (R, H) previous attentional vector h̃ */
  float *logp;          /* (R, Vt) log-probabilities of the last step */
  float *tmp;           /* (R, H) scratch for reordering */
  const bool *live;     /* (R) set by the caller: rows whose logp the next step needs
                           (NULL: all); the output layer skips the others */
  int shortlist;        /* set by the caller: > 0 scores only the target ids below
                           max(shortlist, 2K), the most frequent words (vocabularies are
                           built by frequency; Marian's shortlist without the lexical
                           part), the others get -inf; 0: the whole vocabulary */
  size_t cap_state, cap_logp, cap_tmp;
} nmt_luong_dec;

/* Encode B sentences (src (S*B) time-major with </s> and padding, src_len (B))
 * and prepare K rows per sentence. NMT_OK or an error (graph message). */
int nmt_luong_dec_start(nmt_luong_dec *d, const nn_luong *net, nn_params *p, const int *src,
                        const int *src_len, int B, int S, int K);
/* Feed the previous tokens (R) and compute d->logp (R, Vt) (rows of d->live only). */
int nmt_luong_dec_step(nmt_luong_dec *d, const int *prev);
/* Row r takes the decoder state of row from[r] (beam reordering). */
int nmt_luong_dec_reorder(nmt_luong_dec *d, const int *from);
/* Keep only sentences keep[0..nb) (ascending; their K rows each), e.g. those
 * still searching, so later steps compute nothing for finished ones. */
int nmt_luong_dec_keep(nmt_luong_dec *d, const int *keep, int nb);
void nmt_luong_dec_free(nmt_luong_dec *d);

#endif
