/* lib/io/parallel: line N of a file read beside the input, and its messages. */
#include "base/err.h"
#include "io/parallel.h"
#include "test.h"
#include <stdio.h>
#include <string.h>

static nmt_reader *open_text(const char *name, const char *s) {
  const char *p = t_tmp(name);
  FILE *f = fopen(p, "wb");
  fputs(s, f);
  fclose(f);
  nmt_reader *r = NULL;
  if (nmt_reader_open(&r, p)) T_FAIL("open %s: %s", p, nmt_errmsg());
  return r;
}

/* The message past the temp folder's path: "NAME..." from the file's own name on. */
static const char *msg_from(const char *name) {
  const char *m = nmt_errmsg(), *at = strstr(m, name);
  return at ? at : m;
}

/* Line n of r as the prefix file's: its status, the line in *got ("" with none). */
static int line_at(nmt_reader *r, long n, const char **got) {
  char *line;
  size_t len;
  int st = nmt_parallel_line(r, n, "the prefix file", &line, &len);
  *got = st ? "" : line;
  if (!st && strlen(line) != len) T_FAIL("line %ld: length %zu", n, len);
  return st;
}

TEST(parallel_line_skips_to_the_line_asked) {
  nmt_reader *r = open_text("p1", "a\nb\n\nd\n");
  const char *got;
  CHECK_INT(line_at(r, 2, &got), NMT_OK); /* a shard starts at 2 */
  CHECK_STR(got, "b");
  CHECK_INT(line_at(r, 3, &got), NMT_OK);
  CHECK_STR(got, "");
  CHECK_INT(line_at(r, 4, &got), NMT_OK);
  CHECK_STR(got, "d");
  CHECK_INT(nmt_parallel_end(r, r, "the prefix file"), NMT_OK);
  nmt_reader_close(r);
}

TEST(parallel_line_past_the_end) {
  nmt_reader *r = open_text("p2", "a\n");
  const char *got;
  CHECK_INT(line_at(r, 2, &got), NMT_EINPUT);
  CHECK_STR(msg_from("p2"), "p2: no line 2, the input has one: the prefix file has one line per input line "
                            "(an empty line: none)");
  nmt_reader_close(r);
  r = open_text("p3", "a\nb\n"); /* a line already read is not read again */
  CHECK_INT(line_at(r, 2, &got), NMT_OK);
  CHECK_INT(line_at(r, 1, &got), NMT_EINPUT);
  nmt_reader_close(r);
}

TEST(parallel_line_checks_utf8_and_places_errors) {
  nmt_reader *r = open_text("p4", "a\n\xff\n");
  const char *got;
  CHECK_INT(line_at(r, 2, &got), NMT_EINPUT);
  CHECK_STR(msg_from("p4"), "p4:2: invalid UTF-8 at byte offset 0");
  CHECK_INT(nmt_parallel_at(nmt_fail(NMT_EINPUT, "bad word"), r, 2), NMT_EINPUT);
  CHECK_STR(msg_from("p4"), "p4:2: bad word");
  CHECK_INT(nmt_parallel_at(nmt_fail(NMT_EIO, "out of memory"), r, 2), NMT_EIO); /* only input errors get a place */
  CHECK_STR(nmt_errmsg(), "out of memory");
  CHECK_INT(nmt_parallel_at(NMT_OK, r, 2), NMT_OK);
  nmt_reader_close(r);
}

TEST(parallel_end_names_both_files) {
  nmt_reader *in = open_text("in5", "x\n"), *r = open_text("p5", "a\nb\n");
  char *line;
  size_t len;
  const char *got;
  CHECK_INT(nmt_reader_next(in, &line, &len), 1);
  CHECK_INT(line_at(r, 1, &got), NMT_OK);
  CHECK_INT(nmt_parallel_end(r, in, "the constraints file"), NMT_EINPUT);
  const char *m = msg_from("p5");
  CHECK_INT(strncmp(m, "p5 has more lines than ", 23), 0);
  CHECK_INT(strstr(m, "in5 (1): the constraints file has one line per input line") != NULL, 1);
  nmt_reader_close(in), nmt_reader_close(r);
}
