/* The stacked recurrent encoder the families share (luong, rhn): the source
 * (reversed with --reverse-source) through its embeddings with dropout, then
 * enc_layers layers, the first nmt_enc_bi_layers of them bidirectional: the
 * backward direction runs forward over each sentence's reversed rows, and its
 * outputs join the forward ones after the last bidirectional layer; dropout
 * between layers. A family gives only its layer. */
#ifndef NMT_MODELS_ENCODER_H
#define NMT_MODELS_ENCODER_H
#include "models/net.h"

enum { NMT_ENC_MAX_FINALS = 2 }; /* final states a layer hands the decoder: h (and an LSTM's c) */

/* Direction dir (0 forward, 1 backward) of model m's encoder layer l over X
 * (S*B, in): the outputs (S*B, out), each final state (B, out) into fin[0..nfin). */
typedef nn_tensor *(*nmt_enc_layer_fn)(nn_graph *g, const nmt_net *m, nn_params *p, int l, int dir,
                                      nn_tensor *X, const float *mask, int S, nn_tensor **fin);

/* How many of the first encoder layers are bidirectional (--enc-type). */
int nmt_enc_bi_layers(const nmt_net_cfg *c);

/* Model m's encoder over src (S*B ids, lengths src_len (B), both in host
 * memory; mask (S*B) in the backend's, as the ops take it) with source
 * embeddings E and layer fn: the top outputs (S*B, F); fin[k][l] gets layer
 * l's final state k (a bidirectional layer's two directions concatenated). */
nn_tensor *nmt_encode_stack(nn_graph *g, const nmt_net *m, nn_params *p, nn_tensor *E, const int *src,
                           const int *src_len, int S, int B, const float *mask, nmt_enc_layer_fn fn,
                           int nfin, nn_tensor **fin[NMT_ENC_MAX_FINALS]);

#endif
