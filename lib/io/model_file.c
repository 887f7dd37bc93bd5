/* Model file container: sections, size and checksum; see io/model_file.h. All
 * integers are little-endian (the host's order on every machine we build for). */
#include "io/model_file.h"
#include "base/checked.h"
#include "base/err.h"
#include "io/io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char magic[8] = {'N', 'M', 'T', 'M', 'O', 'D', 'E', 'L'};
enum { HEADER = 8 + 4 + 4 + 8, SECTION_HEAD = NMT_MF_TAG + 8, FOOTER = 8 };

uint64_t nmt_fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

int nmt_mf_add(nmt_model_file *f, const char *tag, const void *data, size_t len) {
  if (!*tag || strlen(tag) > NMT_MF_TAG) return nmt_fail(NMT_EUSAGE, "bad section tag '%s'", tag);
  if (f->n == f->cap) {
    int cap = nmt_grow_int(f->cap, 8);
    nmt_section *s = cap > 0 ? realloc(f->s, sizeof *s * (size_t)cap) : NULL;
    if (!s) return nmt_fail(NMT_EIO, "out of memory");
    f->s = s;
    f->cap = cap;
  }
  nmt_section *s = &f->s[f->n++];
  memset(s->tag, 0, sizeof s->tag);
  memcpy(s->tag, tag, strlen(tag));
  s->data = data;
  s->len = len;
  return NMT_OK;
}

bool nmt_mf_sniff(const void *data, size_t len) {
  return len >= sizeof magic && !memcmp(data, magic, sizeof magic);
}

const nmt_section *nmt_mf_get(const nmt_model_file *f, const char *tag) {
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->s[i].tag, tag)) return &f->s[i];
  return NULL;
}

void nmt_mf_free(nmt_model_file *f) {
  free(f->s);
  free(f->buf);
  memset(f, 0, sizeof *f);
}

/* ---- writing ---- */

typedef struct {
  nmt_writer *w;
  uint64_t hash;
  int st;
} hashed_writer;

static void put(hashed_writer *hw, const void *p, size_t n) {
  if (hw->st || !n) return;
  hw->hash = nmt_fnv1a(hw->hash, p, n);
  hw->st = nmt_writer_write(hw->w, p, n);
}

/* Through a durable writer (NMT_W_SYNC): a crash at any point leaves the old file or
 * the new one, whole, on which nmt-train --resume depends. */
int nmt_mf_write_filled(const nmt_model_file *f, const char *path, int (*before)(void *ctx, int i), void *ctx) {
  uint64_t total = HEADER + FOOTER;
  for (int i = 0; i < f->n; i++) total += SECTION_HEAD + f->s[i].len;
  hashed_writer hw = {NULL, NMT_FNV_INIT, NMT_OK};
  if ((hw.st = nmt_writer_open(&hw.w, path, NMT_W_SYNC))) return hw.st;
  uint32_t version = NMT_MF_VERSION, n = (uint32_t)f->n;
  put(&hw, magic, sizeof magic);
  put(&hw, &version, 4);
  put(&hw, &n, 4);
  put(&hw, &total, 8);
  for (int i = 0; i < f->n; i++) {
    uint64_t len = f->s[i].len;
    put(&hw, f->s[i].tag, NMT_MF_TAG);
    put(&hw, &len, 8);
    if (before && !hw.st) hw.st = before(ctx, i);
    put(&hw, f->s[i].data, f->s[i].len);
  }
  uint64_t sum = hw.hash;
  put(&hw, &sum, 8);
  if (hw.st) {
    nmt_writer_abort(hw.w);
    return hw.st;
  }
  return nmt_writer_commit(hw.w);
}

int nmt_mf_write(const nmt_model_file *f, const char *path) { return nmt_mf_write_filled(f, path, NULL, NULL); }

/* ---- reading ---- */

static uint64_t u64_at(const char *p) {
  uint64_t x;
  memcpy(&x, p, 8);
  return x;
}

