/* Line readers: plain, zstd or gzip input (detected by magic number), lines of any length. */
#include "io/io.h"
#include "base/err.h"
#include "io/std.h"
#include "base/utf8.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

enum { READ_CHUNK = 1 << 18, MAX_FILL = 1 << 30 };

enum codec { RAW, ZSTD, GZIP };

struct nmt_reader {
  int fd;
  char *name;
  long lineno;
  char *buf;          /* decompressed data: [pos, end) not yet consumed */
  size_t pos, end, cap;
  int eof;            /* the source has no more bytes */
  enum codec codec;
  ZSTD_DCtx *zd;
  z_stream *gz;
  char *zin;          /* compressed bytes: [zpos, zend) */
  size_t zpos, zend, zcap;
  int unfinished;     /* a zstd frame or gzip member has begun and not ended */
  int pending;        /* the last step filled its output: the decoder may hold more */
  char *nl;           /* the next line's '\n' when nmt_reader_stalled found it, else NULL */
  long long offset;   /* bytes of the lines returned so far */
  long long limit;    /* a shard's end: no line starts at or after it; -1: none */
};

static int read_fd(nmt_reader *r, char *dst, size_t n, size_t *got) {
  *got = 0;
  for (;;) {
    ssize_t k = read(r->fd, dst, n);
    if (k >= 0) { *got = (size_t)k; return NMT_OK; }
    if (errno != EINTR) return nmt_fail_errno(NMT_EIO, "%s: read error", r->name);
  }
}

static const unsigned char ZSTD_MAGIC[4] = {0x28, 0xB5, 0x2F, 0xFD}, GZIP_MAGIC[2] = {0x1F, 0x8B};

/* The first `got` bytes could still grow into a magic number. */
static bool could_be_magic(const char *b, size_t got) {
  return (got < sizeof ZSTD_MAGIC && !memcmp(b, ZSTD_MAGIC, got)) ||
         (got < sizeof GZIP_MAGIC && !memcmp(b, GZIP_MAGIC, got));
}

static enum codec codec_of(const char *b, size_t got) {
  if (got >= sizeof ZSTD_MAGIC && !memcmp(b, ZSTD_MAGIC, sizeof ZSTD_MAGIC)) return ZSTD;
  if (got >= sizeof GZIP_MAGIC && !memcmp(b, GZIP_MAGIC, sizeof GZIP_MAGIC)) return GZIP;
  return RAW;
}

/* Compressed input: the peeked bytes move to zin and a decoder starts. */
static int start_decoder(nmt_reader *r, size_t got) {
  r->zcap = r->codec == ZSTD ? ZSTD_DStreamInSize() : READ_CHUNK;
  if (r->zcap < got) r->zcap = got;
  r->zin = malloc(r->zcap);
  if (r->codec == ZSTD) r->zd = ZSTD_createDCtx();
  else if ((r->gz = calloc(1, sizeof *r->gz)) && inflateInit2(r->gz, 15 + 16) != Z_OK) { /* 16: gzip wrapper */
    free(r->gz);
    r->gz = NULL;
  }
  if (!r->zin || (!r->zd && !r->gz)) return nmt_fail(NMT_EIO, "%s: out of memory for a decoder", r->name);
  memcpy(r->zin, r->buf, got);
  r->zend = got;
  r->unfinished = 1;
  return NMT_OK;
}

