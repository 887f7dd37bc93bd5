/* lib/base/cli: the option-table parser, its spellings, bounds and repeats. */
#include "base/cli.h"
#include "base/err.h"
#include "test.h"
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(cli_parse_forms) {
  bool flag = false;
  long n = 0;
  double d = 0;
  const char *s = NULL;
  nmt_strlist m = {0};
  const nmt_opt opts[] = {
      {"flag", 'f', NMT_OPT_FLAG, &flag, NULL, "a flag"},
      {"num", 'n', NMT_OPT_INT, &n, "N", "a number", .min = 0, .max = 10},
      {"ratio", 0, NMT_OPT_DOUBLE, &d, "R", "a ratio", .min = -10, .max = 10},
      {"name", 0, NMT_OPT_STR, &s, "S", "a name"},
      {"metrics", 'm', NMT_OPT_LIST, &m, "M", "metrics"},
      {0}};
  nmt_cli cli = {"nmt-x", "[options] FILE...", NULL, "nmt-x -n 3 a b", opts, true};
  char *argv[] = {"nmt-x", "-f", "--num=7", "--ratio", "-2.5", "-name", "z", "-m", "bleu", "chrf", "pos1", "--", "-pos2", NULL};
  nmt_strlist pos;
  CHECK_INT(nmt_cli_parse(&cli, 13, argv, &pos), NMT_OK);
  CHECK(flag);
  CHECK_INT(n, 7);
  CHECK_NEAR(d, -2.5, 0);
  CHECK_STR(s, "z");
  CHECK_INT(m.n, 3); /* pos1 is taken by the list: lists end at the next option */
  CHECK_INT(pos.n, 1);
  CHECK_STR(pos.v[0], "-pos2");
  char *bad[] = {"nmt-x", "--nope", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 2, bad, &pos), NMT_EUSAGE);
  char *badnum[] = {"nmt-x", "-n", "x1", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 3, badnum, &pos), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "-n/--num must be an integer between 0 and 10 (got x1)");
  free(m.v);
  free(pos.v);
}

/* One value on the command line: "" if it parses, else the message. */
static const char *cli_msg(const nmt_cli *cli, const char *a, const char *b) {
  char *argv[] = {"nmt-x", (char *)a, (char *)b, NULL};
  nmt_strlist pos;
  int st = nmt_cli_parse(cli, b ? 3 : 2, argv, &pos);
  free(pos.v);
  return st ? nmt_errmsg() : "";
}

