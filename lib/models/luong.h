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
#ifndef NMT_MODELS_LUONG_H
#define NMT_MODELS_LUONG_H
#include "models/net.h"

extern const nmt_family nmt_family_luong; /* --type luong */

#endif