int nmt_reader_open(nmt_reader **out, const char *path) {
  *out = NULL; /* so a caller may close it on every path */
  int is_stdin = !path || !strcmp(path, "-");
  if (is_stdin && nmt_io_std_closed(0)) return nmt_fail(NMT_EIO, "<stdin>: cannot read: stdin is closed");
  nmt_reader *r = calloc(1, sizeof *r);
  if (!r) return nmt_fail(NMT_EIO, "out of memory");
  r->name = strdup(is_stdin ? "<stdin>" : path);
  r->limit = -1;
  r->cap = READ_CHUNK * 2;
  r->buf = malloc(r->cap + 1);
  r->fd = -1;
  if (!r->name || !r->buf) {
    nmt_reader_close(r);
    return nmt_fail(NMT_EIO, "%s: out of memory", is_stdin ? "<stdin>" : path);
  }
  r->fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
  if (r->fd < 0) {
    nmt_fail_errno(NMT_EIO, "%s: cannot open", path);
    nmt_reader_close(r);
    return NMT_EIO;
  }
  /* Peek at the first bytes for a magic number. Read on only while what came could
   * still be one, so a short first line in a pipe is not held. */
  size_t got = 0, k = 0;
  while (could_be_magic(r->buf, got)) {
    if (read_fd(r, r->buf + got, READ_CHUNK - got, &k)) { nmt_reader_close(r); return NMT_EIO; }
    if (!k) { r->eof = 1; break; }
    got += k;
  }
  r->codec = codec_of(r->buf, got);
  if (r->codec == RAW) r->end = got;
  else if (start_decoder(r, got)) { nmt_reader_close(r); return NMT_EIO; }
  *out = r;
  return NMT_OK;
}

static const char *codec_name(const nmt_reader *r) { return r->codec == ZSTD ? "zstd" : "gzip"; }

/* One decoder call on zin[zpos, zend) (maybe empty, to drain what it holds) into
 * buf[end, end + room). Returns bytes made, or -1 on corrupt input. */
static long zstd_step(nmt_reader *r, size_t room) {
  ZSTD_inBuffer in = {r->zin, r->zend, r->zpos};
  ZSTD_outBuffer ob = {r->buf + r->end, room, 0};
  size_t ret = ZSTD_decompressStream(r->zd, &ob, &in);
  if (ZSTD_isError(ret)) return nmt_fail(NMT_EINPUT, "%s: corrupt zstd input: %s", r->name, ZSTD_getErrorName(ret)), -1;
  r->zpos = in.pos;
  r->unfinished = ret != 0;
  return (long)ob.pos;
}

/* Members one after another are one stream, as gzip -dc reads them. */
static long gzip_step(nmt_reader *r, size_t room) {
  z_stream *z = r->gz;
  if (!r->unfinished && r->zpos < r->zend) {
    inflateReset(z);
    r->unfinished = 1;
  }
  z->next_in = (unsigned char *)r->zin + r->zpos;
  z->avail_in = (unsigned)(r->zend - r->zpos);
  z->next_out = (unsigned char *)r->buf + r->end;
  z->avail_out = (unsigned)room;
  int ret = r->unfinished ? inflate(z, Z_NO_FLUSH) : Z_BUF_ERROR;
  if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) /* Z_BUF_ERROR: no progress yet */
    return nmt_fail(NMT_EINPUT, "%s: corrupt gzip input: %s", r->name, z->msg ? z->msg : zError(ret)), -1;
  r->zpos = r->zend - z->avail_in;
  if (ret == Z_STREAM_END) r->unfinished = 0;
  return (long)(room - z->avail_out);
}

