/* Unknown-word replacement (decode/unk.h): the attended subword stands for its
 * whole word, a dictionary entry for the word wins, and a dictionary's bad
 * lines name file and line. */
#include "decode/unk.h"
#include "base/err.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nmt_vocab *target_vocab(void) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\nis\nbig\n";
  nmt_vocab *v;
  CHECK_INT(nmt_vocab_parse(&v, text, strlen(text), "v"), NMT_OK);
  return v;
}

/* ids with <unk> at every j whose align[j] >= 0 (the others: "is"). */
static void check_replace(const nmt_vocab *v, const char *src, const int *align, int n, const nmt_unk_dict *d,
                          const char *want) {
  int ids[8];
  for (int j = 0; j < n; j++) ids[j] = align[j] >= 0 ? NMT_UNK : 4;
  nmt_strbuf out = {0};
  CHECK_INT(nmt_unk_replace(v, ids, n, align, src, strlen(src), d, &out), NMT_OK);
  CHECK_STR(out.s ? out.s : "", want);
  free(out.s);
}

TEST(decode_unk_whole_source_words) {
  nmt_vocab *v = target_vocab();
  const char *src = "New Y@@ or@@ k  is big@@";
  /* any piece of "Y@@ or@@ k" gives York; a word's last piece ending in @@ (a cut line) joins without it */
  check_replace(v, src, (const int[]){1, -1, 2, 3, 0}, 5, NULL, "York is York York New");
  check_replace(v, src, (const int[]){5, 4}, 2, NULL, "big is");
  /* an alignment past the source (never from the decoder) keeps <unk> */
  check_replace(v, src, (const int[]){6}, 1, NULL, "<unk>");
  nmt_vocab_free(v);
}

TEST(decode_unk_dictionary) {
  nmt_vocab *v = target_vocab();
  char path[512];
  snprintf(path, sizeof path, "%s", t_tmp("dict"));
  FILE *f = fopen(path, "w");
  fputs("York\tYork-ville\nYork\tYorck\nNew\tneu en\n", f);
  fclose(f);
  nmt_unk_dict *d;
  CHECK_INT(nmt_unk_dict_load(&d, path), NMT_OK);
  check_replace(v, "New Y@@ or@@ k is big", (const int[]){2, -1, 0, 5}, 4, d, "York-ville is neu en big");
  nmt_unk_dict_free(d);
  const char *bad[] = {"a\tb\nno tab\n", "a\tb\n\n", "\tb\n", "a\t\n", "a b\tc\n", "a\tb\tc\n", "a\tb\n\377\tc\n"};
  const char *want[] = {":2: expected", ":2: expected", ":1: expected", ":1: expected", ":1: expected",
                        ":1: expected", ":2: invalid UTF-8"};
  for (int i = 0; i < 7; i++) {
    f = fopen(path, "w");
    fputs(bad[i], f);
    fclose(f);
    CHECK_INT(nmt_unk_dict_load(&d, path), NMT_EINPUT);
    CHECK(!d && strstr(nmt_errmsg(), path) && strstr(nmt_errmsg(), want[i]));
  }
  nmt_vocab_free(v);
}
