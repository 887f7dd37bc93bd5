/* Tensor stream writing and reading; byte layout in docs/formats.md. Integers
 * are little-endian (the host's order on every machine we build for). */
#include "io/tstream.h"
#include "io/crc32c.h"
#include "base/err.h"
#include "io/io.h"
#include "base/utf8.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char magic[8] = {'N', 'M', 'T', 'T', 'S', 'T', 'R', 'M'};
enum { FIXED = 3,                  /* dtype, rank, name length */
       END = 0,                    /* the end record's dtype code */
       GROW = 1 << 16 };           /* first payload buffer; doubled as bytes arrive */
#define MAX_BYTES (1ull << 40)     /* larger records are taken for corruption */

size_t nmt_ts_dtype_size(int dtype) {
  switch (dtype) {
  case NMT_TS_U8: return 1;
  case NMT_TS_I32: return 4;
  case NMT_TS_F32: return 4;
  default: return 0;
  }
}

/* *bytes = element size x product of shape; false when over MAX_BYTES. */
static bool payload_bytes(int dtype, int rank, const uint64_t *shape, uint64_t *bytes) {
  uint64_t n = nmt_ts_dtype_size(dtype);
  for (int i = 0; i < rank; i++) {
    if (shape[i] > MAX_BYTES || (shape[i] && n > MAX_BYTES / shape[i])) return false;
    n *= shape[i];
  }
  *bytes = n;
  return true;
}

/* ---- writing ---- */

struct nmt_ts_writer {
  nmt_writer *w;
  uint64_t index; /* records written */
  uint32_t crc;   /* of the record being written */
  int st;
};

static void put(nmt_ts_writer *t, const void *p, size_t n) {
  if (t->st || !n) return;
  t->crc = nmt_crc32c(t->crc, p, n);
  t->st = nmt_writer_write(t->w, p, n);
}

static void put_crc(nmt_ts_writer *t) {
  uint32_t c = t->crc;
  if (!t->st) t->st = nmt_writer_write(t->w, &c, 4);
}

int nmt_ts_writer_open(nmt_ts_writer **out, const char *path, int flags) {
  nmt_ts_writer *t = calloc(1, sizeof *t);
  if (!t) return nmt_fail(NMT_EIO, "out of memory");
  int st = nmt_writer_open(&t->w, path, flags);
  uint32_t version = NMT_TS_VERSION;
  if (!st) st = nmt_writer_write(t->w, magic, sizeof magic);
  if (!st) st = nmt_writer_write(t->w, &version, 4);
  if (st) {
    nmt_ts_writer_abort(t);
    return st;
  }
  *out = t;
  return NMT_OK;
}

/* Header (with the record index folded into its CRC), header CRC, payload, record CRC. */
static int write_record(nmt_ts_writer *t, int dtype, int rank, const uint64_t *shape, const char *name,
                        const void *data, size_t bytes) {
  unsigned char fixed[FIXED] = {(unsigned char)dtype, (unsigned char)rank, (unsigned char)strlen(name)};
  t->crc = nmt_crc32c(0, &t->index, 8);
  put(t, fixed, FIXED);
  put(t, shape, 8 * (size_t)rank);
  put(t, name, fixed[2]);
  put_crc(t);
  put(t, data, bytes);
  put_crc(t);
  t->index++;
  return t->st;
}

int nmt_ts_write(nmt_ts_writer *t, const nmt_ts_record *rec) {
  uint64_t bytes;
  if (!nmt_ts_dtype_size(rec->dtype) || rec->rank < 0 || rec->rank > NMT_TS_MAX_RANK ||
      strlen(rec->name) > NMT_TS_MAX_NAME || !payload_bytes(rec->dtype, rec->rank, rec->shape, &bytes) ||
      bytes != rec->bytes)
    return nmt_fail(NMT_EUSAGE, "%s: malformed tensor record '%s'", nmt_writer_name(t->w), rec->name);
  return write_record(t, rec->dtype, rec->rank, rec->shape, rec->name, rec->data, rec->bytes);
}

int nmt_ts_writer_commit(nmt_ts_writer *t) {
  uint64_t count = t->index;
  int st = write_record(t, END, 1, &count, "", NULL, 0);
  if (st) {
    nmt_ts_writer_abort(t);
    return st;
  }
  st = nmt_writer_commit(t->w);
  free(t);
  return st;
}

