/* lib/tsv: TSV without quoting, CSV with RFC 4180 quoting, both through libcsv. */
#include "base/err.h"
#include "io/io.h"
#include "test.h"
#include "io/tsv.h"
#include <stdio.h>
#include <string.h>

static void write_text(const char *path, const char *s) {
  FILE *f = fopen(path, "wb");
  fputs(s, f);
  fclose(f);
}

/* Every record of `text` as "line:field|field|...;" ("line:!;" for invalid UTF-8). */
static void records(const char *text, int format, char *out, size_t cap, int *status) {
  const char *p = t_tmp("in");
  write_text(p, text);
  nmt_tsv *t;
  *out = 0;
  if ((*status = nmt_tsv_open(&t, p, format))) return;
  nmt_tsv_row r;
  int got;
  size_t n = 0;
  while ((got = nmt_tsv_next(t, &r)) > 0) {
    n += (size_t)snprintf(out + n, cap - n, "%ld:", r.line);
    if (r.invalid_utf8) n += (size_t)snprintf(out + n, cap - n, "!");
    for (int i = 0; i < r.n; i++) {
      if (strlen(r.field[i]) != r.len[i]) T_FAIL("field %d of line %ld: length %zu", i, r.line, r.len[i]);
      n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "|" : "", r.field[i]);
    }
    n += (size_t)snprintf(out + n, cap - n, ";");
  }
  *status = got < 0 ? nmt_errcode() : NMT_OK;
  nmt_tsv_close(t);
}

TEST(tsv_quotes_are_text) {
  char got[512];
  int st;
  records("\"Bonjour\", dit-il.\tHello\n a \t b \n\"x\ty\"\t\"\n", NMT_TSV, got, sizeof got, &st);
  CHECK_INT(st, NMT_OK);
  CHECK_STR(got, "1:\"Bonjour\", dit-il.|Hello;2: a | b ;3:\"x|y\"|\";");
}

TEST(tsv_empty_crlf_and_last_line) {
  char got[512];
  int st;
  records("a\tb\r\n\n\t\nc\td", NMT_TSV, got, sizeof got, &st);
  CHECK_INT(st, NMT_OK);
  CHECK_STR(got, "1:a|b;2:;3:|;4:c|d;");
}

TEST(tsv_invalid_utf8_flagged) {
  char got[512];
  int st;
  records("a\tb\n\xff" "x\ty\nc\td\n", NMT_TSV, got, sizeof got, &st);
  CHECK_INT(st, NMT_OK);
  CHECK_STR(got, "1:a|b;2:!;3:c|d;");
  records("a,b\n\"\xc3\",\"z\nz\"\nc,d\n", NMT_CSV, got, sizeof got, &st);
  CHECK_INT(st, NMT_OK);
  CHECK_STR(got, "1:a|b;2:!\xc3|z\nz;4:c|d;");
}

TEST(tsv_csv_quoting) {
  char got[512];
  int st;
  records("\"a, b\",\"say \"\"hi\"\"\"\n\"two\nlines\",x\nplain \"q\" ,y\r\n", NMT_CSV, got, sizeof got, &st);
  CHECK_INT(st, NMT_OK);
  CHECK_STR(got, "1:a, b|say \"hi\";2:two\nlines|x;4:plain \"q\" |y;");
  records("a,b\n\"open,c\nd\n", NMT_CSV, got, sizeof got, &st);
  CHECK_INT(st, NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), ":2: quoted field never closed") != NULL);
}

/* Whatever nmt_tsv_write writes reads back the same. */
TEST(tsv_write_roundtrip) {
  const char *fields[] = {"a, \"b\"", " lead", "two\nlines", "", "tab\there"};
  size_t lens[5];
  for (int i = 0; i < 5; i++) lens[i] = strlen(fields[i]);
  const char *p = t_tmp("out.csv");
  nmt_writer *w;
  CHECK_INT(nmt_writer_open(&w, p, 0), NMT_OK);
  CHECK_INT(nmt_tsv_write(w, NMT_CSV, 5, fields, lens), NMT_OK);
  CHECK_INT(nmt_tsv_write(w, NMT_TSV, 1, fields, lens), NMT_OK); /* a quote is fine in TSV */
  CHECK_INT(nmt_tsv_write(w, NMT_TSV, 1, fields + 4, lens + 4), NMT_EINPUT);
  CHECK_INT(nmt_writer_commit(w), NMT_OK);
  nmt_tsv *t;
  nmt_tsv_row r;
  CHECK_INT(nmt_tsv_open(&t, p, NMT_CSV), NMT_OK);
  CHECK_INT(nmt_tsv_next(t, &r), 1);
  CHECK_INT(r.n, 5);
  for (int i = 0; i < 5 && i < r.n; i++) CHECK_STR(r.field[i], fields[i]);
  nmt_tsv_close(t);
}
