/* Tensor streams: CRC-32C, round trips, each error, id streams, and reading
 * thousands of mutated streams without a crash or a hang. */
#include "io/crc32c.h"
#include "base/err.h"
#include "io/io.h"
#include "test.h"
#include "io/tstream.h"
#include "text/tstream_ids.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(tstream_crc32c) {
  CHECK_INT(nmt_crc32c(0, "123456789", 9), 0xE3069283u);
  CHECK_INT(nmt_crc32c(nmt_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
  char zeros[32] = {0}; /* the iSCSI test vector (RFC 3720 B.4) */
  CHECK_INT(nmt_crc32c(0, zeros, 32), 0x8A9136AAu);
  unsigned char buf[1008];
  for (int i = 0; i < 1008; i++) buf[i] = (unsigned char)(i * 7 + (i >> 3));
  for (size_t n = 0; n < 1000; n += 37)
    for (size_t at = 0; at < 9; at++)
      CHECK_INT(nmt_crc32c(5, buf + at, n), nmt_crc32c_portable(5, buf + at, n));
}

/* A stream with one record of each kind: u8 vector, i32 matrix, f32 scalar,
 * an empty i32 vector with a long name, a rank-3 f32 tensor with a zero dim. */
static const int32_t mat[2][3] = {{1, -2, 3}, {400000, 5, -6}};
static const float scalar = 2.5f;
static const unsigned char bytes[5] = {0, 1, 2, 254, 255};

static int fill_records(nmt_ts_record rec[5]) {
  memset(rec, 0, 5 * sizeof *rec);
  rec[0] = (nmt_ts_record){NMT_TS_U8, 1, {5}, "bytes", bytes, 5};
  rec[1] = (nmt_ts_record){NMT_TS_I32, 2, {2, 3}, "matrice\xc3\xa9", mat, sizeof mat};
  rec[2] = (nmt_ts_record){NMT_TS_F32, 0, {0}, "", &scalar, 4};
  rec[3] = (nmt_ts_record){NMT_TS_I32, 1, {0}, "", NULL, 0};
  memset(rec[3].name, 'n', NMT_TS_MAX_NAME);
  rec[4] = (nmt_ts_record){NMT_TS_F32, 3, {4, 0, 7}, "empty", NULL, 0};
  return 5;
}

static void write_sample(const char *path, int flags) {
  nmt_ts_record rec[5];
  int n = fill_records(rec);
  nmt_ts_writer *w;
  CHECK_INT(nmt_ts_writer_open(&w, path, flags), NMT_OK);
  for (int i = 0; i < n; i++) CHECK_INT(nmt_ts_write(w, &rec[i]), NMT_OK);
  CHECK_INT(nmt_ts_writer_commit(w), NMT_OK);
}

static bool same_record(const nmt_ts_record *a, const nmt_ts_record *b) {
  if (a->dtype != b->dtype || a->rank != b->rank || strcmp(a->name, b->name) || a->bytes != b->bytes) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d]) return false;
  return !a->bytes || !memcmp(a->data, b->data, a->bytes);
}

/* Read every record of r; returns 0 at a valid end (records equal the sample
 * when `check`), -1 on error. Closes r. */
static int read_all(nmt_ts_reader *r, bool check) {
  nmt_ts_record want[5], got;
  int n = fill_records(want), k, i = 0;
  while ((k = nmt_ts_next(r, &got)) == 1) {
    if (check && (i >= n || !same_record(&got, &want[i]))) T_FAIL("record %d differs", i);
    i++;
  }
  if (check && k == 0 && i != n) T_FAIL("%d records, expected %d", i, n);
  nmt_ts_reader_close(r);
  return k;
}

