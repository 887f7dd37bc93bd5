/* nmt-decode's text handling: tokenizer settings in the model, --raw source
 * preparation, detokenized output, attention alignments. */
#include "decode/align.h"
#include "decode/text.h"
#include "base/err.h"
#include "test.h"
#include <stdlib.h>

static nmt_vocab *vocab(const char *tokens) {
  nmt_vocab *v;
  CHECK_INT(nmt_vocab_parse(&v, tokens, strlen(tokens), "v"), NMT_OK);
  return v;
}

static const char *src_tokens = "<pad>\n<unk>\n<s>\n</s>\nC@@\n'\nest\nun\nchi@@\nen\n@-@\nloup\n.\n";
static const char *tgt_tokens = "<pad>\n<unk>\n<s>\n</s>\nIt\n's\na\nwol@@\nf\n@-@\ndog\n.\n";
/* "est", "un", "en", "loup" and "@-@" whole, "C" and "chi" by themselves */
static const char *codes = "#version: 0.2\ne s\nes t</w>\nu n</w>\ne n</w>\nl o\nlo u\nlou p</w>\n@ -\n@- @</w>\nc h\nch i\n";

static void tiny_model(nmt_model *m, const char *attention, bool reverse) {
  nmt_model_opts o = {.dim_emb = 4, .dim_rnn = 6, .enc_depth = 1, .dec_depth = 1, .attention = attention,
                      .reverse_source = reverse, .input_feed = true};
  CHECK_INT(nmt_model_create(m, &o, vocab(src_tokens), vocab(tgt_tokens), 7), NMT_OK);
  nn_params_init(&m->params, NN_INIT_UNIFORM, 0.8f, 7);
}

static void with_settings(nmt_model *m) {
  CHECK_INT(nmt_tok_settings_set(&m->tok, "fr", "en", true, false, true), NMT_OK);
  m->bpe_codes = strdup(codes);
  m->bpe_len = strlen(codes);
}

TEST(decode_text_settings_round_trip) {
  nmt_model m, back;
  tiny_model(&m, "general", false);
  with_settings(&m);
  const char *path = t_tmp("m.bin");
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  CHECK_INT(nmt_model_load(&back, path), NMT_OK);
  CHECK_STR(back.tok.src_lang, "fr");
  CHECK_STR(back.tok.tgt_lang, "en");
  CHECK(back.tok.aggressive && !back.tok.escape && back.tok.normalize);
  CHECK(back.bpe_codes && !strcmp(back.bpe_codes, codes));
  nmt_model_free(&back);
  m.tok = (nmt_tok_settings){0}; /* none: no keys written, none read back */
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  CHECK_INT(nmt_model_load(&back, path), NMT_OK);
  CHECK_STR(back.tok.src_lang, "");
  nmt_model_free(&back);
  nmt_model_free(&m);
}

TEST(decode_text_settings_flags) {
  nmt_tok_settings t;
  CHECK_INT(nmt_tok_settings_set(&t, NULL, NULL, false, true, false), NMT_OK);
  CHECK_STR(t.src_lang, "");
  CHECK_INT(nmt_tok_settings_set(&t, "fr", NULL, false, true, false), NMT_EUSAGE);
  CHECK_INT(nmt_tok_settings_set(&t, NULL, NULL, false, false, false), NMT_EUSAGE); /* --tok-no-escape alone */
  CHECK_INT(nmt_tok_settings_set(&t, "fr", "a very long language", false, true, false), NMT_EUSAGE);
}

