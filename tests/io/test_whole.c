/* Whole inputs: nmt_reader_read_all's bound, the model reader on headers that claim
 * more than the file holds, and growth that cannot wrap (base/checked.h). */
#include "base/checked.h"
#include "base/err.h"
#include "io/io.h"
#include "io/model_file.h"
#include "test.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_bytes(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  fwrite(p, 1, n, f);
  fclose(f);
}

/* Reading stops at the bound and goes on from there; the bytes stay NUL-terminated. */
TEST(io_read_all_bounded) {
  char text[100];
  memset(text, 'x', sizeof text);
  const char *p = t_tmp("x");
  write_bytes(p, text, sizeof text);
  nmt_reader *r;
  CHECK_INT(nmt_reader_open(&r, p), NMT_OK);
  char *d = NULL;
  size_t n = 0;
  CHECK_INT(nmt_reader_read_all(r, 10, &d, &n), NMT_OK);
  CHECK_INT(n, 10);
  CHECK_INT(strlen(d), 10);
  CHECK_INT(nmt_reader_read_all(r, SIZE_MAX, &d, &n), NMT_OK);
  CHECK_INT(n, 100);
  CHECK_INT(strlen(d), 100);
  nmt_reader_close(r);
  free(d);
}

/* A model header: magic, version 1, `count` sections, `total` bytes. */
static void header(unsigned char h[24], uint32_t count, uint64_t total) {
  memcpy(h, "NMTMODEL", 8);
  uint32_t version = 1;
  memcpy(h + 8, &version, 4);
  memcpy(h + 12, &count, 4);
  memcpy(h + 16, &total, 8);
}

/* Sizes and counts in the header that the file cannot hold are refused as damage,
 * never taken as a request for memory nor wrapped. */
TEST(io_model_header_claims) {
  unsigned char f[24 + 8];
  header(f, UINT32_MAX, sizeof f);
  uint64_t sum = nmt_fnv1a(NMT_FNV_INIT, f, 24);
  memcpy(f + 24, &sum, 8);
  nmt_model_file mf;
  CHECK_INT(nmt_mf_read_mem(&mf, f, sizeof f, "m"), NMT_EINPUT);
  CHECK_STR(nmt_errmsg(), "m: bad section table");
  const char *p = t_tmp("m");
  header(f, 0, UINT64_MAX);
  write_bytes(p, f, sizeof f);
  CHECK_INT(nmt_mf_read(&mf, p), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "m: truncated") != NULL);
  header(f, 0, 3);
  write_bytes(p, f, sizeof f);
  CHECK_INT(nmt_mf_read(&mf, p), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "checksum mismatch (its header says 3 bytes)") != NULL);
}

TEST(checked_grow_int) {
  CHECK_INT(nmt_grow_int(0, 8), 8);
  CHECK_INT(nmt_grow_int(8, 8), 16);
  CHECK_INT(nmt_grow_int(INT_MAX / 2, 8), INT_MAX - 1);
  CHECK_INT(nmt_grow_int(INT_MAX / 2 + 1, 8), -1);
  CHECK_INT(nmt_grow_int(1 << 30, 8), -1);
}
