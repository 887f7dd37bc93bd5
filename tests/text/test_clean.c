/* nmt-clean against clean-corpus-n.perl's outputs (refs/clean), and the
 * rules, dedupe and language filter one by one. */
#include "text/clean.h"
#include "text/clean_dedupe.h"
#include "text/langid.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_text(const char *path, const char *s) {
  FILE *f = fopen(path, "wb");
  fputs(s, f);
  fclose(f);
}

static long count_lines(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  long n = 0;
  int c;
  while ((c = getc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

/* Run nmt-clean on refs/clean/<corpus>.{fr,en} and compare with <want>.{fr,en,lines-retained}. */
static void check_vector(const char *corpus, const char *opts, const char *want) {
  char ref[256];
  const char *fr = t_tmp("out.fr"), *en = t_tmp("out.en"), *lr = t_tmp("out.lr");
  snprintf(ref, sizeof ref, "refs/clean/%s", corpus);
  CHECK_INT(t_sh("nmt-clean -q %s %s.fr %s.en -o %s %s --lines-retained %s", opts, t_shared(ref),
                 t_shared(ref), fr, en, lr), 0);
  snprintf(ref, sizeof ref, "refs/clean/%s.fr", want);
  CHECK_SAME_FILE(fr, t_shared(ref));
  snprintf(ref, sizeof ref, "refs/clean/%s.en", want);
  CHECK_SAME_FILE(en, t_shared(ref));
  snprintf(ref, sizeof ref, "refs/clean/%s.lines-retained", want);
  CHECK_SAME_FILE(lr, t_shared(ref));
}

TEST(clean_edge_1_50) { check_vector("edge", "--min 1 --max 50", "edge.clean-1-50"); }
TEST(clean_edge_lc) { check_vector("edge", "--lc --min 1 --max 50", "edge.clean-lc-1-50"); }
TEST(clean_edge_ratio3) { check_vector("edge", "--ratio 3 --min 1 --max 5", "edge.clean-ratio3-1-5"); }
TEST(clean_train_vector) { check_vector("train.tok", "--min 1 --max 50 --ratio 9", "train.tok.clean-1-50"); }

TEST(clean_moses_convention) {
  const char *out = t_tmp("c"), *lr = t_tmp("c.lr");
  CHECK_INT(t_sh("nmt-clean -q --moses -ratio 3 %s fr en %s 1 5 %s", t_shared("refs/clean/edge"), out, lr), 0);
  char got[1100];
  snprintf(got, sizeof got, "%s.fr", out);
  CHECK_SAME_FILE(got, t_shared("refs/clean/edge.clean-ratio3-1-5.fr"));
  snprintf(got, sizeof got, "%s.en", out);
  CHECK_SAME_FILE(got, t_shared("refs/clean/edge.clean-ratio3-1-5.en"));
  CHECK_SAME_FILE(lr, t_shared("refs/clean/edge.clean-ratio3-1-5.lines-retained"));
}

/* The same pairs through one TSV table, in and out. */
TEST(clean_tsv_roundtrip) {
  const char *tsv = t_tmp("in.tsv"), *out = t_tmp("out.tsv"), *want = t_tmp("want.tsv");
  CHECK_INT(t_sh("paste %s %s > %s", t_shared("refs/clean/edge.fr"), t_shared("refs/clean/edge.en"), tsv), 0);
  CHECK_INT(t_sh("paste %s %s > %s", t_shared("refs/clean/edge.clean-1-50.fr"),
                 t_shared("refs/clean/edge.clean-1-50.en"), want), 0);
  /* edge.fr line 5 holds tabs: its row has 6 fields, the table is malformed ... */
  CHECK_INT(t_sh("nmt-clean -q --tsv %s -o %s 2>/dev/null", tsv, out), 2);
  CHECK(access(out, F_OK) != 0);
  /* ... while the pairs without inner tabs go through, as from stdin. */
  CHECK_INT(t_sh("awk -F'\\t' 'NF == 2' %s > %s.ok", tsv, tsv), 0);
  CHECK_INT(t_sh("nmt-clean -q --tsv < %s.ok > %s", tsv, out), 0);
  CHECK_INT(t_sh("grep -v 'Tabs' %s | cmp -s - %s", want, out), 0);
}

TEST(clean_dedupe) {
  const char *s = t_tmp("s"), *t = t_tmp("t"), *os = t_tmp("os"), *ot = t_tmp("ot");
  write_text(s, "a b\na  b\nA b\na b\nx\na b\n");
  write_text(t, "c\nc\nc\nd\ny\nc \n");
  CHECK_INT(t_sh("nmt-clean -q --dedupe %s %s -o %s %s", s, t, os, ot), 0);
  CHECK_INT(count_lines(os), 4); /* "a b"/"c" thrice after normalising, once kept */
  CHECK_INT(t_sh("nmt-clean -q --dedupe --lc %s %s -o %s %s", s, t, os, ot), 0);
  CHECK_INT(count_lines(os), 3);

  nmt_dedupe *d;
  CHECK_INT(nmt_dedupe_new(&d), 0);
  char a[32], b[32];
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 100000; i++) {
      int na = snprintf(a, sizeof a, "%d", i), nb = snprintf(b, sizeof b, "%d", i * 7);
      if (nmt_dedupe_add(d, a, (size_t)na, b, (size_t)nb) != !round) { T_FAIL("pair %d round %d", i, round); round = 2; break; }
    }
  CHECK_INT(nmt_dedupe_count(d), 100000);
  CHECK_INT(nmt_dedupe_add(d, "ab", 2, "", 0), 1); /* the split point matters */
  CHECK_INT(nmt_dedupe_add(d, "a", 1, "b", 1), 1);
  CHECK_INT(nmt_dedupe_add(d, "b", 1, "a", 1), 1);
  nmt_dedupe_free(d);
}

TEST(clean_langid_sentences) {
  nmt_langid *l;
  CHECK_INT(nmt_langid_open(&l, NULL, NMT_LANGID_COMMON), 0);
  const char *fr = "Un homme en chemise bleue est debout sur une échelle et nettoie une fenêtre.";
  const char *en = "A man in a blue shirt is standing on a ladder cleaning a window.";
  CHECK_INT(nmt_langid_check(l, fr, strlen(fr), "fr"), NMT_LANGID_YES);
  CHECK_INT(nmt_langid_check(l, en, strlen(en), "en"), NMT_LANGID_YES);
  CHECK_INT(nmt_langid_check(l, en, strlen(en), "fr"), NMT_LANGID_NO);
  CHECK_INT(nmt_langid_check(l, "Oui.", 4, "en"), NMT_LANGID_UNSURE); /* SHORT: kept */
  nmt_langid_close(l);
  CHECK_INT(nmt_langid_open(&l, NULL, "en,xx"), 1); /* unknown code: usage error */
}

/* Multi30k captions are short: the filter must keep nearly all of them. */
TEST(clean_langid_multi30k) {
  const char *os = t_tmp("os"), *ot = t_tmp("ot"), *en = t_tmp("en");
  CHECK_INT(t_sh("head -n 5000 %s > %s", t_shared("refs/bpe/train.tok.en"), en), 0);
  CHECK_INT(t_sh("head -n 5000 %s | nmt-clean -q --lang-src fr --lang-tgt en - %s -o %s %s",
                 t_shared("refs/bpe/train.tok.fr"), en, os, ot), 0);
  long kept = count_lines(os);
  if (kept < 4900) T_FAIL("kept %ld of 5000 Multi30k pairs", kept);
  /* English checked as French: nearly everything goes. */
  CHECK_INT(t_sh("head -n 5000 %s | nmt-clean -q --lang-src fr --lang-tgt fr - %s -o %s %s",
                 t_shared("refs/bpe/train.tok.fr"), en, os, ot), 0);
  kept = count_lines(os);
  if (kept > 250) T_FAIL("kept %ld of 5000 English targets checked as French", kept);
}

/* A failing run leaves nothing under the output names, not even temp files. */
TEST(clean_atomic) {
  char s[1024], t[1024], out[1024];
  snprintf(s, sizeof s, "%s", t_tmp("s"));
  snprintf(t, sizeof t, "%s", t_tmp("t"));
  snprintf(out, sizeof out, "%s", t_tmp("out"));
  write_text(s, "a\nb\nc\n");
  write_text(t, "a\nb\n");
  CHECK_INT(t_sh("nmt-clean -q %s %s -o %s.s %s.t --lines-retained %s.lr 2>/dev/null", s, t, out, out, out), 2);
  CHECK_INT(t_sh("ls %s* 2>/dev/null | grep -q .", out), 1);
}

static void side(nmt_clean_side *s, const nmt_clean_opts *o, const char *line) {
  CHECK_INT(nmt_clean_side_set(s, o, false, line, strlen(line)), 0);
}

TEST(clean_rules_normalise) {
  nmt_clean_opts o;
  nmt_clean_defaults(&o);
  nmt_clean_side s = {0};
  side(&s, &o, "\t a |b\xc2\xa0 c\r\xe2\x80\x83");
  CHECK_STR(s.text, "a b c");
  CHECK_INT(s.words, 3);
  side(&s, &o, "||| \xc2\x85");
  CHECK_INT(s.len, 0);
  CHECK_INT(nmt_clean_side_set(&s, &o, true, "a|b c", 5), 0); /* factored: bars stay */
  CHECK_STR(s.text, "a|b c");
  CHECK_INT(s.longest_factor, 1);
  CHECK_INT(s.longest_token, 3);
  CHECK(nmt_clean_is_factored("a|b", 3, "c", 1));
  o.lc = true;
  side(&s, &o, "\xc3\x89" "COLE \xc4\xb0" "STANBUL \xce\xa3");
  CHECK_STR(s.text, "\xc3\xa9" "cole i\xcc\x87stanbul \xcf\x83");
  nmt_clean_side_free(&s);
}

TEST(clean_rules_ignore_xml) {
  nmt_clean_opts o;
  nmt_clean_defaults(&o);
  o.ignore_xml = true;
  nmt_clean_side s = {0};
  side(&s, &o, "<b>bold</b> text");
  CHECK_INT(s.words, 2); /* "<b>" has one char inside, so "<b>bold" stays a word */
  side(&s, &o, "<tag>x</tag> y");
  CHECK_INT(s.words, 2);
  side(&s, &o, "<a href=x>link</a> here");
  CHECK_INT(s.words, 2);
  side(&s, &o, "only <br/>");
  CHECK_INT(s.words, 1);
  side(&s, &o, "<ab>");
  CHECK_INT(s.words, 0);
  side(&s, &o, "<>x> y");
  CHECK_INT(s.words, 1);
  side(&s, &o, "<a >b");
  CHECK_INT(s.words, 2);
  nmt_clean_side_free(&s);
}

TEST(clean_rules_judge) {
  nmt_clean_opts o;
  nmt_clean_defaults(&o);
  nmt_clean_side a = {0}, b = {0};
  side(&a, &o, "one");
  side(&b, &o, "1 2 3 4 5 6 7 8 9");
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_KEEP); /* 9/1 is not above 9 */
  side(&b, &o, "1 2 3 4 5 6 7 8 9 10");
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_RATIO);
  o.ignore_ratio = true;
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_KEEP);
  o.max_token_chars = 2;
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_TOKEN_CHARS);
  o.max_word_length = 2;
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_WORD_LENGTH);
  o.min = 2;
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_TOO_SHORT);
  o.max = 5;
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_TOO_LONG);
  side(&a, &o, " ");
  CHECK_INT(nmt_clean_judge(&o, &a, &b), NMT_CLEAN_EMPTY);
  nmt_clean_side_free(&a);
  nmt_clean_side_free(&b);
}
