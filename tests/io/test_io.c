/* lib/io (readers, writers, outputs), lib/utf8, lib/cli, lib/err. */
#include "base/cli.h"
#include "base/err.h"
#include "io/io.h"
#include "test.h"
#include "base/utf8.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void write_text(const char *path, const char *s, size_t n) {
  FILE *f = fopen(path, "wb");
  fwrite(s, 1, n, f);
  fclose(f);
}

/* Read every line of path, joined with '|' */
static char *read_joined(const char *path, int *status) {
  nmt_reader *r;
  *status = nmt_reader_open(&r, path);
  if (*status) return NULL;
  size_t cap = 1024, n = 0;
  char *out = malloc(cap);
  char *line;
  size_t len;
  int k;
  while ((k = nmt_reader_next(r, &line, &len)) == 1) {
    while (n + len + 2 > cap) out = realloc(out, cap *= 2);
    memcpy(out + n, line, len);
    n += len;
    out[n++] = '|';
  }
  out[n] = 0;
  if (k < 0) *status = nmt_errcode();
  nmt_reader_close(r);
  return out;
}

TEST(io_lines_plain) {
  const char *p = t_tmp("a.txt");
  write_text(p, "one\ntwo\r\n\nlast", 14);
  int st;
  char *s = read_joined(p, &st);
  CHECK_INT(st, NMT_OK);
  CHECK_STR(s, "one|two\r||last|");
  free(s);
}

TEST(io_long_line) {
  const char *p = t_tmp("long.txt");
  size_t n = 3u << 20;
  char *big = malloc(n + 4);
  memset(big, 'x', n);
  memcpy(big + n, "\ny\n", 3);
  write_text(p, big, n + 3);
  nmt_reader *r;
  CHECK_INT(nmt_reader_open(&r, p), NMT_OK);
  char *line;
  size_t len;
  CHECK_INT(nmt_reader_next(r, &line, &len), 1);
  CHECK_INT(len, n);
  CHECK_INT(nmt_reader_next(r, &line, &len), 1);
  CHECK_STR(line, "y");
  CHECK_INT(nmt_reader_lineno(r), 2);
  CHECK_INT(nmt_reader_next(r, &line, &len), 0);
  nmt_reader_close(r);
  free(big);
}

TEST(io_zstd_roundtrip_and_truncation) {
  const char *p = t_tmp("z.zst");
  nmt_writer *w;
  CHECK_INT(nmt_writer_open(&w, p, NMT_W_ZSTD), NMT_OK);
  for (int i = 0; i < 100000; i++) nmt_writer_printf(w, "line %d\n", i);
  CHECK_INT(nmt_writer_commit(w), NMT_OK);
  nmt_reader *r;
  CHECK_INT(nmt_reader_open(&r, p), NMT_OK);
  char *line;
  size_t len;
  long count = 0;
  while (nmt_reader_next(r, &line, &len) == 1) count++;
  CHECK_INT(count, 100000);
  CHECK_STR(line, "line 99999");
  nmt_reader_close(r);
  CHECK_INT(t_sh("head -c 2000 '%s' > '%s'", p, t_tmp("cut.zst")), 0);
  int st;
  free(read_joined(t_tmp("cut.zst"), &st));
  CHECK_INT(st, NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "truncated zstd") != NULL);
}

TEST(io_writer_is_atomic) {
  const char *p = t_tmp("out.txt");
  nmt_writer *w;
  CHECK_INT(nmt_writer_open(&w, p, 0), NMT_OK);
  nmt_writer_puts(w, "partial\n");
  CHECK(access(p, F_OK) != 0);
  /* the temp is hidden beside the target, with a random suffix */
  CHECK_INT(t_sh("ls -A '%s' | grep -qx '[.]out[.]txt[.][A-Za-z0-9]\\{6\\}'", t_tmp("")), 0);
  nmt_writer_abort(w);
  CHECK(access(p, F_OK) != 0);
  CHECK_INT(t_sh("ls -A '%s' | grep -q out", t_tmp("")), 1);
  CHECK_INT(nmt_writer_open(&w, p, 0), NMT_OK);
  nmt_writer_puts(w, "done\n");
  CHECK_INT(nmt_writer_commit(w), NMT_OK);
  CHECK(access(p, F_OK) == 0);
}