/* Append decompressed bytes to buf[end..cap). Returns bytes added (0 at EOF) or -1. */
static long fill(nmt_reader *r) {
  size_t room = r->cap - r->end;
  if (room > MAX_FILL) room = MAX_FILL; /* zlib counts in unsigned int */
  if (r->codec == RAW) {
    if (r->eof) return 0;
    size_t k;
    if (read_fd(r, r->buf + r->end, room, &k)) return -1;
    if (!k) r->eof = 1;
    r->end += k;
    return (long)k;
  }
  for (;;) {
    if (r->zpos < r->zend || r->pending) {
      long k = r->codec == ZSTD ? zstd_step(r, room) : gzip_step(r, room);
      if (k < 0) return -1;
      r->pending = (size_t)k == room;
      r->end += (size_t)k;
      if (k) return k;
    }
    if (r->eof) {
      if (r->unfinished) return nmt_fail(NMT_EINPUT, "%s: truncated %s input", r->name, codec_name(r)), -1;
      return 0;
    }
    size_t k;
    if (read_fd(r, r->zin, r->zcap, &k)) return -1;
    r->zpos = 0;
    r->zend = k;
    if (!k) r->eof = 1;
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
  if (r->limit >= 0 && r->offset >= r->limit) return 0;
  size_t scanned = r->pos;
  for (;;) {
    char *nl = r->nl ? r->nl : memchr(r->buf + scanned, '\n', r->end - scanned);
    r->nl = NULL;
    if (nl) {
      *nl = 0;
      *line = r->buf + r->pos;
      *len = (size_t)(nl - *line);
      r->pos = (size_t)(nl - r->buf) + 1;
      r->lineno++;
      r->offset += (long long)*len + 1;
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
      r->offset += (long long)*len;
      return 1;
    }
  }
}

long nmt_reader_read(nmt_reader *r, void *dst, size_t n) {
  r->nl = NULL;
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

bool nmt_reader_stalled(nmt_reader *r) {
  if (r->limit >= 0 && r->offset >= r->limit) return false; /* the shard is done */
  /* the newline found is kept for nmt_reader_next, so a line is scanned once */
  if (r->nl || (r->nl = memchr(r->buf + r->pos, '\n', r->end - r->pos))) return false;
  if (r->eof || r->pending || (r->codec != RAW && r->zpos < r->zend)) return false;
  struct pollfd p = {.fd = r->fd, .events = POLLIN};
  return poll(&p, 1, 0) == 0;
}

int nmt_reader_shard(nmt_reader *r, int k, int n) {
  struct stat sb;
  if (r->codec != RAW || fstat(r->fd, &sb) || !S_ISREG(sb.st_mode))
    return nmt_fail(NMT_EUSAGE, "%s: a shard is a byte range of a file: give an uncompressed file, not %s", r->name,
                    r->codec != RAW ? "compressed input" : "a pipe or terminal");
  long long size = (long long)sb.st_size, lo = size * k / n;
  char *line;
  size_t len;
  /* the lines before the range are read, not sought past, so line numbers stay the file's */
  while (r->offset < lo) {
    int got = nmt_reader_next(r, &line, &len);
    if (got <= 0) return got < 0 ? nmt_errcode() : NMT_OK;
  }
  r->limit = size * (k + 1) / n;
  return NMT_OK;
}

const char *nmt_reader_name(const nmt_reader *r) { return r->name; }
long nmt_reader_lineno(const nmt_reader *r) { return r->lineno; }

void nmt_reader_close(nmt_reader *r) {
  if (!r) return;
  if (r->fd > 0) close(r->fd);
  ZSTD_freeDCtx(r->zd);
  if (r->gz) inflateEnd(r->gz);
  free(r->gz);
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

int nmt_reader_read_all(nmt_reader *r, size_t max, char **data, size_t *len) {
  char *d = *data;
  size_t n = *len, cap = n;
  int st = NMT_OK;
  while (n < max) {
    if (cap - n < READ_CHUNK / 8 && cap < max) { /* double, up to max; every step checked */
      size_t more = cap > READ_CHUNK / 4 ? cap : READ_CHUNK / 4;
      size_t want = max - cap < more ? max : cap + more;
      char *b = want < SIZE_MAX ? realloc(d, want + 1) : NULL;
      if (!b) { st = nmt_fail(NMT_EIO, "%s: out of memory", r->name); break; }
      d = b;
      cap = want;
    }
    long k = nmt_reader_read(r, d + n, cap - n);
    if (k < 0) { st = nmt_errcode(); break; }
    if (!k) break;
    n += (size_t)k;
  }
  if (d) d[n] = 0;
  *data = d;
  *len = n;
  return st;
}

int nmt_read_file(const char *path, char **data, size_t *len) {
  nmt_reader *r;
  int st = nmt_reader_open(&r, path);
  if (st) return st;
  char *d = NULL;
  size_t n = 0;
  st = nmt_reader_read_all(r, SIZE_MAX, &d, &n);
  nmt_reader_close(r);
  if (st) { free(d); return st; }
  *data = d;
  *len = n;
  return NMT_OK;
}