void nmt_ts_writer_abort(nmt_ts_writer *t) {
  if (!t) return;
  nmt_writer_abort(t->w);
  free(t);
}

/* ---- reading ---- */

struct nmt_ts_reader {
  nmt_reader *in;             /* a file, or NULL for memory: */
  const unsigned char *mem;
  size_t mem_len, mem_pos;
  char *name;
  long index;                 /* records returned */
  int st;                     /* sticky: an error, or NMT_DONE after the end record */
  unsigned char *buf;         /* the current payload */
  size_t cap;
};

/* Up to n bytes into dst; returns the count (short only at the end) or -1. */
static long read_upto(nmt_ts_reader *r, void *dst, size_t n) {
  if (!r->in) {
    size_t k = r->mem_len - r->mem_pos < n ? r->mem_len - r->mem_pos : n;
    memcpy(dst, r->mem + r->mem_pos, k);
    r->mem_pos += k;
    return (long)k;
  }
  size_t got = 0;
  while (got < n) {
    long k = nmt_reader_read(r->in, (char *)dst + got, n - got);
    if (k < 0) return -1;
    if (!k) break;
    got += (size_t)k;
  }
  return (long)got;
}

static int fail(nmt_ts_reader *r, const char *what) {
  return r->st = nmt_fail(NMT_EINPUT, "%s: record %ld: %s", r->name, r->index, what);
}

/* Exactly n bytes, or a truncation error (an I/O error keeps its own). */
static int read_exact(nmt_ts_reader *r, void *dst, size_t n) {
  long k = read_upto(r, dst, n);
  if (k < 0) return r->st = nmt_errcode();
  if ((size_t)k < n) return fail(r, "truncated (the stream has no end record)");
  return NMT_OK;
}

static int open_common(nmt_ts_reader *r, const char *name) {
  r->name = strdup(name);
  if (!r->name) return r->st = nmt_fail(NMT_EIO, "out of memory");
  char head[12];
  long k = read_upto(r, head, sizeof head);
  if (k < 0) return r->st = nmt_errcode();
  if (k < 8 || memcmp(head, magic, 8)) return r->st = nmt_fail(NMT_EINPUT, "%s: not a tensor stream", name);
  if (k < 12) return r->st = nmt_fail(NMT_EINPUT, "%s: truncated (in the stream header)", name);
  uint32_t version;
  memcpy(&version, head + 8, 4);
  if (version > NMT_TS_VERSION)
    return r->st = nmt_fail(NMT_EINPUT, "%s: tensor stream version %u is newer than this build's %d", name,
                            version, NMT_TS_VERSION);
  if (version < 1) return r->st = nmt_fail(NMT_EINPUT, "%s: bad tensor stream version 0", name);
  return NMT_OK;
}

int nmt_ts_reader_open(nmt_ts_reader **out, const char *path) {
  nmt_ts_reader *r = calloc(1, sizeof *r);
  if (!r) return nmt_fail(NMT_EIO, "out of memory");
  int st = nmt_reader_open(&r->in, path);
  if (!st) st = open_common(r, nmt_reader_name(r->in));
  if (st) {
    nmt_ts_reader_close(r);
    return st;
  }
  *out = r;
  return NMT_OK;
}

int nmt_ts_reader_open_mem(nmt_ts_reader **out, const void *data, size_t len, const char *name) {
  nmt_ts_reader *r = calloc(1, sizeof *r);
  if (!r) return nmt_fail(NMT_EIO, "out of memory");
  r->mem = data;
  r->mem_len = len;
  int st = open_common(r, name);
  if (st) {
    nmt_ts_reader_close(r);
    return st;
  }
  *out = r;
  return NMT_OK;
}

/* Read n bytes into buf, growing it only as they arrive, so a huge length
 * in a truncated stream fails at its end instead of allocating first. */
static int read_payload(nmt_ts_reader *r, size_t n) {
  for (size_t got = 0; got < n;) {
    if (got == r->cap) {
      size_t cap = r->cap ? 2 * r->cap : GROW;
      if (cap > n) cap = n;
      unsigned char *b = realloc(r->buf, cap);
      if (!b) return r->st = nmt_fail(NMT_EIO, "%s: record %ld: out of memory", r->name, r->index);
      r->buf = b;
      r->cap = cap;
    }
    size_t want = (n < r->cap ? n : r->cap) - got;
    if (read_exact(r, r->buf + got, want)) return r->st;
    got += want;
  }
  return NMT_OK;
}

