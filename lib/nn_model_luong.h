/* The LSTM + attention family (Luong, Pham & Manning 2015): a stacked LSTM
 * encoder, a stacked LSTM decoder initialised with the encoder's final states,
 * global or local-p attention on the top decoder layer, optional input feeding
 * (h̃_{t-1} joins the first layer's recurrent input), softmax output with
 * label smoothing. Dropout (when training) on the embeddings, between layers
 * and on h̃ before the output layer, never on recurrent links.
 *
 * Encoder types (Marian's --enc-type names): unidirectional; bidirectional (a
 * forward and a backward stack of enc_layers each, H/2 per direction, their
 * top outputs concatenated to H); bi-unidirectional (one bidirectional layer,
 * then enc_layers-1 unidirectional ones of H). H/2 per direction keeps the
 * memory and the final states at the decoder's size H without a bridge: the
 * peer (torch_rnn_nmt.py: bi-LSTM 256+256, decoder 512) is enc_type
 * bidirectional, hidden 512, one layer each. The backward direction reads
 * each sentence's real tokens last to first, starting at zero state.
 *
 * Decoder initialisation: encoder layer l's final (h, c) start decoder layer
 * l; for a bidirectional layer that is [h_fw(last token); h_bw(first token)],
 * as the peer concatenates its two directions' final states. Decoder layers
 * beyond the encoder's depth start at zero (Marian instead starts every layer
 * from tanh(W·mean of the memory); OpenNMT-py needs equal depths).
 *
 * reverse_source feeds each source sentence's real tokens (its </s> too, so it
 * comes first) in reverse order, padding left in place (Sutskever et al.
 * 2014); attention then sees the reversed memory. no_attention is the plain
 * encoder-decoder baseline: the decoder's output is its top h, no input
 * feeding, no attn.* weights. */
#ifndef NMT_NN_MODEL_LUONG_H
#define NMT_NN_MODEL_LUONG_H
#include "nn_attn.h"
#include "nn_params.h"
#include "nn_tape.h"

enum { NN_LUONG_MAX_LAYERS = 8 };

enum nn_luong_enc { NN_ENC_UNI, NN_ENC_BI, NN_ENC_BI_UNI };

typedef struct {
  int src_vocab, tgt_vocab;
  int emb, hidden;
  int enc_layers, dec_layers;
  enum nn_luong_enc enc_type;
  bool reverse_source;
  bool no_attention;  /* the baseline: attn and input_feed unused */
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
  /* Encoder layer l, or its forward direction (sizes H/2 for H) when bidirectional. */
  int enc_wx[NN_LUONG_MAX_LAYERS];          /* (E or H, 4H) */
  int enc_wh[NN_LUONG_MAX_LAYERS];          /* (H,4H) */
  int enc_b[NN_LUONG_MAX_LAYERS];           /* (1,4H) */
  int enc_rwx[NN_LUONG_MAX_LAYERS];         /* backward direction: enc.l<k>r.* */
  int enc_rwh[NN_LUONG_MAX_LAYERS];
  int enc_rb[NN_LUONG_MAX_LAYERS];
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
/* The encoder over src (S*B ids, time-major) with lengths src_len (B) and
 * mask (S*B): top-layer outputs (S*B,H); each encoder layer's final h, c
 * (B,H) into h0[l], c0[l] (l < enc_layers). */
nn_tensor *nn_luong_encode(nn_graph *g, const nn_luong *m, nn_params *p, const int *src,
                           const int *src_len, int S, int B, const float *mask, nn_tensor **h0,
                           nn_tensor **c0);
/* The decoder's initial state from the encoder's final states (h0, c0 as
 * nn_luong_encode fills them): into h[l], c[l] for every decoder layer. */
void nn_luong_init_state(nn_graph *g, const nn_luong *m, nn_tensor **h0, nn_tensor **c0,
                         nn_tensor **h, nn_tensor **c, int B);
/* One decoder step over all layers: gx0 (B,4H) is layer 0's input projection,
 * feed (B,H) the previous attentional vector, mask (B) or NULL. h[l], c[l] are
 * replaced by the new states; returns the top layer's h (B,H). */
nn_tensor *nn_luong_decode_step(nn_graph *g, const nn_luong *m, nn_params *p, nn_tensor *gx0,
                                nn_tensor *feed, const float *mask, nn_tensor **h, nn_tensor **c);
/* The decoder's output for the top h (B,H): h̃ from attention over Hs with
 * keys K (see nn_attn_step), or h itself without attention. */
nn_tensor *nn_luong_output(nn_graph *g, const nn_luong *m, const nn_attn_w *aw, nn_tensor *top,
                           nn_tensor *K, nn_tensor *Hs, const float *mask, const int *len);

/* The summed label-smoothed loss (1,1) over the batch's target tokens
 * (*ntokens of them); NULL with the graph failed on bad shapes or ids.
 * Train: nn_tape_backward(g, loss, 1.0f / ntokens). */
nn_tensor *nn_luong_forward(nn_graph *g, const nn_luong *m, nn_params *p,
                            const nn_luong_batch *batch, long *ntokens);

#endif
