/* The output layer of a lexical shortlist (decode/lexical.h): the columns of out.W (rows
 * of a tied embedding) and out.b for the target ids a mini-batch may produce, gathered
 * once per batch into the form the model's products read (int8, packed or plain), so
 * each step reads only those. A column's values are the full layer's, so listing every
 * id gives the same scores as no shortlist. Host memory. */
#ifndef NMT_DECODE_OUT_COLS_H
#define NMT_DECODE_OUT_COLS_H
#include "nn/qgemm.h"
#include "nn/tape.h"

typedef struct {
  int n;         /* ids chosen */
  nn_tensor w;   /* (H, n) columns, or (n, H) rows of a tied embedding; its q or pk as W's */
  float *b;      /* (n) the bias, when there is one */
  bool bias;
  nn_qmat q;
  size_t cap_w, cap_pk, cap_b;
  float *pk;
} nmt_out_cols;

/* Gather ids[0..n) (ascending, below the vocabulary's size) of W (H, V), or of its rows
 * when transposed (V, H), and of b (1, V) or NULL. NMT_OK or NMT_EIO. */
int nmt_out_cols_gather(nmt_out_cols *c, const nn_tensor *W, const nn_tensor *b, bool transposed,
                        const int *ids, int n);
void nmt_out_cols_free(nmt_out_cols *c);

#endif