/* The end record: its count must be ours and nothing may follow it. */
static int finish(nmt_ts_reader *r, const nmt_ts_record *rec) {
  if (rec->rank != 1 || rec->shape[0] != (uint64_t)r->index || rec->name[0])
    return fail(r, "bad end record");
  char extra;
  long k = read_upto(r, &extra, 1);
  if (k < 0) return r->st = nmt_errcode();
  if (k) return r->st = nmt_fail(NMT_EINPUT, "%s: data after the end record", r->name);
  return r->st = NMT_DONE;
}

/* Whether the 4 bytes at p hold crc. */
static int check_crc(nmt_ts_reader *r, const unsigned char *p, uint32_t crc) {
  uint32_t stored;
  memcpy(&stored, p, 4);
  return stored == crc ? NMT_OK : fail(r, "checksum mismatch");
}

/* The header into rec (dtype, rank, shape, name), its CRC checked; *crc
 * carries on over the payload. */
static int read_header(nmt_ts_reader *r, nmt_ts_record *rec, int *dtype, uint32_t *crc) {
  unsigned char h[8 + FIXED + 8 * NMT_TS_MAX_RANK + NMT_TS_MAX_NAME + 4], *fixed = h + 8;
  uint64_t index = (uint64_t)r->index;
  memcpy(h, &index, 8);
  if (read_exact(r, fixed, FIXED)) return r->st;
  if (fixed[1] > NMT_TS_MAX_RANK) return fail(r, "bad header");
  size_t shape = 8 * (size_t)fixed[1], len = 8 + FIXED + shape + fixed[2];
  if (read_exact(r, fixed + FIXED, shape + fixed[2] + 4)) return r->st;
  *crc = nmt_crc32c(0, h, len);
  if (check_crc(r, h + len, *crc)) return r->st;
  *dtype = fixed[0];
  rec->rank = fixed[1];
  memcpy(rec->shape, fixed + FIXED, shape);
  memcpy(rec->name, fixed + FIXED + shape, fixed[2]);
  rec->name[fixed[2]] = 0;
  if (strlen(rec->name) != fixed[2] || nmt_utf8_invalid(rec->name, fixed[2]) != fixed[2])
    return fail(r, "name is not UTF-8 text");
  return NMT_OK;
}

int nmt_ts_next(nmt_ts_reader *r, nmt_ts_record *rec) {
  if (r->st == NMT_DONE) return 0;
  if (r->st) return nmt_fail(r->st, "%s: read on after an error", r->name), -1;
  int dtype = END;
  uint32_t crc = 0;
  uint64_t bytes = 0;
  if (read_header(r, rec, &dtype, &crc)) return -1;
  if (dtype != END && !nmt_ts_dtype_size(dtype)) return fail(r, "unknown element type"), -1;
  if (dtype != END && !payload_bytes(dtype, rec->rank, rec->shape, &bytes))
    return fail(r, "record too large"), -1;
  /* the payload and the record CRC after it */
  if (read_payload(r, (size_t)bytes + 4) || check_crc(r, r->buf + bytes, nmt_crc32c(crc, r->buf, (size_t)bytes)))
    return -1;
  if (dtype == END) return finish(r, rec) == NMT_DONE ? 0 : -1;
  rec->dtype = (nmt_ts_dtype)dtype;
  rec->bytes = (size_t)bytes;
  rec->data = r->buf;
  r->index++;
  return 1;
}

long nmt_ts_count(const nmt_ts_reader *r) { return r->index; }
const char *nmt_ts_name(const nmt_ts_reader *r) { return r->name; }

void nmt_ts_reader_close(nmt_ts_reader *r) {
  if (!r) return;
  nmt_reader_close(r->in);
  free(r->name);
  free(r->buf);
  free(r);
}

int nmt_ts_sniff(const char *path, bool *is_stream) {
  *is_stream = false;
  struct stat sb;
  /* a pipe (stdin, <(...)) read here would lose its first bytes to the real reader */
  if (!path || !strcmp(path, "-") || (!stat(path, &sb) && !S_ISREG(sb.st_mode))) return NMT_OK;
  nmt_ts_reader r = {0};
  int st = nmt_reader_open(&r.in, path);
  if (st) return st;
  char head[8];
  long k = read_upto(&r, head, sizeof head);
  nmt_reader_close(r.in);
  if (k < 0) return nmt_errcode();
  *is_stream = k == 8 && !memcmp(head, magic, 8);
  return NMT_OK;
}