TEST(cli_bounds_and_twice) {
  long n = 0, seed = 0;
  double rate = 1, p = 0;
  const char *s = NULL;
  nmt_strlist l = {0};
  const nmt_opt opts[] = {
      {"num", 'n', NMT_OPT_INT, &n, "N", NULL, .min = 1, .max = 65536},
      {"seed", 0, NMT_OPT_INT, &seed, "S", NULL, .min = 0, .max = INFINITY},
      {"rate", 0, NMT_OPT_DOUBLE, &rate, "R", NULL, .min = 0, .max = 10, .open_min = true},
      {"p", 0, NMT_OPT_DOUBLE, &p, "P", NULL, .min = 0, .max = 1, .open_max = true},
      {"name", 's', NMT_OPT_STR, &s, "S", NULL},
      {"nm", 0, NMT_OPT_STR, &s, "S", "= --name"},
      {"list", 'l', NMT_OPT_LIST, &l, "L", NULL},
      {0}};
  nmt_cli cli = {"nmt-x", "", NULL, NULL, opts, false};
  CHECK_STR(cli_msg(&cli, "--num=65536", NULL), "");
  CHECK_INT(n, 65536);
  CHECK_STR(cli_msg(&cli, "-n", "65537"), "-n/--num must be an integer between 1 and 65536 (got 65537)");
  CHECK_STR(cli_msg(&cli, "-n", "0"), "-n/--num must be an integer between 1 and 65536 (got 0)");
  CHECK_STR(cli_msg(&cli, "-n", "-3"), "-n/--num must be an integer between 1 and 65536 (got -3)");
  CHECK_STR(cli_msg(&cli, "-n", "4x"), "-n/--num must be an integer between 1 and 65536 (got 4x)");
  CHECK_STR(cli_msg(&cli, "-n", " 4"), "-n/--num must be an integer between 1 and 65536 (got  4)");
  CHECK_STR(cli_msg(&cli, "-n", "2.0"), "-n/--num must be an integer between 1 and 65536 (got 2.0)");
  CHECK_STR(cli_msg(&cli, "-n4294967297", NULL), "-n/--num must be an integer between 1 and 65536 (got 4294967297)");
  CHECK_STR(cli_msg(&cli, "--num=", NULL), "-n/--num must be an integer between 1 and 65536 (got '')");
  CHECK_INT(n, 65536); /* a refused value leaves the option as it was */
  CHECK_STR(cli_msg(&cli, "--seed", "9223372036854775807"), "");
  CHECK(seed == 9223372036854775807L);
  CHECK_STR(cli_msg(&cli, "--seed", "9223372036854775808"), "--seed must be an integer >= 0 (got 9223372036854775808)");
  CHECK_STR(cli_msg(&cli, "--seed", "-1"), "--seed must be an integer >= 0 (got -1)");
  CHECK_STR(cli_msg(&cli, "--rate", "1e-3"), "");
  CHECK_NEAR(rate, 1e-3, 0);
  CHECK_STR(cli_msg(&cli, "--rate", "10"), "");
  CHECK_STR(cli_msg(&cli, "--rate", "0"), "--rate must be a finite number > 0 and <= 10 (got 0)");
  CHECK_STR(cli_msg(&cli, "--rate", "inf"), "--rate must be a finite number > 0 and <= 10 (got inf)");
  CHECK_STR(cli_msg(&cli, "--rate", "NaN"), "--rate must be a finite number > 0 and <= 10 (got NaN)");
  CHECK_STR(cli_msg(&cli, "--rate", "1e999"), "--rate must be a finite number > 0 and <= 10 (got 1e999)");
  CHECK_STR(cli_msg(&cli, "--rate", "1e-999"), "--rate must be a finite number > 0 and <= 10 (got 1e-999)");
  CHECK_STR(cli_msg(&cli, "--rate", "0.5,"), "--rate must be a finite number > 0 and <= 10 (got 0.5,)");
  CHECK_STR(cli_msg(&cli, "--p", "0"), "");
  CHECK_STR(cli_msg(&cli, "--p", "1"), "--p must be a finite number >= 0 and < 1 (got 1)");
  /* a value option once per call; lists repeat; a later call (a layer) may set it again */
  CHECK_STR(cli_msg(&cli, "-sa", "-sb"), "-s/--name given twice");
  CHECK_STR(cli_msg(&cli, "--name=a", "--nm=b"), "--nm given twice (also as -s/--name)");
  CHECK_STR(cli_msg(&cli, "-n2", "-n3"), "-n/--num given twice");
  CHECK_STR(cli_msg(&cli, "-lx", "-ly"), "");
  CHECK_INT(l.n, 2);
  CHECK_STR(cli_msg(&cli, "-sa", NULL), "");
  CHECK_STR(cli_msg(&cli, "-sb", NULL), "");
  CHECK_STR(s, "b");
  /* a numeric row without bounds is refused, whatever the command line */
  long m = 0;
  const nmt_opt unbounded[] = {{"m", 0, NMT_OPT_INT, &m, "M", NULL}, {0}};
  nmt_cli bad = {"nmt-x", "", NULL, NULL, unbounded, false};
  CHECK_STR(cli_msg(&bad, "x", NULL), "--m: no bounds in the option table");
  /* positionals set through a row keep its bounds */
  CHECK_INT(nmt_cli_set(nmt_cli_find(&cli, "num"), "7"), NMT_OK);
  CHECK_INT(n, 7);
  CHECK_INT(nmt_cli_set(nmt_cli_find(&cli, "num"), "seven"), NMT_EUSAGE);
  CHECK(nmt_cli_find(&cli, "nope") == NULL);
  free(l.v);
}

