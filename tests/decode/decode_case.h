/* The random models the decoder tests share: a tiny vocabulary (the four
 * specials and a..e, ids 4..8) on both sides, and one model per family variant. */
#ifndef NMT_TESTS_DECODE_DECODE_CASE_H
#define NMT_TESTS_DECODE_DECODE_CASE_H
#include "models/model.h"

enum { DECODE_NVARIANTS = 15 };

/* A model with options o, weights U(±0.5) from seed (a failure fails the test). */
void decode_model(nmt_model *m, const nmt_model_opts *o, uint64_t seed);
/* The model of variant i (0 <= i < DECODE_NVARIANTS): each family, attention
 * kind, encoder type and reversed sources. */
void decode_variant(nmt_model *m, int i, uint64_t seed);

#endif
