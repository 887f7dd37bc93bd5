/* nmt-bpe and lib/bpe: identical output to subword-nmt on ../shared/refs/bpe,
 * plus the behaviours the references do not reach. */
#include "text/bpe.h"
#include "base/err.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REFS "refs/bpe/"

/* t_shared() returns one of 4 rotating buffers: copy what must outlive that. */
static const char *ref(const char *name) { return t_shared(name); }

/* Run `cmd` (printf-style, the output goes to t_tmp(out)) and compare with a reference. */
#define CHECK_CMD_SAME(want, out, ...)                         \
  do {                                                         \
    CHECK_INT(t_sh(__VA_ARGS__), 0);                           \
    CHECK_SAME_FILE(t_tmp(out), want);                         \
  } while (0)

TEST(bpe_learn_en1000) {
  CHECK_CMD_SAME(ref(REFS "codes.en.1000"), "c", "nmt-bpe learn -s 1000 -o %s < %s", t_tmp("c"),
                 ref(REFS "train.tok.en"));
}

TEST(bpe_learn_en8000) {
  CHECK_CMD_SAME(ref(REFS "codes.en.8000"), "c", "nmt-bpe learn -s 8000 %s > %s", ref(REFS "train.tok.en"),
                 t_tmp("c"));
}

TEST(bpe_learn_joint8000_concat) {
  CHECK_CMD_SAME(ref(REFS "codes.joint.8000"), "c", "nmt-bpe learn -s 8000 -o %s %s %s", t_tmp("c"),
                 ref(REFS "train.tok.fr"), ref(REFS "train.tok.en"));
}

TEST(bpe_learn_joint_and_vocab) {
  CHECK_INT(t_sh("nmt-bpe learn-joint -s 8000 -o %s --vocab-out %s %s %s %s", t_tmp("c"), t_tmp("vf"),
                 t_tmp("ve"), ref(REFS "train.tok.fr"), ref(REFS "train.tok.en")),
            0);
  CHECK_SAME_FILE(t_tmp("c"), ref(REFS "codes.joint.8000"));
  CHECK_SAME_FILE(t_tmp("vf"), ref(REFS "vocab.joint.fr"));
  CHECK_SAME_FILE(t_tmp("ve"), ref(REFS "vocab.joint.en"));
}

TEST(bpe_vocab_after_apply) {
  CHECK_CMD_SAME(ref(REFS "vocab.en8000.en"), "v", "nmt-bpe apply -c %s < %s | nmt-bpe vocab > %s",
                 ref(REFS "codes.en.8000"), ref(REFS "train.tok.en"), t_tmp("v"));
}

/* Every <set>.<L>.bpe-<codes>[.gloss|.vocab50] reference. */
TEST(bpe_apply_refs) {
  static const char *sets[] = {"val", "test_2016_flickr"}, *langs[] = {"en", "fr"};
  static const struct { const char *tag, *codes; } codes[] = {
      {"en1000", "codes.en.1000"}, {"en8000", "codes.en.8000"}, {"joint8000", "codes.joint.8000"}};
  int checked = 0;
  char want[1024], in[1024], cf[1024], voc[1024], opts[1200];
  for (int s = 0; s < 2; s++)
    for (int l = 0; l < 2; l++)
      for (int c = 0; c < 3; c++)
        for (int v = 0; v < 3; v++) {
          static const char *suffix[] = {"", ".gloss", ".vocab50"};
          snprintf(want, sizeof want, "%s%s.%s.bpe-%s%s", REFS, sets[s], langs[l], codes[c].tag, suffix[v]);
          snprintf(want, sizeof want, "%s", ref(want));
          FILE *f = fopen(want, "r");
          if (!f) continue;
          fclose(f);
          snprintf(in, sizeof in, "refs/tok/%s.%s.tok-a-noesc", sets[s], langs[l]);
          snprintf(in, sizeof in, "%s", ref(in));
          snprintf(cf, sizeof cf, "%s%s", REFS, codes[c].codes);
          snprintf(cf, sizeof cf, "%s", ref(cf));
          snprintf(voc, sizeof voc, "%s%s", REFS, c == 2 ? (l ? "vocab.joint.fr" : "vocab.joint.en") : "vocab.en8000.en");
          snprintf(voc, sizeof voc, "%s", ref(voc));
          if (v == 0) opts[0] = 0;
          else if (v == 1) snprintf(opts, sizeof opts, "--glossaries '[0-9]+'");
          else snprintf(opts, sizeof opts, "--vocabulary %s --vocabulary-threshold 50", voc);
          CHECK_CMD_SAME(want, "out", "nmt-bpe apply -c %s %s < %s > %s", cf, opts, in, t_tmp("out"));
          checked++;
        }
  CHECK_INT(checked, 22);
}

