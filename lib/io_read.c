/* Line readers: plain or zstd input (detected by magic number), lines of any length. */
#include "io.h"
#include "err.h"
#include "utf8.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

enum { READ_CHUNK = 1 << 18 };

struct nmt_reader {
  int fd;
  char *name;
  long lineno;
  char *buf;          /* decompressed data: [pos, end) not yet consumed */
  size_t pos, end, cap;
  int eof;            /* the source has no more bytes */
  ZSTD_DCtx *zd;      /* non-NULL for zstd input */
  char *zin;          /* compressed bytes: [zpos, zend) */
  size_t zpos, zend, zcap;
  size_t zlast;       /* last ZSTD_decompressStream result: 0 = frame complete */
};

static int read_fd(nmt_reader *r, char *dst, size_t n, size_t *got) {
  *got = 0;
  for (;;) {
    ssize_t k = read(r->fd, dst, n);
    if (k >= 0) { *got = (size_t)k; return NMT_OK; }
    if (errno != EINTR) return nmt_fail_errno(NMT_EIO, "%s: read error", r->name);
  }
}

int nmt_reader_open(nmt_reader **out, const char *path) {
  nmt_reader *r = calloc(1, sizeof *r);
  if (!r) return nmt_fail(NMT_EIO, "out of memory");
  int is_stdin = !path || !strcmp(path, "-");
  r->name = strdup(is_stdin ? "<stdin>" : path);
  r->fd = is_stdin ? 0 : open(path, O_RDONLY);
  if (r->fd < 0) {
    nmt_fail_errno(NMT_EIO, "%s: cannot open", path);
    free(r->name); free(r);
    return NMT_EIO;
  }
  r->cap = READ_CHUNK * 2;
  r->buf = malloc(r->cap + 1);
  /* Peek at the first bytes: zstd frames start with 28 B5 2F FD. Read on only while
   * what came could still be the magic, so a short first line in a pipe is not held. */
  static const unsigned char magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
  size_t got = 0, k = 0;
  while (got < 4 && !memcmp(r->buf, magic, got)) {
    if (read_fd(r, r->buf + got, READ_CHUNK - got, &k)) { nmt_reader_close(r); return NMT_EIO; }
    if (!k) { r->eof = 1; break; }
    got += k;
  }
  if (got >= 4 && !memcmp(r->buf, magic, 4)) {
    r->zd = ZSTD_createDCtx();
    r->zcap = ZSTD_DStreamInSize();
    if (r->zcap < got) r->zcap = got;
    r->zin = malloc(r->zcap);
    memcpy(r->zin, r->buf, got);
    r->zend = got;
    r->zlast = 1;
  } else {
    r->end = got;
  }
  *out = r;
  return NMT_OK;
}

/* Append decompressed bytes to buf[end..cap). Returns bytes added (0 at EOF) or -1. */
static long fill(nmt_reader *r) {
  size_t room = r->cap - r->end;
  if (!r->zd) {
    if (r->eof) return 0;
    size_t k;
    if (read_fd(r, r->buf + r->end, room, &k)) return -1;
    if (!k) r->eof = 1;
    r->end += k;
    return (long)k;
  }
  for (;;) {
    if (r->zpos == r->zend && !r->eof) {
      size_t k;
      if (read_fd(r, r->zin, r->zcap, &k)) return -1;
      r->zpos = 0; r->zend = k;
      if (!k) r->eof = 1;
    }
    if (r->zpos == r->zend && r->eof) {
      if (r->zlast != 0) {
        nmt_fail(NMT_EINPUT, "%s: truncated zstd input", r->name);
        return -1;
      }
      return 0;
    }
    ZSTD_inBuffer in = {r->zin, r->zend, r->zpos};
    ZSTD_outBuffer ob = {r->buf + r->end, room, 0};
    size_t ret = ZSTD_decompressStream(r->zd, &ob, &in);
    if (ZSTD_isError(ret)) {
      nmt_fail(NMT_EINPUT, "%s: corrupt zstd input: %s", r->name, ZSTD_getErrorName(ret));
      return -1;
    }
    r->zpos = in.pos;
    r->zlast = ret;
    r->end += ob.pos;
    if (ob.pos) return (long)ob.pos;
  }
}

