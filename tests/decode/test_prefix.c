/* Target prefixes (decode/prefix.h): segmented as the model's target (tokenized as its
 * target language, BPE'd with its codes), refused when the vocabulary cannot spell them,
 * written as given before the rest of the detokenized output. */
#include "decode/prefix.h"
#include "base/err.h"
#include "models/model.h"
#include "test.h"
#include <stdlib.h>
#include <string.h>

static const char *tokens = "<pad>\n<unk>\n<s>\n</s>\nIt\n's\na\nwol@@\nf\n@-@\ndog\n.\n";
/* the target's words: It, 's, wol@@ f, @-@, dog whole */
static const char *codes = "#version: 0.2\nI t</w>\n' s</w>\nw o\nwo l\nd o\ndo g</w>\n@ -\n@- @</w>\n";

static void model(nmt_model *m) {
  nmt_vocab *v;
  CHECK_INT(nmt_vocab_parse(&v, tokens, strlen(tokens), "v"), NMT_OK);
  nmt_vocab *w;
  CHECK_INT(nmt_vocab_parse(&w, tokens, strlen(tokens), "w"), NMT_OK);
  nmt_model_opts o = {.dim_emb = 4, .dim_rnn = 6, .enc_depth = 1, .dec_depth = 1, .attention = "general"};
  CHECK_INT(nmt_model_create(m, &o, v, w, 7), NMT_OK);
  CHECK_INT(nmt_tok_settings_set(&m->tok, "fr", "en", true, false, true), NMT_OK);
  m->bpe_codes = strdup(codes);
  m->bpe_len = strlen(codes);
}

TEST(decode_prefix_ids) {
  nmt_model m;
  model(&m);
  nmt_text *t;
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", false, true), NMT_OK);
  int *ids = NULL, n = 0, cap = 0;
  const char *p = "It\xe2\x80\x99s a wolf"; /* normalised (the curly apostrophe), tokenized, BPE'd */
  CHECK_INT(nmt_prefix_ids(t, m.tgt, p, strlen(p), &ids, &n, &cap), NMT_OK);
  CHECK_INT(n, 5);
  for (int i = 0; i < n; i++) CHECK_INT(ids[i], 4 + i);
  CHECK_INT(nmt_prefix_ids(t, m.tgt, "  ", 2, &ids, &n, &cap), NMT_OK);
  CHECK_INT(n, 0);
  CHECK_INT(nmt_prefix_ids(t, m.tgt, "a cat", 5, &ids, &n, &cap), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "the target vocabulary cannot spell 'c@@' (a token of the prefix)");
  nmt_text_free(t);
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", false, false), NMT_OK); /* --no-postprocess: subwords as given */
  CHECK_INT(nmt_prefix_ids(t, m.tgt, "wol@@ f", 7, &ids, &n, &cap), NMT_OK);
  CHECK_INT(n, 2);
  CHECK_INT(nmt_prefix_ids(t, m.tgt, "a </s>", 6, &ids, &n, &cap), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "'</s>' in the prefix is a control token, not a word");
  nmt_text_free(t);
  free(ids);
  nmt_model_free(&m);
}

TEST(decode_prefix_output_verbatim) {
  nmt_model m;
  model(&m);
  nmt_text *t;
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", false, true), NMT_OK);
  const int ids[] = {4, 5, 6, 7, 8, 9, 10, 11}; /* It 's a wol@@ f @-@ dog . */
  const struct { const char *given; int pre_n; const char *want; } cases[] = {
      {"It's", 2, "It's a wolf-dog."},
      {"It's ", 2, "It's a wolf-dog."},                      /* its space, one space */
      {"It\xe2\x80\x99s  a", 3, "It\xe2\x80\x99s  a wolf-dog."}, /* as given */
      {"It's a wolf", 5, "It's a wolf-dog."},                /* detokenized across the join */
      {"It's a wolf-dog.", 8, "It's a wolf-dog."}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    nmt_strbuf out = {0};
    CHECK_INT(nmt_prefix_target(t, m.tgt, ids, 8, cases[c].pre_n, cases[c].given, strlen(cases[c].given), &out),
              NMT_OK);
    CHECK_STR(out.s, cases[c].want);
    free(out.s);
  }
  nmt_text_free(t);
  nmt_model_free(&m);
}