/* A symlink is followed: its target is replaced, the link stays. The same target
 * open twice (here by its two names) is a usage error. */
TEST(io_writer_follows_symlink_and_refuses_twice) {
  const char *target = t_tmp("target"), *link = t_tmp("link");
  write_text(target, "old\n", 4);
  CHECK_INT(symlink("target", link), 0);
  nmt_writer *w, *w2;
  CHECK_INT(nmt_writer_open(&w, link, 0), NMT_OK);
  CHECK_INT(nmt_writer_open(&w2, target, 0), NMT_EUSAGE);
  CHECK(strstr(nmt_errmsg(), "named twice as an output") != NULL);
  nmt_writer_puts(w, "new\n");
  CHECK_INT(nmt_writer_commit(w), NMT_OK);
  CHECK_INT(t_sh("test -L '%s' && grep -qx new '%s'", link, target), 0);
  /* once committed, the name is free again */
  CHECK_INT(nmt_writer_open(&w2, target, 0), NMT_OK);
  nmt_writer_abort(w2);
}

/* Several outputs commit as one: when the second cannot be written out (a file size
 * limit), the first keeps its old content and no temp file is left. */
TEST(io_writers_commit_all_or_none) {
  const char *a = t_tmp("a"), *b = t_tmp("b");
  write_text(a, "old\n", 4);
  nmt_writer *w[2];
  CHECK_INT(nmt_writer_open(&w[0], a, 0), NMT_OK);
  CHECK_INT(nmt_writer_open(&w[1], b, 0), NMT_OK);
  nmt_writer_puts(w[0], "new\n");
  for (int i = 0; i < 10000; i++) nmt_writer_puts(w[1], "a long line that goes over the limit\n");
  struct rlimit old, small = {4096, 4096};
  getrlimit(RLIMIT_FSIZE, &old);
  small.rlim_max = old.rlim_max;
  void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
  setrlimit(RLIMIT_FSIZE, &small);
  int st = nmt_writers_commit(w, 2);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, was);
  CHECK_INT(st, NMT_EIO);
  CHECK(strstr(nmt_errmsg(), "b: write error") != NULL);
  CHECK_INT(t_sh("grep -qx old '%s' && test ! -e '%s'", a, b), 0);
  CHECK_INT(t_sh("ls -A '%s' | grep -q '^[.]'", t_tmp("")), 1);
}

TEST(io_missing_file) {
  nmt_reader *r;
  CHECK_INT(nmt_reader_open(&r, "/nonexistent/x"), NMT_EIO);
  CHECK(strstr(nmt_errmsg(), "/nonexistent/x: cannot open") != NULL);
}

/* A pipe with one line and no more yet: the reader hands out the line without waiting
 * for more bytes (a short line is not held back by the magic-number peek), then says it
 * is stalled; after the writer closes it is not. */
TEST(io_reader_stalls_on_quiet_pipe) {
  int fd[2];
  CHECK_INT(pipe(fd), 0);
  CHECK_INT(write(fd[1], "a\n", 2), 2);
  int saved = dup(0);
  dup2(fd[0], 0);
  close(fd[0]);
  nmt_reader *r;
  CHECK_INT(nmt_reader_open(&r, "-"), NMT_OK);
  CHECK(!nmt_reader_stalled(r));
  char *line;
  size_t len;
  CHECK_INT(nmt_reader_next(r, &line, &len), 1);
  CHECK_STR(line, "a");
  CHECK(nmt_reader_stalled(r));
  close(fd[1]);
  CHECK(!nmt_reader_stalled(r));
  CHECK_INT(nmt_reader_next(r, &line, &len), 0);
  nmt_reader_close(r);
  dup2(saved, 0);
  close(saved);
}

