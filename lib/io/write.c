/* Writers: stdout, a file written to a temp name and renamed on commit, or a pipe or
 * device written in place; optionally zstd. */
#include "io/io.h"
#include "base/err.h"
#include "io/std.h"
#include "io/target.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

enum { WRITE_BUF = 1 << 18 };

struct nmt_writer {
  int fd;
  char *name;     /* the path given, or "<stdout>" */
  char *tmp;      /* temp path, NULL for stdout and direct outputs */
  nmt_out_target out;
  int slot;       /* index in the open-writer table, -1 for stdout */
  char *buf;
  size_t n;
  ZSTD_CCtx *zc;
  char *zout;
  size_t zcap;
  int failed;
  bool sync;      /* NMT_W_SYNC */
};

/* Writers open on a path, so that the same output named twice is caught and a
 * fatal error or a signal can remove the temp files. The signal path reads only
 * tmp_path and tmp_live, which are set as soon as a temp exists and cleared once it
 * is renamed or removed (a signal in between unlinks a name that is gone): no lock,
 * no malloc'd memory. */
enum { MAX_OPEN_WRITERS = 64 };
static nmt_writer *open_writers[MAX_OPEN_WRITERS];
static char tmp_path[MAX_OPEN_WRITERS][PATH_MAX];
static volatile sig_atomic_t tmp_live[MAX_OPEN_WRITERS];
static pthread_mutex_t writers_lock = PTHREAD_MUTEX_INITIALIZER;

void nmt_writers_abort_all(void) {
  for (int i = 0; i < MAX_OPEN_WRITERS; i++)
    if (tmp_live[i]) {
      tmp_live[i] = 0;
      unlink(tmp_path[i]);
    }
}

static bool same_output(const nmt_out_target *a, const nmt_out_target *b) {
  if (a->direct != b->direct) return false;
  return a->direct ? a->dev == b->dev && a->ino == b->ino : !strcmp(a->target, b->target);
}

/* Take a slot for w, unless another open writer has the same output. */
static int register_writer(nmt_writer *w) {
  int st = NMT_OK, slot = -1;
  pthread_mutex_lock(&writers_lock);
  for (int i = 0; i < MAX_OPEN_WRITERS && !st; i++) {
    if (!open_writers[i]) { if (slot < 0) slot = i; }
    else if (same_output(&open_writers[i]->out, &w->out)) {
      const char *other = open_writers[i]->name;
      st = strcmp(other, w->name)
               ? nmt_fail(NMT_EUSAGE, "%s: named twice as an output (also as %s)", w->name, other)
               : nmt_fail(NMT_EUSAGE, "%s: named twice as an output", w->name);
    }
  }
  if (!st && slot < 0) st = nmt_fail(NMT_EIO, "%s: more than %d outputs open", w->name, MAX_OPEN_WRITERS);
  if (!st) open_writers[slot] = w, w->slot = slot;
  pthread_mutex_unlock(&writers_lock);
  return st;
}

static void unregister_writer(nmt_writer *w) {
  if (w->slot < 0) return;
  pthread_mutex_lock(&writers_lock);
  tmp_live[w->slot] = 0;
  open_writers[w->slot] = NULL;
  pthread_mutex_unlock(&writers_lock);
}

/* Open w's path: directly, or a fresh temp file whose name the slot records. */
static int open_path(nmt_writer *w) {
  const char *path = w->name;
  int st = nmt_out_target_resolve(&w->out, path);
  if (st || (st = register_writer(w))) return st;
  if (w->out.direct) {
    /* no O_TRUNC: a device is written as it is, a FIFO has nothing to cut */
    w->fd = open(path, O_WRONLY | O_CLOEXEC);
    return w->fd < 0 ? nmt_fail_errno(NMT_EIO, "%s: cannot open for writing", path) : NMT_OK;
  }
  w->fd = nmt_out_temp_create(&w->out, &w->tmp);
  if (w->fd < 0) return nmt_fail_errno(NMT_EIO, "%s: cannot create a temp file beside it", path);
  /* shorter than PATH_MAX, or open() would have refused it */
  strcpy(tmp_path[w->slot], w->tmp);
  tmp_live[w->slot] = 1;
  return NMT_OK;
}

static void writer_free(nmt_writer *w) {
  unregister_writer(w);
  ZSTD_freeCCtx(w->zc);
  free(w->zout);
  free(w->buf);
  free(w->tmp);
  free(w->out.target);
  free(w->name);
  free(w);
}

int nmt_writer_open(nmt_writer **out, const char *path, int flags) {
  *out = NULL; /* so a caller may abort it on every path */
  nmt_writer *w = calloc(1, sizeof *w);
  if (!w) return nmt_fail(NMT_EIO, "out of memory");
  w->fd = -1;
  w->slot = -1;
  w->sync = flags & NMT_W_SYNC;
  int st = NMT_OK;
  bool std = !path || !strcmp(path, "-");
  w->name = strdup(std ? "<stdout>" : path);
  if (std && nmt_io_std_closed(1)) st = nmt_fail(NMT_EIO, "<stdout>: cannot write: stdout is closed");
  else if (std) w->fd = 1;
  else st = open_path(w);
  if (!st && !(w->buf = malloc(WRITE_BUF))) st = nmt_fail(NMT_EIO, "out of memory");
  if (!st && (flags & NMT_W_ZSTD)) {
    w->zc = ZSTD_createCCtx();
    w->zcap = ZSTD_CStreamOutSize();
    w->zout = malloc(w->zcap);
    if (!w->zc || !w->zout) st = nmt_fail(NMT_EIO, "out of memory");
    else ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, 3);
  }
  if (st) {
    nmt_writer_abort(w);
    return st;
  }
  *out = w;
  return NMT_OK;
}

