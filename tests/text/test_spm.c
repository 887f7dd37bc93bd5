/* The SentencePiece shim (text/spm.h): a model trained in memory loads from
 * its bytes, encodes and decodes back exactly, as pieces and as ids, and its
 * pieces make an nmt vocabulary; bad bytes, ids and sentences are one-line
 * errors. */
#include "text/spm_case.h"
#include "base/err.h"
#include "test.h"
#include <stdlib.h>

static nmt_spm *tiny(const char *type) {
  char *bytes = NULL;
  size_t len = 0;
  nmt_spm *s = NULL;
  CHECK_INT(spm_case_train(&bytes, &len, 40, type), NMT_OK);
  CHECK_INT(nmt_spm_load(&s, bytes, len, "tiny"), NMT_OK);
  free(bytes);
  return s;
}

TEST(spm_round_trip) {
  const char *types[] = {"unigram", "bpe"};
  for (int t = 0; t < 2; t++) {
    nmt_spm *s = tiny(types[t]);
    if (!s) return;
    CHECK_INT(nmt_spm_size(s), 40);
    for (int i = 0; i < SPM_CASE_LINES; i += 17) {
      const char *line = spm_case_sentence(i);
      for (int ids = 0; ids < 2; ids++) {
        nmt_strbuf toks = {0}, back = {0};
        CHECK_INT(nmt_spm_encode(s, line, strlen(line), ids, &toks), NMT_OK);
        CHECK(toks.len > 0 && !strchr(toks.s, '\n'));
        CHECK_INT(nmt_spm_decode(s, toks.s, toks.len, ids, &back), NMT_OK);
        CHECK_STR(back.s, line);
        nmt_strbuf_free(&toks), nmt_strbuf_free(&back);
      }
    }
    nmt_spm_free(s);
  }
}

TEST(spm_segmenter_is_encode_and_decode) {
  nmt_spm *s = tiny("unigram");
  if (!s) return;
  nmt_segmenter *g = nmt_spm_segmenter(s);
  const char *line = "kato sumi naré";
  nmt_strbuf a = {0}, b = {0}, c = {0};
  CHECK_INT(g->split(g, line, strlen(line), &a), NMT_OK);
  CHECK_INT(nmt_spm_encode(s, line, strlen(line), false, &b), NMT_OK);
  CHECK_STR(a.s, b.s);
  CHECK_INT(g->join(g, a.s, a.len, &c), NMT_OK);
  CHECK_STR(c.s, line);
  nmt_strbuf_free(&a), nmt_strbuf_free(&b), nmt_strbuf_free(&c);
  g->free(g); /* frees s */
}

TEST(spm_vocab_of_pieces) {
  nmt_spm *s = tiny("unigram");
  if (!s) return;
  nmt_vocab *v = NULL;
  CHECK_INT(nmt_spm_vocab(&v, s, "tiny"), NMT_OK);
  if (!v) return;
  /* <unk> <s> </s> are the vocabulary's own specials: 40 - 3 + 4 */
  CHECK_INT(nmt_vocab_size(v), 41);
  CHECK_STR(nmt_vocab_token(v, NMT_EOS), "</s>");
  for (int id = 3, k = NMT_NSPECIALS; id < nmt_spm_size(s); id++, k++)
    CHECK_STR(nmt_vocab_token(v, k), nmt_spm_piece(s, id, NULL, NULL));
  /* a line's pieces are all in it */
  const char *line = spm_case_sentence(3);
  nmt_strbuf toks = {0};
  int *ids = NULL, n = 0, cap = 0;
  CHECK_INT(nmt_spm_encode(s, line, strlen(line), false, &toks), NMT_OK);
  CHECK_INT(nmt_vocab_encode(v, toks.s, toks.len, &ids, &n, &cap), NMT_OK);
  for (int i = 0; i < n; i++) CHECK(ids[i] >= NMT_NSPECIALS);
  free(ids);
  nmt_strbuf_free(&toks);
  nmt_vocab_free(v);
  nmt_spm_free(s);
}

TEST(spm_bad_input) {
  nmt_spm *s = NULL;
  CHECK_INT(nmt_spm_load(&s, "\n\001\002xyz", 6, "g.model"), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "g.model: not a SentencePiece model (byte 2: a field numbered 0)");
  CHECK_INT(nmt_spm_load(&s, "", 0, "empty"), NMT_EINPUT);
  s = tiny("unigram");
  if (!s) return;
  nmt_strbuf out = {0};
  CHECK_INT(nmt_spm_decode(s, "3 40", 4, true, &out), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "'40' is not an id of the model (0 to 39)");
  CHECK_INT(nmt_spm_decode(s, "3 -1", 4, true, &out), NMT_EINPUT);
  CHECK_INT(nmt_spm_decode(s, "3 4x", 4, true, &out), NMT_EINPUT);
  CHECK_INT(nmt_spm_decode(s, "", 0, true, &out), NMT_OK); /* an empty line */
  CHECK_INT((int)out.len, 0);
  nmt_strbuf_free(&out);
  nmt_spm_free(s);
  char *bytes = NULL;
  size_t len;
  CHECK_INT(spm_case_train(&bytes, &len, 5000, "unigram"), NMT_EINPUT); /* more pieces than the text has */
  CHECK(strstr(nmt_errmsg(), "Vocabulary size too high (5000)"));
  free(bytes);
}

static int failing(void *ctx, const char **line, size_t *n) {
  int *i = ctx;
  if ((*i)++ < 3) return *line = "kato su", *n = 7, 1;
  return nmt_fail(NMT_EINPUT, "t:4: invalid UTF-8 at byte offset 0"), -1;
}

TEST(spm_train_keeps_the_readers_error) {
  int i = 0;
  nmt_spm_train_opts o = {40, "unigram", 1.0, 1, failing, &i};
  char *bytes = NULL;
  size_t len;
  CHECK_INT(nmt_spm_train(&o, &bytes, &len), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "t:4: invalid UTF-8 at byte offset 0");
  free(bytes);
}
