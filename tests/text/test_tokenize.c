/* nmt-tokenize: byte-identical to the Moses references in ../shared/refs/tok,
 * -j output equal to -j 1, and the rules that the references barely exercise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "text/tok.h"

static const char *const sets[] = {"val", "test_2016_flickr"};
static const char *const langs[] = {"en", "fr", "de", "cs"};

/* suffix of the reference file, nmt-tokenize options, input is the tokenized ref */
static const struct { const char *suffix, *opts; bool from_tok; } cmds[] = {
  {"norm", "--normalize-only", false},
  {"tok", "", false},
  {"tok-a-noesc", "-a --no-escape", false},
  {"norm.tok-a-noesc", "--normalize -a --no-escape", false},
  {"tok-a-noesc.detok", "-d", true},
  {"lc", "--lowercase-only", false},
};

static void compat(const char *suffix) {
  for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
    if (strcmp(cmds[c].suffix, suffix)) continue;
    for (int s = 0; s < 2; s++)
      for (int l = 0; l < 4; l++) {
        char in[512], want[512], got[512];
        snprintf(want, sizeof want, "%s", t_shared("refs/tok"));
        snprintf(in, sizeof in, "%.400s/%s.%s%s", cmds[c].from_tok ? want : t_shared("data/multi30k"),
                 sets[s], langs[l], cmds[c].from_tok ? ".tok-a-noesc" : "");
        snprintf(want + strlen(want), sizeof want - strlen(want), "/%.40s.%s.%s", sets[s], langs[l], suffix);
        snprintf(got, sizeof got, "%s", t_tmp("out"));
        CHECK_INT(t_sh("nmt-tokenize -q -l %s %s '%s' > '%s' 2>/dev/null", langs[l], cmds[c].opts, in, got), 0);
        CHECK_SAME_FILE(got, want);
      }
  }
}

TEST(tok_compat_norm) { compat("norm"); }
TEST(tok_compat_tok) { compat("tok"); }
TEST(tok_compat_tok_a_noesc) { compat("tok-a-noesc"); }
TEST(tok_compat_norm_tok) { compat("norm.tok-a-noesc"); }
TEST(tok_compat_detok) { compat("tok-a-noesc.detok"); }
TEST(tok_compat_lc) { compat("lc"); }

/* Threads split the input in chunks; output must not change. */
TEST(tok_threads_same_output) {
  const char *big = t_tmp("big.fr"), *one = t_tmp("one"), *two = t_tmp("two");
  CHECK_INT(t_sh("for i in 1 2 3; do cat '%s'; done > '%s'", t_shared("data/multi30k/train.fr"), big), 0);
  static const char *const modes[] = {"", "--normalize -a --no-escape", "-d", "--lowercase-only"};
  for (int m = 0; m < 4; m++) {
    CHECK_INT(t_sh("nmt-tokenize -l fr %s -j 1 '%s' > '%s'", modes[m], big, one), 0);
    CHECK_INT(t_sh("nmt-tokenize -l fr %s -j 3 '%s' > '%s'", modes[m], big, two), 0);
    CHECK_SAME_FILE(two, one);
  }
}

TEST(tok_zstd_roundtrip) {
  const char *z = t_tmp("out.zst"), *plain = t_tmp("plain"), *back = t_tmp("back");
  const char *in = t_shared("data/multi30k/val.de");
  CHECK_INT(t_sh("nmt-tokenize -l de -z -o '%s' '%s' && nmt-tokenize -l de '%s' > '%s'", z, in, in, plain), 0);
  CHECK_INT(t_sh("zstd -dc '%s' > '%s'", z, back), 0);
  CHECK_SAME_FILE(back, plain);
}

/* Run one line through a mode; returns a static copy without the '\n'. */
enum { TOK, DETOK, NORM, LOWER };
static const char *run(int mode, const char *lang, bool aggressive, bool escape, const char *line) {
  static char buf[4096];
  tok_config cfg;
  tok_config_init(&cfg, lang, aggressive, escape);
  tok_scratch s = {0};
  nmt_strbuf out = {0};
  bool ok = mode == TOK     ? tok_tokenize(&cfg, &s, line, strlen(line), &out)
            : mode == DETOK ? tok_detokenize(&cfg, &s, line, strlen(line), &out)
            : mode == NORM  ? tok_normalize(&cfg, &s, line, strlen(line), &out)
                            : tok_lowercase(&s, line, strlen(line), &out);
  CHECK(ok && out.len > 0 && out.s[out.len - 1] == '\n');
  snprintf(buf, sizeof buf, "%.*s", (int)(out.len ? out.len - 1 : 0), out.s);
  free(out.s);
  tok_scratch_free(&s);
  tok_config_free(&cfg);
  return buf;
}
#define TOKEN(lang, line) run(TOK, lang, true, false, line)

TEST(tok_rule_contractions) {
  CHECK_STR(TOKEN("en", "It's John's 1990's"), "It 's John 's 1990 's");
  CHECK_STR(TOKEN("fr", "l'homme qu'il"), "l' homme qu' il");
  CHECK_STR(TOKEN("de", "geht's"), "geht ' s");
  CHECK_STR(TOKEN("so", "ka'a"), "ka'a");
}

