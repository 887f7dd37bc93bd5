/* lib/api: the public API's versions, options and errors without a model (translation,
 * threads and the installed library: tests/cli/lib.cases). */
#include <nmt.h>
#include "base/cli.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

TEST(api_version_matches_the_tools) {
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", NMT_VERSION_MAJOR, NMT_VERSION_MINOR, NMT_VERSION_PATCH);
  CHECK_STR(nmt_version(), want);
  CHECK_STR(NMT_VERSION, want);
}

TEST(api_bad_options_and_handles) {
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  CHECK_INT(o.size, sizeof o);
  CHECK_INT(o.beam_size, 5);
  nmt_translator *t = (nmt_translator *)&o;
  const char *m[] = {"no-such.bin"};
  o.threads = 9;
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_USAGE);
  CHECK(t == NULL);
  CHECK_STR(nmt_last_error(), "threads must be between 1 and 8 (got 9)");
  nmt_translator_options_init(&o);
  o.size = 4;
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_USAGE);
  CHECK_INT(nmt_translator_new(&t, m, 0, NULL), NMT_STATUS_USAGE);
  CHECK_INT(nmt_translator_new(&t, m, 1, NULL), NMT_STATUS_IO);
  CHECK(t == NULL);
  nmt_result *r = NULL;
  CHECK_INT(nmt_translator_translate(NULL, m, 1, &r), NMT_STATUS_USAGE);
  CHECK(r == NULL);
  CHECK_INT(nmt_result_size(NULL), 0);
  CHECK(nmt_result_text(NULL, 0, 0) == NULL);
  nmt_translator_free(NULL), nmt_result_free(NULL), nmt_moses_free(NULL), nmt_subword_free(NULL);
}

TEST(api_moses_and_bpe_lines) {
  nmt_moses *m;
  CHECK_INT(nmt_moses_new(&m, "fr", NMT_MOSES_AGGRESSIVE), NMT_STATUS_OK);
  char *out = NULL;
  CHECK_INT(nmt_moses_tokenize(m, "C'est un chien-loup.", &out), NMT_STATUS_OK);
  CHECK_STR(out, "C' est un chien @-@ loup .");
  nmt_string_free(out);
  CHECK_INT(nmt_moses_detokenize(m, "", &out), NMT_STATUS_OK);
  CHECK_STR(out, "");
  nmt_string_free(out);
  CHECK_INT(nmt_moses_tokenize(m, "a\nb", &out), NMT_STATUS_INPUT);
  CHECK_INT(nmt_moses_tokenize(m, "a\377", &out), NMT_STATUS_INPUT);
  CHECK(out == NULL);
  nmt_moses_free(m);
  nmt_subword *b;
  CHECK_INT(nmt_subword_new(&b, "no-such-codes"), NMT_STATUS_IO);
  CHECK(b == NULL);
}