TEST(tstream_round_trip) {
  const char *plain = t_tmp("s.ts"), *zst = t_tmp("s.ts.zst");
  write_sample(plain, 0);
  write_sample(zst, NMT_W_ZSTD);
  for (int z = 0; z < 2; z++) {
    nmt_ts_reader *r;
    CHECK_INT(nmt_ts_reader_open(&r, z ? zst : plain), NMT_OK);
    CHECK_INT(read_all(r, true), 0);
    bool is;
    CHECK_INT(nmt_ts_sniff(z ? zst : plain, &is), NMT_OK);
    CHECK(is);
  }
  bool is = true;
  CHECK_INT(t_sh("printf 'NMTTSTR\\n' > %s", t_tmp("text")), 0);
  CHECK_INT(nmt_ts_sniff(t_tmp("text"), &is), NMT_OK);
  CHECK(!is);
}

TEST(tstream_writer_rejects_malformed_records) {
  nmt_ts_writer *w;
  CHECK_INT(nmt_ts_writer_open(&w, t_tmp("bad.ts"), 0), NMT_OK);
  nmt_ts_record bad = {NMT_TS_I32, 1, {3}, "x", mat, 8}; /* 3 x i32 is 12 bytes */
  CHECK_INT(nmt_ts_write(w, &bad), NMT_EUSAGE);
  bad = (nmt_ts_record){7, 1, {2}, "x", mat, 8};
  CHECK_INT(nmt_ts_write(w, &bad), NMT_EUSAGE);
  nmt_ts_writer_abort(w);
  CHECK_INT(t_sh("test ! -e %s", t_tmp("bad.ts")), 0);
}

/* The sample's bytes (uncompressed). */
static char *sample_bytes(size_t *len) {
  const char *path = t_tmp("sample.ts");
  write_sample(path, 0);
  char *data;
  CHECK_INT(nmt_read_file(path, &data, len), NMT_OK);
  return data;
}

/* Read mutated bytes: the status and message of the first failure. */
static int read_mem(const char *data, size_t len) {
  nmt_ts_reader *r;
  if (nmt_ts_reader_open_mem(&r, data, len, "s.ts")) return -1;
  return read_all(r, false);
}

static void expect_error(const char *data, size_t len, const char *msg) {
  CHECK_INT(read_mem(data, len), -1);
  CHECK_INT(nmt_errcode(), NMT_EINPUT);
  if (!strstr(nmt_errmsg(), msg)) T_FAIL("message \"%s\", expected \"%s\"", nmt_errmsg(), msg);
}

TEST(tstream_errors) {
  size_t len;
  char *s = sample_bytes(&len), *m = malloc(len + 1);
  CHECK_INT(read_mem(s, len), 0);
  memcpy(m, s, len);
  m[0] = 'X';
  expect_error(m, len, "s.ts: not a tensor stream");
  expect_error(m, 0, "s.ts: not a tensor stream");
  memcpy(m, s, len);
  m[8] = 2; /* version 2 */
  expect_error(m, len, "s.ts: tensor stream version 2 is newer than this build's 1");
  expect_error(s, 10, "s.ts: truncated (in the stream header)");
  memcpy(m, s, len);
  m[len - 12] ^= 1; /* the end record's count */
  expect_error(m, len, "s.ts: record 5: checksum mismatch");
  /* record 1's payload: its last int, before the record CRC; then the end
   * record (3 + 8 + 4 + 4 bytes) and the records 2-4 come after it */
  size_t tail = 19 + (3 + 4 + 4 + 4) + (3 + 8 + 255 + 4 + 4) + (3 + 24 + 5 + 4 + 4);
  memcpy(m, s, len);
  m[len - tail - 4 - 1] ^= 0x40;
  expect_error(m, len, "s.ts: record 1: checksum mismatch");
  expect_error(s, len - 19, "s.ts: record 5: truncated (the stream has no end record)");
  expect_error(s, len - 1, "s.ts: record 5: truncated");
  memcpy(m, s, len);
  m[len] = 0;
  expect_error(m, len + 1, "s.ts: data after the end record");
  free(m);
  free(s);
}

