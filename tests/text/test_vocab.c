/* Vocabularies: built from text, written and parsed back, bad files named. */
#include "base/err.h"
#include "text/vocab.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

TEST(train_vocab_build_and_round_trip) {
  const char *path = t_tmp("text");
  write_text(path, "b a c\na b\nd b a c\n");
  nmt_vocab *v, *w;
  CHECK_INT(nmt_vocab_build(&v, path, 1, 0), NMT_OK);
  /* counts b 3, a 3, c 2, d 1: ties in order of first occurrence */
  CHECK_INT(nmt_vocab_size(v), 8);
  CHECK_STR(nmt_vocab_token(v, 4), "b");
  CHECK_STR(nmt_vocab_token(v, 5), "a");
  CHECK_STR(nmt_vocab_token(v, 7), "d");
  CHECK_INT(nmt_vocab_id(v, "c", 1), 6);
  CHECK_INT(nmt_vocab_id(v, "zz", 2), NMT_UNK);
  nmt_strbuf text = {0};
  CHECK_INT(nmt_vocab_text(v, &text), NMT_OK);
  CHECK_STR(text.s, "<pad>\n<unk>\n<s>\n</s>\nb\na\nc\nd\n");
  CHECK_INT(nmt_vocab_parse(&w, text.s, text.len, "v"), NMT_OK);
  for (int i = 0; i < nmt_vocab_size(v); i++) CHECK_STR(nmt_vocab_token(w, i), nmt_vocab_token(v, i));
  int *ids = NULL, n = 0, cap = 0;
  CHECK_INT(nmt_vocab_encode(w, " d  x a", 7, &ids, &n, &cap), NMT_OK);
  CHECK(n == 3 && ids[0] == 7 && ids[1] == NMT_UNK && ids[2] == 5);
  nmt_vocab *lim;
  CHECK_INT(nmt_vocab_build(&lim, path, 2, 6), NMT_OK); /* min count 2, at most 6 ids */
  CHECK_INT(nmt_vocab_size(lim), 6);
  free(ids), free(text.s);
  nmt_vocab_free(v), nmt_vocab_free(w), nmt_vocab_free(lim);
}

TEST(train_vocab_parse_errors) {
  nmt_vocab *v;
  CHECK_INT(nmt_vocab_parse(&v, "<pad>\n<unk>\n<s>\n</s>\na\na\n", 24, "v"), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "v:6: duplicate token");
  CHECK_INT(nmt_vocab_parse(&v, "a\n<unk>\n<s>\n</s>\n", 17, "v"), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "v:1: the specials <pad> <unk> <s> </s> must come first");
}

/* nmt_vocab_load takes get_vocab.py's "TOKEN COUNT" lines (nmt-bpe learn-joint --vocab-out):
 * the specials first, then the tokens in the file's order. */
TEST(train_vocab_load_counts) {
  const char *path = t_tmp("counts.vocab");
  write_text(path, "b@@ 7\na 3\n<unk> 2\nc 1\n");
  nmt_vocab *v;
  CHECK_INT(nmt_vocab_load(&v, path), NMT_OK);
  CHECK_INT(nmt_vocab_size(v), 7);
  CHECK_STR(nmt_vocab_token(v, 0), "<pad>");
  CHECK_STR(nmt_vocab_token(v, 4), "b@@");
  CHECK_STR(nmt_vocab_token(v, 5), "a");
  CHECK_STR(nmt_vocab_token(v, 6), "c");
  nmt_vocab_free(v);
  write_text(path, "b 7\na\n");
  CHECK_INT(nmt_vocab_load(&v, path), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "counts.vocab:2: not a 'TOKEN COUNT' line, as the first line is") != NULL);
  write_text(path, "b 7\nb 3\n");
  CHECK_INT(nmt_vocab_load(&v, path), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "counts.vocab:2: duplicate token") != NULL);
}