/* A row with an implicit value: alone (last, or before an option) it takes that
 * value; a following number or "=VAL" is its value. */
TEST(cli_implicit_value) {
  double d = 0;
  bool flag = false;
  const nmt_opt opts[] = {{"smooth", 0, NMT_OPT_DOUBLE, &d, "[F]", "a factor", .min = 0, .max = 1, .implicit = "1e-4"},
                          {"flag", 0, NMT_OPT_FLAG, &flag, NULL, "a flag"},
                          {0}};
  nmt_cli cli = {"nmt-x", "[options]", NULL, NULL, opts, false};
  nmt_strlist pos;
  char *alone[] = {"nmt-x", "--smooth", NULL}, *before[] = {"nmt-x", "--smooth", "--flag", NULL};
  char *given[] = {"nmt-x", "--smooth", "0.5", NULL}, *eq[] = {"nmt-x", "--smooth=0.25", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 2, alone, &pos), NMT_OK);
  CHECK(d == 1e-4);
  d = 0;
  CHECK_INT(nmt_cli_parse(&cli, 3, before, &pos), NMT_OK);
  CHECK(d == 1e-4 && flag);
  CHECK_INT(nmt_cli_parse(&cli, 3, given, &pos), NMT_OK);
  CHECK(d == 0.5 && pos.n == 0);
  free(pos.v);
  CHECK_INT(nmt_cli_parse(&cli, 2, eq, &pos), NMT_OK);
  CHECK(d == 0.25);
  CHECK_INT(nmt_cli_set(&opts[0], NULL), NMT_OK); /* a preset naming the row alone */
  CHECK(d == 1e-4);
  char *bad[] = {"nmt-x", "--smooth", "2", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 3, bad, &pos), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--smooth must be a finite number between 0 and 1 (got 2)");
}

/* A list given once takes all its values after one use; a string with an
 * implicit value takes it when nothing but an option follows. */
TEST(cli_once_lists_and_implicit_values) {
  nmt_strlist m = {0};
  const char *a = NULL;
  bool f = false;
  const nmt_opt opts[] = {
      {"model", 'm', NMT_OPT_LIST, &m, "FILE", "models", .once = true},
      {"align", 0, NMT_OPT_STR, &a, "KIND", "alignments", .implicit = "hard"},
      {"flag", 'f', NMT_OPT_FLAG, &f, NULL, "a flag"},
      {0}};
  nmt_cli cli = {"nmt-x", "[options]", NULL, NULL, opts, false};
  nmt_strlist pos;
  char *two[] = {"nmt-x", "-m", "a", "b", "--align", "-f", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 6, two, &pos), NMT_OK);
  CHECK(m.n == 2 && f);
  CHECK_STR(a, "hard");
  free(pos.v);
  char *last[] = {"nmt-x", "--align", NULL}, *given[] = {"nmt-x", "--align", "soft", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 2, last, &pos), NMT_OK);
  CHECK_STR(a, "hard");
  free(pos.v);
  CHECK_INT(nmt_cli_parse(&cli, 3, given, &pos), NMT_OK);
  CHECK_STR(a, "soft");
  free(pos.v);
  m.n = 0;
  char *twice[] = {"nmt-x", "-m", "a", "-m", "b", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 5, twice, &pos), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "-m/--model given twice");
  free(m.v);
}

/* Layers: a list given in a later call replaces the earlier call's values (nmt-train's
 * flags over -c's file), and within one call repeated uses append. */
