/* lib/api: the public API's versions, options and errors, alignments and n-best lists of
 * a random model, and the device option of a library without the CUDA backend (the
 * translations' bytes, threads and the installed library: tests/cli/lib.cases; a GPU:
 * tests/cuda/test_api_device.c). */
#include <nmt.h>
#include "base/cli.h"
#include "base/err.h"
#include "decode/decode_case.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Variant i of the decoder tests' models (vocabulary a..e) saved under name. */
static void saved_variant(int i, const char *name, char *path, size_t n) {
  nmt_model m;
  decode_variant(&m, i, 40 + i);
  snprintf(path, n, "%s", t_tmp(name));
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  nmt_model_free(&m);
}

static int words(const char *s, char sep) {
  int n = *s != 0;
  for (; *s; s++) n += *s == sep;
  return n;
}

/* Hypothesis k of a line: one hard pair per target word, target positions in order. */
static void check_hard(const char *text, const char *align) {
  CHECK_INT(words(align, ' '), words(text, ' '));
  int t = 0, s, got;
  for (const char *p = align; *p; t++) {
    int used = 0;
    CHECK_INT(sscanf(p, "%d-%d%n", &s, &got, &used), 2);
    CHECK_INT(got, t);
    p += used + (p[used] == ' ');
    if (!used) break;
  }
}

TEST(api_alignments_and_n_best) {
  char path[4096];
  saved_variant(1, "att.bin", path, sizeof path);
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  o.beam_size = 3, o.n_best = 1, o.alignment = "hard";
  nmt_translator *t;
  const char *m[] = {path}, *lines[] = {"a b c d", "", "e a"};
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_OK);
  nmt_result *r;
  CHECK_INT(nmt_translator_translate(t, lines, 3, &r), NMT_STATUS_OK);
  CHECK_INT(nmt_result_hypotheses(r, 0), 3);
  for (int k = 0; k < 3; k++) check_hard(nmt_result_text(r, 0, k), nmt_result_alignment(r, 0, k));
  CHECK(nmt_result_score(r, 0, 0) >= nmt_result_score(r, 0, 1));
  CHECK_STR(nmt_result_alignment(r, 1, 0), "");
  CHECK(nmt_result_alignment(r, 0, 3) == NULL && nmt_result_alignment(r, 3, 0) == NULL);
  nmt_result_free(r), nmt_translator_free(t);
  o.n_best = 0, o.alignment = "soft"; /* a row of 2 source words and </s> per target word */
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_OK);
  CHECK_INT(nmt_translator_translate(t, &lines[2], 1, &r), NMT_STATUS_OK);
  CHECK_INT(nmt_result_hypotheses(r, 0), 1);
  const char *soft = nmt_result_alignment(r, 0, 0);
  CHECK_INT(words(soft, ' '), words(nmt_result_text(r, 0, 0), ' '));
  if (*soft) CHECK_INT(words(soft, ','), 2 * words(soft, ' ') + 1);
  nmt_result_free(r), nmt_translator_free(t);
  o.alignment = NULL; /* none asked: "" */
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_OK);
  CHECK_INT(nmt_translator_translate(t, lines, 1, &r), NMT_STATUS_OK);
  CHECK_STR(nmt_result_alignment(r, 0, 0), "");
  nmt_result_free(r), nmt_translator_free(t);
}

TEST(api_alignment_errors) {
  char path[4096];
  saved_variant(7, "no-att.bin", path, sizeof path); /* attention none */
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  o.alignment = "hard";
  nmt_translator *t;
  const char *m[] = {path};
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_USAGE);
  CHECK_STR(nmt_last_error(), "alignments need a model with attention");
  o.alignment = "sideways";
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_USAGE);
  CHECK_STR(nmt_last_error(), "alignment 'sideways': expected hard, soft or a threshold in (0, 1]");
  CHECK(t == NULL);
}

/* nmt-tests has no CUDA backend: a GPU is an error (NMT_STATUS_DEVICE), never the CPU. */
TEST(api_device_without_cuda) {
  char path[4096];
  saved_variant(1, "att.bin", path, sizeof path);
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  nmt_translator *t;
  const char *m[] = {path};
  o.device = "cuda";
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_DEVICE);
  CHECK_STR(nmt_last_error(), "device 'cuda': this libnmt.so is built without the CUDA backend");
  CHECK(t == NULL);
  o.device = "cuda:1";
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_DEVICE);
  CHECK_STR(nmt_last_error(), "device 'cuda:1': the library runs on GPU 0 only (cuda or cuda:0)");
  o.device = "tpu";
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_USAGE);
  CHECK_STR(nmt_last_error(), "bad device 'tpu' (expected cpu, cuda or cuda:N)");
  o.device = "cuda:0", o.int8 = 1;
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_USAGE);
  CHECK_STR(nmt_last_error(), "int8 and shortlist run on the CPU only (device 'cuda:0')");
  o.device = "cpu";
  CHECK_INT(nmt_translator_new(&t, m, 1, &o), NMT_STATUS_OK);
  nmt_translator_free(t);
}