/* gzip by its magic number; members one after another are one stream, as gzip -dc;
 * a long, very compressible input (the decoder holds more than one buffer) reads
 * whole; a cut or damaged one is NMT_EINPUT. */
TEST(io_gzip_input) {
  const char *p = t_tmp("m.gz"), *big = t_tmp("big.gz"), *cut = t_tmp("cut.gz");
  CHECK_INT(t_sh("(printf 'a\\nb' | gzip; printf '\\nc\\n' | gzip) > '%s'", p), 0);
  int st;
  char *got = read_joined(p, &st);
  CHECK_INT(st, NMT_OK);
  CHECK_STR(got, "a|b|c|");
  free(got);
  CHECK_INT(t_sh("yes abcdefgh | head -n 1000000 | gzip -9 > '%s' && head -c 2000 '%s' > '%s'", big, big, cut), 0);
  nmt_reader *r;
  CHECK_INT(nmt_reader_open(&r, big), NMT_OK);
  char *line;
  size_t len;
  long n = 0;
  while (nmt_reader_next(r, &line, &len) == 1) n += len == 8;
  CHECK_INT(n, 1000000);
  nmt_reader_close(r);
  free(read_joined(cut, &st));
  CHECK_INT(st, NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "cut.gz: truncated gzip input") != NULL);
}

/* A closed stdin is an error naming it, not an empty input. */
TEST(io_closed_stdin) {
  int saved = dup(0);
  close(0);
  nmt_reader *r;
  int st = nmt_reader_open(&r, "-");
  dup2(saved, 0);
  close(saved);
  CHECK_INT(st, NMT_EIO);
  CHECK(strstr(nmt_errmsg(), "<stdin>: cannot read: stdin is closed") != NULL);
}

/* nmt_writer_flush on zstd output writes a block that decodes to every line so far. */
TEST(io_zstd_flush_is_decodable) {
  const char *p = t_tmp("f.zst");
  nmt_writer *w;
  CHECK_INT(nmt_writer_open(&w, "-", NMT_W_ZSTD), NMT_OK);
  int saved = dup(1);
  FILE *f = fopen(p, "wb");
  dup2(fileno(f), 1);
  nmt_writer_puts(w, "first\n");
  CHECK_INT(nmt_writer_flush(w), NMT_OK);
  CHECK_INT(t_sh("zstd -dc < '%s' 2>/dev/null | grep -qx first", p), 0);
  nmt_writer_puts(w, "second\n");
  CHECK_INT(nmt_writer_commit(w), NMT_OK);
  dup2(saved, 1);
  close(saved);
  fclose(f);
  CHECK_INT(t_sh("test \"$(zstd -dc < '%s' | tr '\\n' ' ')\" = 'first second '", p), 0);
}

/* A message built from the previous one (source and target of the format overlap). */
TEST(err_message_from_previous) {
  nmt_fail(NMT_EIO, "x.txt: cannot open");
  nmt_fail(NMT_EIO, "reading the vocabulary: %s", nmt_errmsg());
  CHECK_STR(nmt_errmsg(), "reading the vocabulary: x.txt: cannot open");
}

TEST(utf8_validation) {
  CHECK_INT(nmt_utf8_invalid("abc", 3), 3);
  CHECK_INT(nmt_utf8_invalid("caf\xc3\xa9 ok", 8), 8);
  CHECK_INT(nmt_utf8_invalid("ab\xc3", 3), 2);           /* truncated */
  CHECK_INT(nmt_utf8_invalid("a\xc0\xafz", 4), 1);       /* overlong */
  CHECK_INT(nmt_utf8_invalid("\xed\xa0\x80", 3), 0);     /* surrogate */
  CHECK_INT(nmt_utf8_invalid("12345678\xff", 9), 8);
  char buf[4];
  uint32_t cp;
  CHECK_INT(nmt_utf8_encode(0x1F600, buf), 4);
  CHECK_INT(nmt_utf8_decode(buf, 4, &cp), 4);
  CHECK_INT(cp, 0x1F600);
}

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