/* Append to b a record with valid CRCs around whatever fields it is given. */
static size_t raw_record(unsigned char *b, uint64_t index, int dtype, int rank, const uint64_t *shape,
                         const char *name, size_t payload) {
  unsigned char h[8 + 3 + 64 + 255];
  size_t n = 0, L = strlen(name);
  memcpy(h, &index, 8);
  h[8] = (unsigned char)dtype, h[9] = (unsigned char)rank, h[10] = (unsigned char)L;
  memcpy(h + 11, shape, 8 * (size_t)rank);
  memcpy(h + 11 + 8 * rank, name, L);
  size_t hl = 11 + 8 * (size_t)rank + L;
  uint32_t crc = nmt_crc32c(0, h, hl);
  memcpy(b, h + 8, hl - 8), n = hl - 8;
  memcpy(b + n, &crc, 4), n += 4;
  memset(b + n, 0, payload);
  crc = nmt_crc32c(crc, b + n, payload), n += payload;
  memcpy(b + n, &crc, 4);
  return n + 4;
}

TEST(tstream_bad_fields_with_valid_checksums) {
  unsigned char b[512];
  const uint64_t huge[2] = {1ull << 39, 1ull << 39}, two = 2, one = 1, zero = 0;
  size_t n = 12;
  memcpy(b, "NMTTSTRM\1\0\0\0", 12);
  n += raw_record(b + n, 0, 9, 1, &two, "x", 0);
  expect_error((char *)b, n, "s.ts: record 0: unknown element type");
  n = 12 + raw_record(b + 12, 0, NMT_TS_U8, 1, &one, "\xff", 1);
  expect_error((char *)b, n, "s.ts: record 0: name is not UTF-8 text");
  n = 12 + raw_record(b + 12, 0, NMT_TS_F32, 2, huge, "", 0);
  expect_error((char *)b, n, "s.ts: record 0: record too large");
  /* a declared 4 GiB payload that is not there: fails at the end, no 4 GiB allocated */
  const uint64_t big = 1ull << 30;
  n = 12 + raw_record(b + 12, 0, NMT_TS_I32, 1, &big, "", 0);
  expect_error((char *)b, n - 4, "s.ts: record 0: truncated");
  /* an end record whose count is wrong, or with a record after it */
  n = 12 + raw_record(b + 12, 0, 0, 1, &one, "", 0);
  expect_error((char *)b, n, "s.ts: record 0: bad end record");
  n = 12 + raw_record(b + 12, 0, 0, 1, &zero, "", 0);
  CHECK_INT(read_mem((char *)b, n), 0);
  n += raw_record(b + n, 1, NMT_TS_U8, 1, &one, "", 1);
  expect_error((char *)b, n, "s.ts: data after the end record");
}

/* xorshift64*: the mutations are the same on every run. */
static uint64_t next_rand(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}

TEST(tstream_mutations_never_crash) {
  size_t len;
  char *s = sample_bytes(&len), *m = malloc(len + 64);
  uint64_t x = 88172645463325252ull;
  int ok = 0, failed = 0;
  for (int i = 0; i < 4000; i++) {
    size_t n = len;
    memcpy(m, s, len);
    int kind = i % 4;
    if (kind == 0) { /* 1-3 bit flips */
      for (int f = 0, nf = 1 + (int)(next_rand(&x) % 3); f < nf; f++) {
        uint64_t at = next_rand(&x) % (8 * len);
        m[at / 8] ^= (char)(1 << (at % 8));
      }
    } else if (kind == 1) { /* truncation */
      n = (size_t)(next_rand(&x) % len);
    } else if (kind == 2) { /* 1-64 random bytes inserted */
      size_t at = (size_t)(next_rand(&x) % (len + 1)), k = 1 + (size_t)(next_rand(&x) % 64);
      memmove(m + at + k, m + at, len - at);
      for (size_t j = 0; j < k; j++) m[at + j] = (char)next_rand(&x);
      n = len + k;
    } else { /* a random byte overwritten with an extreme value (lengths, ranks) */
      m[next_rand(&x) % len] = (char)(next_rand(&x) & 1 ? 0xff : 0x7f);
    }
    int k = read_mem(m, n);
    if (k == 0) {
      ok++;
      if (memcmp(m, s, len) || n != len) T_FAIL("mutation %d read as a valid stream", i);
    } else {
      failed++;
      if (nmt_errcode() != NMT_EINPUT || !strstr(nmt_errmsg(), "s.ts: "))
        T_FAIL("mutation %d: status %d \"%s\"", i, nmt_errcode(), nmt_errmsg());
    }
  }
  CHECK(failed > 3900); /* only no-op mutations (the same byte written back) may read */
  free(m);
  free(s);
}