static int write_fd(nmt_writer *w, const char *p, size_t n) {
  while (n) {
    ssize_t k = write(w->fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      w->failed = 1;
      return nmt_fail_errno(NMT_EIO, "%s: write error", w->name);
    }
    p += k;
    n -= (size_t)k;
  }
  return NMT_OK;
}

/* Push buffered bytes to the fd, through zstd if on: ZSTD_e_continue may keep some in
 * zstd's window, ZSTD_e_flush writes all out (a block the reader can decode now),
 * ZSTD_e_end closes the frame. */
static int drain(nmt_writer *w, ZSTD_EndDirective how) {
  if (w->failed) return NMT_EIO;
  if (!w->zc) {
    int st = write_fd(w, w->buf, w->n);
    w->n = 0;
    return st;
  }
  ZSTD_inBuffer in = {w->buf, w->n, 0};
  for (;;) {
    ZSTD_outBuffer ob = {w->zout, w->zcap, 0};
    size_t left = ZSTD_compressStream2(w->zc, &ob, &in, how);
    if (ZSTD_isError(left)) return nmt_fail(NMT_EIO, "%s: zstd: %s", w->name, ZSTD_getErrorName(left));
    if (write_fd(w, w->zout, ob.pos)) return NMT_EIO;
    if (how == ZSTD_e_continue ? in.pos == in.size : left == 0) break;
  }
  w->n = 0;
  return NMT_OK;
}

int nmt_writer_flush(nmt_writer *w) { return drain(w, ZSTD_e_flush); }

int nmt_writer_write(nmt_writer *w, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    size_t k = WRITE_BUF - w->n < n ? WRITE_BUF - w->n : n;
    memcpy(w->buf + w->n, p, k);
    w->n += k; p += k; n -= k;
    if (w->n == WRITE_BUF && drain(w, ZSTD_e_continue)) return NMT_EIO;
  }
  return w->failed ? NMT_EIO : NMT_OK;
}

int nmt_writer_puts(nmt_writer *w, const char *s) { return nmt_writer_write(w, s, strlen(s)); }

int nmt_writer_line(nmt_writer *w, const char *s, size_t n) {
  if (nmt_writer_write(w, s, n)) return NMT_EIO;
  return nmt_writer_write(w, "\n", 1);
}

int nmt_writer_printf(nmt_writer *w, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return nmt_fail(NMT_EIO, "%s: format error", w->name);
  if ((size_t)n < sizeof small) return nmt_writer_write(w, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  int st = nmt_writer_write(w, big, (size_t)n);
  free(big);
  return st;
}

const char *nmt_writer_name(const nmt_writer *w) { return w->name; }

/* Write out the end and close: the first half of a commit. A temp file to be synced
 * is on disk before it replaces anything (EINVAL: a file system without fsync). */
static int finish(nmt_writer *w) {
  int st = drain(w, ZSTD_e_end);
  if (!st && w->sync && w->tmp && fsync(w->fd) && errno != EINVAL)
    st = nmt_fail_errno(NMT_EIO, "%s: cannot sync", w->name);
  if (w->fd > 1) {
    if (close(w->fd) && !st) st = nmt_fail_errno(NMT_EIO, "%s: close", w->name);
    w->fd = -1;
  }
  return st;
}

/* fsync the folder of a renamed target, so that the rename is on disk too. */
static int sync_folder(const nmt_writer *w) {
  const char *slash = strrchr(w->out.target, '/'); /* the target is a canonical path */
  char *dir = strndup(w->out.target, slash == w->out.target ? 1 : (size_t)(slash - w->out.target));
  int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  int st = fd < 0 || (fsync(fd) && errno != EINVAL) ? nmt_fail_errno(NMT_EIO, "%s: cannot sync its folder", w->name)
                                                    : NMT_OK;
  if (fd >= 0) close(fd);
  free(dir);
  return st;
}

int nmt_writers_commit(nmt_writer **ws, int n) {
  int st = NMT_OK;
  for (int i = 0; i < n; i++)
    if (ws[i]) {
      if (!st) st = finish(ws[i]);
      else if (ws[i]->fd > 1) close(ws[i]->fd), ws[i]->fd = -1;
    }
  for (int i = 0; i < n; i++) {
    nmt_writer *w = ws[i];
    if (!w || !w->tmp) continue;
    bool moved = !st && !rename(w->tmp, w->out.target);
    if (!st && !moved) st = nmt_fail_errno(NMT_EIO, "%s: cannot rename into place", w->name);
    if (!moved) unlink(w->tmp);
    tmp_live[w->slot] = 0;
    if (moved && w->sync) st = sync_folder(w);
  }
  for (int i = 0; i < n; i++)
    if (ws[i]) writer_free(ws[i]);
  return st;
}

int nmt_writer_commit(nmt_writer *w) { return nmt_writers_commit(&w, 1); }

void nmt_writer_abort(nmt_writer *w) {
  if (!w) return;
  if (w->fd > 1) close(w->fd);
  if (w->tmp) {
    unlink(w->tmp);
    tmp_live[w->slot] = 0;
  }
  writer_free(w);
}
