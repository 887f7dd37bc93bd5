/* The LSTM + attention family (Luong, Pham & Manning 2015): a stacked LSTM
 * encoder, a stacked LSTM decoder initialised with the encoder's final states,
 * global or local-p attention on the top decoder layer, optional input feeding
 * (h̃_{t-1} joins the first layer's recurrent input), softmax output with
 * label smoothing. Dropout (when training) on the embeddings, between layers
 * and on h̃ before the output layer, never on recurrent links. */
#ifndef NMT_NN_MODEL_LUONG_H
#define NMT_NN_MODEL_LUONG_H
#include "nn_attn.h"
#include "nn_params.h"
#include "nn_tape.h"

enum { NN_LUONG_MAX_LAYERS = 8 };

typedef struct {
  int src_vocab, tgt_vocab;
  int emb, hidden, layers;
  nn_attn_cfg attn;
  int attn_size;      /* A: MLP and local-p hidden size */
  bool input_feed;
  float dropout;
  float label_smoothing;
  int pad;            /* padding id in both vocabularies: skipped in the loss */
} nn_luong_cfg;

/* Where each parameter lives in the buffer: view indices (-1: unused). */
typedef struct {
  nn_luong_cfg cfg;
  int src_emb, tgt_emb;                     /* (V,E) */
  int enc_wx[NN_LUONG_MAX_LAYERS];          /* (E or H, 4H) */
  int enc_wh[NN_LUONG_MAX_LAYERS];          /* (H,4H) */
  int enc_b[NN_LUONG_MAX_LAYERS];           /* (1,4H) */
  int dec_wx[NN_LUONG_MAX_LAYERS];          /* (E or H, 4H) */
  int dec_wh[NN_LUONG_MAX_LAYERS];          /* (H,4H); layer 0 with input feeding (2H,4H) */
  int dec_b[NN_LUONG_MAX_LAYERS];           /* (1,4H) */
  int attn_wa, attn_wq, attn_v, attn_wp, attn_vp, attn_wc; /* see nn_attn_w */
  int out_w, out_b;                         /* (H,Vt), (1,Vt) */
} nn_luong;

/* Declare the model's views in p (before nn_params_alloc). NMT_OK or NMT_EUSAGE. */
int nn_luong_layout(nn_luong *m, const nn_luong_cfg *cfg, nn_params *p);

/* A batch, time-major: token (t, b) at index t*B+b. */
typedef struct {
  int B, S, T;
  const int *src;     /* (S*B) source ids, pad after each sentence */
  const int *src_len; /* (B) source lengths, 1..S */
  const int *tgt_in;  /* (T*B) decoder inputs: BOS y1 .. y_{n-1}, pad after */
  const int *tgt_out; /* (T*B) targets: y1 .. EOS, pad after */
} nn_luong_batch;

/* The pieces training and step-wise decoding share. */
nn_attn_w nn_luong_attn_w(nn_graph *g, const nn_luong *m, nn_params *p);
/* The encoder over src (S*B ids, time-major) with mask (S*B): top-layer
 * outputs (S*B,H); each layer's final h, c (B,H) into h0[l], c0[l]. */
nn_tensor *nn_luong_encode(nn_graph *g, const nn_luong *m, nn_params *p, const int *src, int S,
                           int B, const float *mask, nn_tensor **h0, nn_tensor **c0);
/* One decoder step over all layers: gx0 (B,4H) is layer 0's input projection,
 * feed (B,H) the previous attentional vector, mask (B) or NULL. h[l], c[l] are
 * replaced by the new states; returns the top layer's h (B,H). */
nn_tensor *nn_luong_decode_step(nn_graph *g, const nn_luong *m, nn_params *p, nn_tensor *gx0,
                                nn_tensor *feed, const float *mask, nn_tensor **h, nn_tensor **c);

/* The summed label-smoothed loss (1,1) over the batch's target tokens
 * (*ntokens of them); NULL with the graph failed on bad shapes or ids.
 * Train: nn_tape_backward(g, loss, 1.0f / ntokens). */
nn_tensor *nn_luong_forward(nn_graph *g, const nn_luong *m, nn_params *p,
                            const nn_luong_batch *batch, long *ntokens);

#endif
