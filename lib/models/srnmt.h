/* The SR-NMT family (--type srnmt; paper 000, Di Gangi & Federico 2018) and
 * plain SRU (Lei et al. 2017) in the same frame (docs/models.md).
 *
 * --enc-cell srnmt --dec-cell srnmt: encoder layer [x̃, g, z] = LN(x·W),
 * c = scan(x̃, g) (units [0, H/2) forward and [H/2, H) backward in a
 * bidirectional layer), h = (1-σ(z))⊙c + σ(z)⊙x. Decoder layer
 * [ỹ, g, z] = LN(y·W), s̃ = scan(ỹ, g), attention on the top encoder output H
 * with scores vᵀtanh(LN(s̃·W_as) + LN(h·W_ah)), c = Σα h / √H,
 * o = tanh(LN(s̃·W_s) + LN(c·W_c)), s = (1-σ(z))⊙o + σ(z)⊙y.
 *
 * --enc-cell sru --dec-cell sru: the same layers with x·W + b instead of LN
 * (LN with --layer-normalization) and tanh(c) in the highway; attention
 * (the block above) on the top decoder layer only, its o the output.
 *
 * Where a layer's input is not H wide (the embeddings), its highway reads
 * x·W_p. Dropout before every parameter matrix; the decoder's state is one
 * scan vector per layer, starting at zero; no input feeding, so training runs
 * each layer as one GEMM and one scan and the attention for all steps at once. */
#ifndef NMT_MODELS_SRNMT_H
#define NMT_MODELS_SRNMT_H
#include "models/net.h"

extern const nmt_family nmt_family_srnmt; /* --type srnmt */

#endif
