/* lib/io: readers (plain, zstd, gzip, pipes), writers and outputs. */
#include "base/err.h"
#include "io/io.h"
#include "test.h"
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