static uint32_t u32_at(const char *p) {
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

/* The checks that need only the header; size is the file's. */
static int check_header(const char *buf, size_t size, const char *path) {
  if (!nmt_mf_sniff(buf, size)) return nmt_fail(NMT_EINPUT, "%s: not an nmt model file", path);
  if (size < HEADER) return nmt_fail(NMT_EINPUT, "%s: truncated", path);
  uint32_t version = u32_at(buf + 8);
  if (version > NMT_MF_VERSION)
    return nmt_fail(NMT_EINPUT,
                    "%s: format version %u is newer than this nmt reads (%d); upgrade nmt",
                    path, version, NMT_MF_VERSION);
  uint64_t total = u64_at(buf + 16);
  if (size < total) return nmt_fail(NMT_EINPUT, "%s: truncated", path);
  if (size > total || total < HEADER + FOOTER)
    return nmt_fail(NMT_EINPUT, "%s: checksum mismatch (its header says %llu bytes)", path,
                    (unsigned long long)total);
  if (nmt_fnv1a(NMT_FNV_INIT, buf, size - FOOTER) != u64_at(buf + size - FOOTER))
    return nmt_fail(NMT_EINPUT, "%s: checksum mismatch", path);
  return NMT_OK;
}

static int parse_sections(nmt_model_file *f, const char *path) {
  uint32_t n = u32_at(f->buf + 12);
  size_t at = HEADER, end = f->size - FOOTER;
  /* each section needs its head: a count past that is no request for memory */
  if (n > (end - at) / SECTION_HEAD) return nmt_fail(NMT_EINPUT, "%s: bad section table", path);
  for (uint32_t i = 0; i < n; i++) {
    if (end - at < SECTION_HEAD) return nmt_fail(NMT_EINPUT, "%s: bad section table", path);
    char tag[NMT_MF_TAG + 1] = {0};
    memcpy(tag, f->buf + at, NMT_MF_TAG);
    uint64_t len = u64_at(f->buf + at + NMT_MF_TAG);
    at += SECTION_HEAD;
    if (len > end - at) return nmt_fail(NMT_EINPUT, "%s: bad section table", path);
    int st = nmt_mf_add(f, tag, f->buf + at, (size_t)len);
    if (st) return st == NMT_EUSAGE ? nmt_fail(NMT_EINPUT, "%s: bad section table", path) : st;
    at += (size_t)len;
  }
  return at == end ? NMT_OK : nmt_fail(NMT_EINPUT, "%s: bad section table", path);
}

/* Check and index f->buf; f is freed on error. */
static int parse_buf(nmt_model_file *f, const char *path) {
  int st = check_header(f->buf, f->size, path);
  if (!st) st = parse_sections(f, path);
  if (st) nmt_mf_free(f);
  return st;
}

/* The header first, then no further than the size it states (and a byte more, to
 * tell a longer file): a device or pipe that is not a model is not read on. */
int nmt_mf_read(nmt_model_file *f, const char *path) {
  memset(f, 0, sizeof *f);
  nmt_reader *r;
  int st = nmt_reader_open(&r, path);
  if (!st) st = nmt_reader_read_all(r, HEADER, &f->buf, &f->size);
  if (!st && f->size == HEADER && nmt_mf_sniff(f->buf, HEADER)) {
    uint64_t total = u64_at(f->buf + 16);
    st = nmt_reader_read_all(r, total < SIZE_MAX ? (size_t)total + 1 : SIZE_MAX, &f->buf, &f->size);
  }
  if (st) nmt_mf_free(f);
  else st = parse_buf(f, nmt_reader_name(r)); /* stdin's messages name <stdin> */
  nmt_reader_close(r);
  return st;
}

int nmt_mf_read_mem(nmt_model_file *f, const void *data, size_t len, const char *name) {
  memset(f, 0, sizeof *f);
  if (!(f->buf = malloc(len ? len : 1))) return nmt_fail(NMT_EIO, "out of memory");
  if (len) memcpy(f->buf, data, len);
  f->size = len;
  return parse_buf(f, name);
}