TEST(cli_list_layers) {
  nmt_strlist l = {0}, pos;
  const nmt_opt opts[] = {{"list", 'l', NMT_OPT_LIST, &l, "L", NULL}, {0}};
  nmt_cli cli = {"nmt-x", "[options]", NULL, NULL, opts, false};
  char *first[] = {"nmt-x", "--list", "a", "b", NULL}, *second[] = {"nmt-x", "-l", "c", "--list", "d", NULL};
  CHECK_INT(nmt_cli_parse(&cli, 4, first, &pos), NMT_OK);
  free(pos.v);
  CHECK_INT(nmt_cli_parse(&cli, 5, second, &pos), NMT_OK);
  free(pos.v);
  CHECK_INT(l.n, 2);
  CHECK_STR(l.v[0], "c");
  CHECK_STR(l.v[1], "d");
  free(l.v);
}

/* A row's default is set by nmt_cli_defaults and shown in --help with the bounds (but a
 * float's largest); an alias is the row under another name, and messages name the
 * spelling given. */
TEST(cli_defaults_and_aliases) {
  long n = 0;
  double r = 0;
  const char *s = NULL;
  const nmt_opt opts[] = {
      {"num", 'n', NMT_OPT_INT, &n, "N", "a number", .dflt = "64", .min = 1, .max = 10000, .alias = "nm"},
      {"rate", 0, NMT_OPT_DOUBLE, &r, "R", "a rate", .dflt = "1e-3", .min = 0, .max = FLT_MAX, .open_min = true},
      {"name", 0, NMT_OPT_STR, &s, "S", "a name", .dflt = "adam", .alias = "nam"},
      {0}};
  nmt_cli cli = {"nmt-x", "[options]", NULL, NULL, opts, true};
  CHECK_INT(nmt_cli_defaults(&cli), NMT_OK);
  CHECK_INT(n, 64);
  CHECK(r == 1e-3);
  CHECK_STR(s, "adam");
  CHECK_STR(cli_msg(&cli, "-nm", "7"), "");
  CHECK_INT(n, 7);
  CHECK(nmt_cli_find(&cli, "nam") == &opts[2]);
  CHECK_STR(cli_msg(&cli, "--nm", "0"), "--nm must be an integer between 1 and 10000 (got 0)");
  CHECK_STR(cli_msg(&cli, "--num", "0"), "-n/--num must be an integer between 1 and 10000 (got 0)");
  CHECK_STR(cli_msg(&cli, "--nm=1", "-n2"), "-n/--num given twice (also as --nm)");
  CHECK_STR(cli_msg(&cli, "--num=1", "--nm=2"), "--nm given twice (also as -n/--num)");
  CHECK_STR(cli_msg(&cli, "--nm=1", "--nm=2"), "--nm given twice");
  CHECK_STR(cli_msg(&cli, "--nam", NULL), "--nam needs a value");
  CHECK_STR(cli_msg(&cli, "--rate", "1e39"), "--rate must be a finite number > 0 and <= 3.40282346638529e+38 (got 1e39)");
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  nmt_cli_usage(&cli, f);
  fclose(f);
  CHECK(strstr(text, "  -n, --num, --nm N              a number (64; between 1 and 10000)\n") != NULL);
  CHECK(strstr(text, "      --rate R                   a rate (1e-3; > 0)\n") != NULL);
  CHECK(strstr(text, "      --name, --nam S            a name (adam)\n") != NULL);
  free(text);
  /* a default the row refuses is a bug in the table, found by any run */
  const nmt_opt wrong[] = {{"num", 0, NMT_OPT_INT, &n, "N", NULL, .dflt = "0", .min = 1, .max = 10}, {0}};
  nmt_cli bad = {"nmt-x", "", NULL, NULL, wrong, false};
  CHECK_INT(nmt_cli_defaults(&bad), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--num must be an integer between 1 and 10 (got 0)");
}