/* ---- id streams ---- */

static nmt_vocab *vocab_of(const char *words) {
  char text[256];
  snprintf(text, sizeof text, "<pad>\n<unk>\n<s>\n</s>\n%s", words);
  nmt_vocab *v = NULL;
  CHECK_INT(nmt_vocab_parse(&v, text, strlen(text), "v"), NMT_OK);
  return v;
}

TEST(tstream_ids_equal_text) {
  nmt_vocab *v = vocab_of("a\nb\nc\n"), *other = vocab_of("a\nb\n");
  const char *ids_path = t_tmp("ids.zst"), *text_path = t_tmp("text");
  CHECK_INT(t_sh("printf 'a b\\n\\nc x a\\n' > %s", text_path), 0);
  nmt_ts_writer *w;
  CHECK_INT(nmt_ids_writer_open(&w, ids_path, NMT_W_ZSTD, v), NMT_OK);
  const int l0[] = {4, 5}, l2[] = {6, 1, 4};
  CHECK_INT(nmt_ids_write(w, l0, 2), NMT_OK);
  CHECK_INT(nmt_ids_write(w, NULL, 0), NMT_OK);
  CHECK_INT(nmt_ids_write(w, l2, 3), NMT_OK);
  CHECK_INT(nmt_ts_writer_commit(w), NMT_OK);
  nmt_id_reader *a, *b;
  CHECK_INT(nmt_id_reader_open(&a, ids_path, v), NMT_OK);
  CHECK_INT(nmt_id_reader_open(&b, text_path, v), NMT_OK);
  const int *ia, *ib;
  int na, nb, ka, kb;
  do {
    ka = nmt_id_reader_next(a, &ia, &na);
    kb = nmt_id_reader_next(b, &ib, &nb);
    CHECK_INT(ka, kb);
    if (ka == 1 && (na != nb || memcmp(ia, ib, sizeof *ia * (size_t)na))) T_FAIL("line %ld differs", nmt_id_reader_count(a));
  } while (ka == 1 && kb == 1);
  CHECK_INT(nmt_id_reader_count(a), 3);
  nmt_id_reader_close(a);
  nmt_id_reader_close(b);
  CHECK_INT(nmt_id_reader_open(&a, ids_path, other), NMT_EINPUT);
  CHECK(strstr(nmt_errmsg(), "made with another vocabulary") != NULL);
  nmt_vocab_free(v);
  nmt_vocab_free(other);
}

TEST(tstream_ids_out_of_range) {
  nmt_vocab *v = vocab_of("a\n");
  const char *path = t_tmp("ids");
  nmt_ts_writer *w;
  CHECK_INT(nmt_ids_writer_open(&w, path, 0, v), NMT_OK);
  const int bad[] = {4, 5};
  CHECK_INT(nmt_ids_write(w, bad, 2), NMT_OK);
  CHECK_INT(nmt_ts_writer_commit(w), NMT_OK);
  nmt_id_reader *r;
  const int *ids;
  int n;
  CHECK_INT(nmt_id_reader_open(&r, path, v), NMT_OK);
  CHECK_INT(nmt_id_reader_next(r, &ids, &n), -1);
  CHECK(strstr(nmt_errmsg(), "record 1: id 5 is outside the vocabulary (5 ids)") != NULL);
  nmt_id_reader_close(r);
  nmt_vocab_free(v);
}