TEST(tok_rule_periods_and_prefixes) {
  CHECK_STR(TOKEN("en", "Mr. Smith saw the U.S. Army. It ended."), "Mr. Smith saw the U.S. Army . It ended .");
  CHECK_STR(TOKEN("en", "See No. 5 and No. Way"), "See No. 5 and No . Way");
  CHECK_STR(TOKEN("en", "the end. and more"), "the end. and more"); /* lowercase next word */
  CHECK_STR(TOKEN("en", "Ends with Mr."), "Ends with Mr ."); /* the last word always splits */
  CHECK_STR(TOKEN("cs", "J. P. Morgan"), "J . P . Morgan");
  CHECK_STR(TOKEN("en", "Wait.. what... ok.... x"), "Wait .. what ... ok .... x");
  CHECK_STR(TOKEN("en", "He said 'no.'"), "He said ' no . ' "); /* Moses leaves that space */
}

TEST(tok_rule_commas_hyphens) {
  CHECK_STR(TOKEN("en", "1,000 a,b,c 5, x end 5,"), "1,000 a , b , c 5 , x end 5 ,");
  CHECK_STR(TOKEN("en", "a-b-c x--y e-mail -z"), "a @-@ b @-@ c x--y e @-@ mail -z");
  CHECK_STR(run(TOK, "en", false, false, "a-b"), "a-b");
}

TEST(tok_rule_specials_and_escaping) {
  CHECK_STR(run(TOK, "en", false, true, "<a> & \"b\" [c] |d| 'e"),
            "&lt; a &gt; &amp; &quot; b &quot; &#91; c &#93; &#124; d &#124; &apos; e");
  CHECK_STR(TOKEN("en", "x\x01y\tz\xC2\xA0w  "), "xy z w");
  CHECK_STR(TOKEN("en", "   "), "   "); /* blank lines pass untouched */
  CHECK_STR(TOKEN("fi", "EU:n USA:ssa S:t klo 10:30 a: B"), "EU:n USA:ssa S:t klo 10 : 30 a : B");
  CHECK_STR(TOKEN("ca", "il\xC2\xB7lusi\xC3\xB3"), "il\xC2\xB7lusi\xC3\xB3");
}

/* Cases the skip-a-pass shortcuts must get right (expected: the Moses scripts). */
TEST(tok_rule_shortcuts) {
  CHECK_STR(TOKEN("en", "\x01\x02"), ""); /* control characters only: not a blank line */
  CHECK_STR(run(TOK, "en", false, true, "He said 'no.'"), "He said &apos; no . &apos; ");
  CHECK_STR(run(DETOK, "en", false, true, "x @-@"), "x-"); /* the last space is consumed */
  CHECK_STR(run(DETOK, "en", false, true, "@-@ x &amp;amp; &#124;"), "-x &amp; |");
  CHECK_STR(run(NORM, "en", false, true, "a (b)  c \xE2\x80\x94 d  (e) ."), "a (b) c - d (e).");
  CHECK_STR(run(NORM, "fr", false, true, "1  2"), "1 2");
}

TEST(tok_rule_detokenize) {
  CHECK_STR(run(DETOK, "en", false, true, "\" Hello , world ! \" it 's the Jones ' house"),
            "\"Hello, world!\" it's the Jones' house");
  CHECK_STR(run(DETOK, "fr", false, true, "l' homme a dit : \" oui \" ?"), "l'homme a dit : \"oui\" ?");
  CHECK_STR(run(DETOK, "en", false, true, "a @-@ b &amp; &lt;c&gt; ( $ 5 )"), "a-b & <c> ($5)");
  CHECK_STR(run(DETOK, "cs", false, true, "je 3 , 5 m"), "je 3,5 m");
  CHECK_STR(run(DETOK, "fi", false, true, "EU : n"), "EU:n");
}

TEST(tok_rule_normalize) {
  CHECK_STR(run(NORM, "en", false, true, "\xE2\x80\x9CHi,\xE2\x80\x9D she said \xE2\x80\x93 it\xE2\x80\x99s \"x\"."),
            "\"Hi,\" she said - it's \"x.\"");
  CHECK_STR(run(NORM, "de", false, true, "Er sagte \xE2\x80\x9Eja\xE2\x80\x9C. 1\xC2\xA0" "000"), "Er sagte \"ja\". 1,000");
  CHECK_STR(run(NORM, "fr", false, true, "\xC2\xAB\xC2\xA0oui\xC2\xA0\xC2\xBB ( a ) , b ;"), "\"oui\" (a), b;");
}

TEST(tok_rule_lowercase) {
  CHECK_STR(run(LOWER, "en", false, true, "\xC3\x84RZTE \xC4\xB0stanbul \xCE\xA3\xCE\xA3"),
            "\xC3\xA4rzte i\xCC\x87stanbul \xCF\x83\xCF\x83");
}