/* Make room at the end of buf: drop consumed bytes, grow if still full. */
static int make_room(nmt_reader *r) {
  if (r->pos > 0) {
    memmove(r->buf, r->buf + r->pos, r->end - r->pos);
    r->end -= r->pos;
    r->pos = 0;
  }
  if (r->cap - r->end < READ_CHUNK) {
    size_t cap = r->cap * 2;
    char *b = realloc(r->buf, cap + 1);
    if (!b) return nmt_fail(NMT_EIO, "%s: out of memory for a line", r->name);
    r->buf = b;
    r->cap = cap;
  }
  return NMT_OK;
}

int nmt_reader_next(nmt_reader *r, char **line, size_t *len) {
  size_t scanned = r->pos;
  for (;;) {
    char *nl = memchr(r->buf + scanned, '\n', r->end - scanned);
    if (nl) {
      *nl = 0;
      *line = r->buf + r->pos;
      *len = (size_t)(nl - *line);
      r->pos = (size_t)(nl - r->buf) + 1;
      r->lineno++;
      return 1;
    }
    size_t pending = r->end - r->pos;
    if (make_room(r)) return -1;
    scanned = pending;
    long k = fill(r);
    if (k < 0) return -1;
    if (k == 0) {
      if (r->end == r->pos) return 0;
      r->buf[r->end] = 0; /* last line without '\n' */
      *line = r->buf + r->pos;
      *len = r->end - r->pos;
      r->pos = r->end;
      r->lineno++;
      return 1;
    }
  }
}

long nmt_reader_read(nmt_reader *r, void *dst, size_t n) {
  if (r->pos == r->end) {
    r->pos = r->end = 0;
    long k = fill(r);
    if (k <= 0) return k;
  }
  size_t k = r->end - r->pos < n ? r->end - r->pos : n;
  memcpy(dst, r->buf + r->pos, k);
  r->pos += k;
  return (long)k;
}

bool nmt_reader_stalled(const nmt_reader *r) {
  if (memchr(r->buf + r->pos, '\n', r->end - r->pos)) return false;
  if (r->eof || (r->zd && r->zpos < r->zend)) return false;
  struct pollfd p = {.fd = r->fd, .events = POLLIN};
  return poll(&p, 1, 0) == 0;
}

const char *nmt_reader_name(const nmt_reader *r) { return r->name; }
long nmt_reader_lineno(const nmt_reader *r) { return r->lineno; }

void nmt_reader_close(nmt_reader *r) {
  if (!r) return;
  if (r->fd > 0) close(r->fd);
  ZSTD_freeDCtx(r->zd);
  free(r->zin);
  free(r->buf);
  free(r->name);
  free(r);
}

int nmt_each_utf8_line(const char *path, nmt_line_fn fn, void *ctx) {
  nmt_reader *r;
  int st = nmt_reader_open(&r, path);
  if (st) return st;
  char *line;
  size_t len;
  int k;
  while (!st && (k = nmt_reader_next(r, &line, &len)) == 1) {
    st = nmt_utf8_check_line(line, len, r->name, r->lineno);
    if (!st) st = fn(ctx, line, len, r->name, r->lineno);
  }
  if (!st && k < 0) st = nmt_errcode();
  nmt_reader_close(r);
  return st;
}

int nmt_read_file(const char *path, char **data, size_t *len) {
  nmt_reader *r;
  int st = nmt_reader_open(&r, path);
  if (st) return st;
  size_t cap = 1 << 16, n = 0;
  char *d = malloc(cap + 1);
  for (;;) {
    if (cap - n < (1 << 15)) { cap *= 2; d = realloc(d, cap + 1); }
    long k = nmt_reader_read(r, d + n, cap - n);
    if (k < 0) { free(d); nmt_reader_close(r); return nmt_errcode(); }
    if (!k) break;
    n += (size_t)k;
  }
  nmt_reader_close(r);
  d[n] = 0;
  *data = d;
  *len = n;
  return NMT_OK;
}