TEST(bpe_apply_inject) {
  char want[1024], cf[1024], in[1024]; /* copies: t_shared() reuses its buffers */
  snprintf(in, sizeof in, "%s", ref(REFS "test_2016_flickr.en.inject.tok-a-noesc"));
  for (int c = 0; c < 2; c++) {
    snprintf(cf, sizeof cf, "%s", ref(c ? REFS "codes.joint.8000" : REFS "codes.en.8000"));
    snprintf(want, sizeof want, "%s", ref(c ? REFS "test_2016_flickr.en.inject.bpe-joint8000"
                                            : REFS "test_2016_flickr.en.inject.bpe-en8000"));
    /* subword-nmt's own spelling: no subcommand, input on stdin */
    CHECK_CMD_SAME(want, "out", "nmt-bpe -c %s < %s > %s", cf, in, t_tmp("out"));
    strcat(want, ".gloss");
    CHECK_CMD_SAME(want, "out", "nmt-bpe apply -c %s --glossaries '[0-9]+' -o %s %s", cf, t_tmp("out"), in);
  }
}

/* ---- the library API ---- */

static nmt_bpe *load_text(const char *codes, const nmt_bpe_opts *o) {
  nmt_bpe *b = NULL;
  int st = nmt_bpe_load_text(&b, codes, strlen(codes), "codes", o);
  if (st) T_FAIL("load: %s", nmt_errmsg());
  return b;
}

static const char *apply(nmt_bpe *b, const char *line) {
  static nmt_strbuf out;
  out.len = 0;
  if (nmt_bpe_apply_line(b, line, strlen(line), &out)) T_FAIL("apply: %s", nmt_errmsg());
  return out.s ? out.s : "";
}

static const char toy_codes[] = "#version: 0.2\nl o\nlo w</w>\ne r</w>\nn e\nne w\nlo w\nw e\n";

TEST(bpe_whitespace_as_apply_bpe) {
  nmt_bpe *b = load_text(toy_codes, NULL);
  if (!b) return;
  CHECK_STR(apply(b, "low lower"), "low low@@ er");
  CHECK_STR(apply(b, "  low   newer \r"), "  low new@@ er \r"); /* ends kept, inner runs collapse */
  CHECK_STR(apply(b, ""), "");
  CHECK_STR(apply(b, "   "), "   ");
  CHECK_STR(apply(b, "a\tb x"), "a@@ \t@@ b x"); /* only ' ' separates words */
  nmt_bpe_free(b);
}

TEST(bpe_codes_version_01_and_merges) {
  /* 0.1: "</w>" is a symbol of its own */
  nmt_bpe *b = load_text("l o\nlo w\nlow </w>\n", NULL);
  if (!b) return;
  CHECK_STR(apply(b, "low lowly"), "low low@@ l@@ y");
  nmt_bpe_free(b);
  nmt_bpe_opts o = {.merges = 1, .vocab_threshold = -1};
  b = load_text(toy_codes, &o);
  if (!b) return;
  CHECK_STR(apply(b, "low"), "lo@@ w");
  nmt_bpe_free(b);
}

TEST(bpe_codes_malformed_line) {
  nmt_bpe *b = NULL;
  const char *bad = "#version: 0.2\na b\nc\n";
  CHECK_INT(nmt_bpe_load_text(&b, bad, strlen(bad), "my.codes", NULL), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "my.codes:3:") != NULL);
  /* lines past --merges are not read, as apply_bpe.py */
  nmt_bpe_opts o = {.merges = 1, .vocab_threshold = -1};
  CHECK_INT(nmt_bpe_load_text(&b, bad, strlen(bad), "my.codes", &o), NMT_OK);
  nmt_bpe_free(b);
}

TEST(bpe_glossaries_isolate) {
  /* subword-nmt's test_glossaries: '1934USABUSA' with 'USA' -> 1934 USA B USA */
  static const char *const g[] = {"USA"};
  nmt_bpe_opts o = {.merges = -1, .vocab_threshold = -1, .glossaries = g, .n_glossaries = 1};
  nmt_bpe *b = load_text("#version: 0.2\n1 9\n19 3\n193 4</w>\nU S\nUS A</w>\n", &o);
  if (!b) return;
  CHECK_STR(apply(b, "1934USABUSA USA 1934"), "1934@@ USA@@ B@@ USA USA 1934");
  nmt_bpe_free(b);
  static const char *const g2[] = {"[0-9]+", "<[a-z]+>"};
  nmt_bpe_opts o2 = {.merges = -1, .vocab_threshold = -1, .glossaries = g2, .n_glossaries = 2};
  b = load_text("#version: 0.2\nx y</w>\n", &o2);
  if (!b) return;
  CHECK_STR(apply(b, "ab12<tag>xy"), "a@@ b@@ 12@@ <tag>@@ xy");
  nmt_bpe_free(b);
}

