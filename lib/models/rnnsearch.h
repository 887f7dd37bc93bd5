/* The RNNSearch family (paper 001): ATR, GRU or LSTM cells in Bahdanau's
 * attention frame, with the context-aware encoder and GNMT-style residual
 * stacks as options. docs/models.md. */
#ifndef NMT_MODELS_RNNSEARCH_H
#define NMT_MODELS_RNNSEARCH_H
#include "models/net.h"

extern const nmt_family nmt_family_rnnsearch; /* --type rnnsearch */

#endif