TEST(decode_text_raw_source_and_detokenized_output) {
  nmt_model m;
  tiny_model(&m, "general", false);
  nmt_text *t;
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", true, true), NMT_EUSAGE);
  CHECK(strstr(nmt_errmsg(), "m.bin: --raw needs tokenizer settings"));
  with_settings(&m);
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", true, true), NMT_OK);
  const char *out;
  size_t n;
  /* normalised (the curly apostrophe), tokenized with -a, BPE'd */
  const char *line = "C\xe2\x80\x99""est un chien-loup.";
  CHECK_INT(nmt_text_source(t, line, strlen(line), &out, &n), NMT_OK);
  const char *want = "C@@ ' est un chi@@ en @-@ loup .";
  CHECK(n == strlen(want) && !memcmp(out, want, n));
  CHECK_INT(nmt_text_source(t, "", 0, &out, &n), NMT_OK);
  CHECK_INT(n, 0);
  const int ids[] = {4, 5, 6, 7, 8, 9, 10, 11}; /* It 's a wol@@ f @-@ dog . */
  nmt_strbuf text = {0};
  CHECK_INT(nmt_text_target(t, ids, 8, &text), NMT_OK);
  CHECK_STR(text.s, "It's a wolf-dog.");
  nmt_text_free(t);
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", false, false), NMT_OK); /* --no-postprocess */
  text.len = 0;
  CHECK_INT(nmt_text_target(t, ids, 8, &text), NMT_OK);
  CHECK_STR(text.s, "It 's a wol@@ f @-@ dog .");
  CHECK_INT(nmt_text_source(t, "x y", 3, &out, &n), NMT_OK);
  CHECK(out && n == 3);
  nmt_text_free(t);
  m.tok = (nmt_tok_settings){0}; /* no settings: BPE joined, tokenized */
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", false, true), NMT_OK);
  text.len = 0;
  CHECK_INT(nmt_text_target(t, ids, 8, &text), NMT_OK);
  CHECK_STR(text.s, "It 's a wolf @-@ dog .");
  nmt_text_free(t);
  free(text.s);
  nmt_model_free(&m);
}

/* Attention weights do not depend on what else is in the pass (padding is
 * masked), are a distribution over the source and </s>, give hard alignments
 * inside the source, and need attention. */
TEST(decode_text_alignment_batch_independent) {
  static const int s0[] = {4, 5, 6, 7, 8}, s1[] = {9}, s2[] = {10, 11, 12};
  static const int t0[] = {4, 5, 6}, t1[] = {7, 8, 9, 10, 11, 4}, t2[] = {11};
  const int *src[] = {s0, s1, s2}, *tgt[] = {t0, t1, t2};
  const int src_n[] = {5, 1, 3}, tgt_n[] = {3, 6, 1};
  for (int reverse = 0; reverse < 2; reverse++) {
    nmt_model m;
    tiny_model(&m, "general", reverse);
    float together[3][6 * 6], alone[3][6 * 6];
    float *out[] = {together[0], together[1], together[2]};
    nmt_dec g = {0};
    CHECK_INT(nmt_attention(&g, NMT_ONE_MODEL(&m.net, &m.params), src, src_n, tgt, tgt_n, 3, out), NMT_OK);
    for (int r = 0; r < 3; r++) {
      float *one = alone[r];
      CHECK_INT(nmt_attention(&g, NMT_ONE_MODEL(&m.net, &m.params), src + r, src_n + r, tgt + r, tgt_n + r, 1, &one),
                NMT_OK);
      for (int j = 0, S = src_n[r] + 1; j < tgt_n[r]; j++) {
        int a = nmt_attention_argmax(together[r] + j * S, src_n[r]), b = nmt_attention_argmax(alone[r] + j * S, src_n[r]);
        CHECK_INT(a, b);
        CHECK(a >= 0 && a < src_n[r]);
        double sum = 0; /* a distribution over the source and its </s> */
        for (int s = 0; s < S; s++) {
          sum += together[r][j * S + s];
          CHECK_NEAR(together[r][j * S + s], alone[r][j * S + s], 1e-6);
        }
        CHECK_NEAR(sum, 1, 1e-5);
      }
    }
    nmt_dec_free(&g);
    nmt_model_free(&m);
  }
  nmt_model m;
  tiny_model(&m, "none", false);
  nmt_dec g = {0};
  float a[3 * 6], *out = a;
  CHECK_INT(nmt_attention(&g, NMT_ONE_MODEL(&m.net, &m.params), src, src_n, tgt, tgt_n, 1, &out), NMT_EUSAGE);
  nmt_dec_free(&g);
  nmt_model_free(&m);
}
