/* SentencePiece vocabularies in a model: the .model bytes round-trip through
 * the model file, open as segmenters, split raw training text as it is read,
 * and nmt-decode's text turns raw lines into pieces and ids back into text. */
#include "decode/text.h"
#include "models/batch.h"
#include "base/err.h"
#include "text/spm_case.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

/* A model over the vocabularies of a unigram (source) and a BPE (target) model. */
static bool spm_model(nmt_model *m) {
  const char *types[2] = {"unigram", "bpe"};
  nmt_vocab *v[2] = {NULL, NULL};
  char *bytes[2] = {NULL, NULL};
  size_t len[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    nmt_spm *s = NULL;
    CHECK_INT(spm_case_train(&bytes[i], &len[i], 40, types[i]), NMT_OK);
    if (bytes[i]) CHECK_INT(nmt_spm_load(&s, bytes[i], len[i], "tiny"), NMT_OK);
    if (s) CHECK_INT(nmt_spm_vocab(&v[i], s, "tiny"), NMT_OK);
    nmt_spm_free(s);
  }
  nmt_model_opts o = {.dim_emb = 4, .dim_rnn = 6, .enc_depth = 1, .dec_depth = 1, .attention = "general"};
  bool ok = v[0] && v[1];
  if (ok) CHECK_INT(nmt_model_create(m, &o, v[0], v[1], 7), NMT_OK);
  for (int i = 0; i < 2 && ok; i++) m->spm[i] = bytes[i], m->spm_len[i] = len[i];
  if (!ok) nmt_vocab_free(v[0]), nmt_vocab_free(v[1]), free(bytes[0]), free(bytes[1]);
  return ok;
}

TEST(model_spm_bytes_round_trip) {
  nmt_model m, back;
  if (!spm_model(&m)) return;
  const char *path = t_tmp("m.bin");
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  CHECK_INT(nmt_model_load(&back, path), NMT_OK);
  for (int i = 0; i < 2; i++) {
    CHECK_INT((long long)back.spm_len[i], (long long)m.spm_len[i]);
    CHECK(back.spm[i] && !memcmp(back.spm[i], m.spm[i], m.spm_len[i]));
    CHECK(!back.seg[i]); /* opened on request only */
  }
  CHECK_INT(nmt_model_open_spm(&back, path), NMT_OK);
  CHECK(back.seg[0] && back.seg[1]);
  nmt_model_free(&back);
  /* one side alone is a damaged file */
  free(m.spm[1]);
  m.spm[1] = NULL;
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  CHECK_INT(nmt_model_load(&back, path), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "srcspm and tgtspm go together"));
  nmt_model_free(&m);
}

TEST(model_spm_corpus_is_split_as_read) {
  nmt_model m;
  if (!spm_model(&m)) return;
  CHECK_INT(nmt_model_open_spm(&m, "m"), NMT_OK);
  const char *path = t_tmp("raw");
  FILE *f = fopen(path, "w");
  for (int i = 0; i < 5; i++) fprintf(f, "%s\n", spm_case_sentence(i));
  fclose(f);
  nmt_corpus c;
  CHECK_INT(nmt_corpus_read(&c, path, path, m.src, m.tgt, m.seg, 0), NMT_OK);
  CHECK_INT(c.n, 5);
  for (int i = 0; i < 5 && c.n == 5; i++) {
    const char *line = spm_case_sentence(i);
    nmt_strbuf toks = {0}, text = {0};
    int *ids = NULL, n = 0, cap = 0;
    CHECK_INT(m.seg[0]->split(m.seg[0], line, strlen(line), &toks), NMT_OK);
    CHECK_INT(nmt_vocab_encode(m.src, toks.s, toks.len, &ids, &n, &cap), NMT_OK);
    CHECK_INT(c.src_off[i + 1] - c.src_off[i], n);
    CHECK(!memcmp(c.src + c.src_off[i], ids, sizeof *ids * (size_t)n));
    /* the target's ids are its model's pieces, and decode to the line */
    CHECK_INT(nmt_ids_desegment(m.tgt, m.seg[1], c.tgt + c.tgt_off[i], (int)(c.tgt_off[i + 1] - c.tgt_off[i]),
                                &text), NMT_OK);
    CHECK_STR(text.s, line);
    free(ids);
    nmt_strbuf_free(&toks), nmt_strbuf_free(&text);
  }
  nmt_corpus_free(&c);
  nmt_model_free(&m);
}

TEST(model_spm_decode_text) {
  nmt_model m;
  if (!spm_model(&m)) return;
  nmt_text *t = NULL;
  CHECK_INT(nmt_model_open_spm(&m, "m"), NMT_OK);
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", true, true), NMT_OK);
  if (!t) return;
  const char *line = spm_case_sentence(1), *out;
  size_t n;
  nmt_strbuf want = {0}, text = {0};
  CHECK_INT(nmt_text_source(t, line, strlen(line), &out, &n), NMT_OK);
  CHECK_INT(m.seg[0]->split(m.seg[0], line, strlen(line), &want), NMT_OK);
  CHECK_INT((long long)n, (long long)want.len);
  CHECK(!memcmp(out, want.s, n));
  /* target ids: text decoded by the target's model; --no-postprocess: pieces */
  int ids[3] = {NMT_NSPECIALS, NMT_NSPECIALS + 1, NMT_NSPECIALS + 2};
  CHECK_INT(nmt_text_target(t, ids, 3, &text), NMT_OK);
  CHECK(!strstr(text.s, "\xe2\x96\x81")); /* no ▁ left */
  nmt_text_free(t);
  CHECK_INT(nmt_text_new(&t, &m, "m.bin", false, false), NMT_OK);
  text.len = 0;
  CHECK_INT(nmt_text_target(t, ids, 3, &text), NMT_OK);
  nmt_strbuf toks = {0};
  CHECK_INT(nmt_ids_text(m.tgt, ids, 3, false, &toks), NMT_OK);
  CHECK_STR(text.s, toks.s);
  nmt_text_free(t);
  nmt_strbuf_free(&want), nmt_strbuf_free(&text), nmt_strbuf_free(&toks);
  nmt_model_free(&m);
}
