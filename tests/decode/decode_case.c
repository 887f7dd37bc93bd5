/* The decoder tests' models; see decode/decode_case.h. */
#include "decode/decode_case.h"
#include "base/err.h"
#include "test.h"
#include <string.h>

void decode_model(nmt_model *m, const nmt_model_opts *o, uint64_t seed) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\na\nb\nc\nd\ne\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, text, strlen(text), "v");
  nmt_vocab_parse(&vt, text, strlen(text), "v");
  CHECK_INT(nmt_model_create(m, o, vs, vt, seed), NMT_OK);
  nn_params_init(&m->params, NN_INIT_UNIFORM, 0.5f, seed); /* peakier than 0.1: a real test */
}

#pragma GCC diagnostic ignored "-Woverride-init" /* rows override TINY's fields */
#define TINY .dim_emb = 5, .dim_rnn = 8, .enc_depth = 2, .dec_depth = 2, .window = 2, .input_feed = true
static const nmt_model_opts variant[DECODE_NVARIANTS] = {
    {TINY, .attention = "dot"},
    {TINY, .attention = "general"},
    {TINY, .attention = "mlp"},
    {TINY, .attention = "mlp", .local = true},
    {TINY, .attention = "general", .enc_type = "bidirectional"},
    {TINY, .attention = "mlp", .local = true, .enc_type = "bi-unidirectional", .enc_depth = 3},
    {TINY, .attention = "general", .reverse_source = true, .enc_depth = 1},
    {TINY, .attention = "none", .enc_type = "bidirectional", .dec_depth = 3},
    {TINY, .attention = "dot", .enc_type = "bidirectional", .reverse_source = true, .enc_depth = 3, .dec_depth = 1},
    /* rhn (paper 003; the reconstructor, training only, in tests/models/test_rhn_recon.c) */
    {TINY, .type = "rhn", .attention = "general", .enc_type = "bidirectional", .enc_cell_depth = 2, .dec_cell_depth = 3},
    {TINY, .type = "rhn", .attention = "mlp", .local = true, .rhn_coupled = true, .dec_cell_depth = 2},
    {TINY, .type = "rhn", .attention = "none", .enc_cell_depth = 2},
    /* srnmt (paper 000): SR-NMT bidirectional; E = H (no highway projection), 3 decoder layers; SRU with LN */
    {TINY, .type = "srnmt", .attention = "mlp", .enc_type = "bidirectional"},
    {TINY, .type = "srnmt", .attention = "mlp", .dim_emb = 8, .dec_depth = 3},
    {TINY, .type = "srnmt", .attention = "mlp", .enc_cell = "sru", .dec_cell = "sru", .enc_type = "bi-unidirectional", .layer_norm = true},
};

void decode_variant(nmt_model *m, int i, uint64_t seed) { decode_model(m, &variant[i], seed); }