/* learn: ties go to the larger pair; min-frequency stops early. */
TEST(bpe_learn_ties_and_stop) {
  nmt_wordfreq *wf;
  CHECK_INT(nmt_wordfreq_new(&wf), NMT_OK);
  nmt_wordfreq_add(wf, "ab", 2, 3);
  nmt_wordfreq_add(wf, "cd", 2, 3);
  nmt_wordfreq_add(wf, "ef", 2, 1);
  nmt_strbuf codes = {0};
  nmt_bpe_learn_opts o = {.symbols = 10, .min_frequency = 2};
  nmt_bpe_learn_info info;
  CHECK_INT(nmt_bpe_learn(wf, &o, &codes, &info), NMT_OK);
  CHECK_STR(codes.s, "#version: 0.2\nc d</w>\na b</w>\n");
  CHECK_INT(info.merges, 2);
  CHECK(info.stopped);
  codes.len = 0;
  o.total_symbols = true;
  CHECK_INT(nmt_bpe_learn(wf, &o, &codes, &info), NMT_OK);
  CHECK_INT(info.chars_internal + info.chars_final, 6);
  CHECK_STR(codes.s, "#version: 0.2\nc d</w>\na b</w>\n");
  free(codes.s);
  nmt_wordfreq_free(wf);
}

/* ---- dropout ---- */

TEST(bpe_dropout_deterministic) {
  char c[1024], in[1024];
  snprintf(c, sizeof c, "%s", ref(REFS "codes.en.8000"));
  snprintf(in, sizeof in, "%s", ref("refs/tok/val.en.tok-a-noesc"));
  CHECK_INT(t_sh("nmt-bpe apply -c %s --dropout 0.1 --seed 7 < %s > %s", c, in, t_tmp("a")), 0);
  CHECK_INT(t_sh("nmt-bpe apply -c %s --dropout 0.1 --seed 7 < %s > %s", c, in, t_tmp("b")), 0);
  CHECK_SAME_FILE(t_tmp("a"), t_tmp("b"));
  CHECK_INT(t_sh("nmt-bpe apply -c %s --dropout 0.1 --seed 8 < %s | cmp -s - %s", c, in, t_tmp("a")), 1);
  CHECK_INT(t_sh("nmt-bpe apply -c %s --dropout 0.1 --seed 7 < %s | cmp -s - %s", c, in,
                 ref(REFS "val.en.bpe-en8000")), 1);
  CHECK_CMD_SAME(ref(REFS "val.en.bpe-en8000"), "z", "nmt-bpe apply -c %s --dropout 0 --seed 7 < %s > %s", c, in,
                 t_tmp("z"));
}

TEST(bpe_dropout_one_splits_to_characters) {
  nmt_bpe *b = load_text(toy_codes, NULL);
  if (!b) return;
  nmt_bpe_set_dropout(b, 1.0, 1);
  CHECK_STR(apply(b, "lower x"), "l@@ o@@ w@@ e@@ r x");
  nmt_bpe_set_dropout(b, 0, 1);
  CHECK_STR(apply(b, "lower x"), "low@@ er x");
  nmt_bpe_free(b);
}

/* ---- the word cache ---- */

/* Many distinct long words: the cache stays within its budget of bytes (tables
 * and text), words keep segmenting as without a cache, and one word over
 * NMT_BPE_CACHE_WORD_MAX bytes is not cached at all. */
TEST(bpe_cache_within_budget) {
  nmt_bpe *b = load_text(toy_codes, NULL), *plain = load_text(toy_codes, NULL);
  if (!b || !plain) return;
  enum { BUDGET = 64 << 10 };
  nmt_bpe_set_cache(b, BUDGET);
  nmt_bpe_set_cache(plain, 0);
  char w[NMT_BPE_CACHE_WORD_MAX + 2], want[8 * sizeof w];
  int differ = 0, over = 0;
  size_t peak = 0;
  for (int i = 0; i < 3000; i++) { /* word 7 every 7th; "lowerlower..." of 6 to 1,024 bytes */
    int k = i % 7 ? i : 7, n = snprintf(w, sizeof w, "%d", k);
    for (int len = 6 + (k * 37) % (NMT_BPE_CACHE_WORD_MAX - 5); n < len; n++) w[n] = "lower"[n % 5];
    w[n] = 0;
    snprintf(want, sizeof want, "%s", apply(plain, w));
    differ += strcmp(apply(b, w), want) != 0;
    size_t bytes = nmt_bpe_cache_size(b);
    over += bytes > BUDGET;
    peak = bytes > peak ? bytes : peak;
  }
  CHECK_INT(differ, 0);
  CHECK_INT(over, 0);
  CHECK(peak > BUDGET / 2); /* it did fill */
  nmt_bpe_set_cache(b, BUDGET);
  CHECK_INT(nmt_bpe_cache_size(b), 0);
  memset(w, 'l', sizeof w - 1), w[sizeof w - 1] = 0;
  snprintf(want, sizeof want, "%s", apply(plain, w));
  CHECK_STR(apply(b, w), want);
  CHECK_INT(nmt_bpe_cache_size(b), 0);
  CHECK_STR(apply(b, "lower"), "low@@ er");
  CHECK(nmt_bpe_cache_size(b) > 0);
  nmt_bpe_free(b);
  nmt_bpe_free(plain);
}
