/* Writers: stdout or a file written to a temp name and renamed on commit, optionally zstd. */
#include "io.h"
#include "err.h"
#include <errno.h>
#include <fcntl.h>
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
  char *name;     /* final name, or "<stdout>" */
  char *tmp;      /* temp path for files, NULL for stdout */
  char *buf;
  size_t n;
  ZSTD_CCtx *zc;
  char *zout;
  size_t zcap;
  int failed;
};

/* Temp files still open, so a fatal error or a signal can remove them. */
enum { MAX_OPEN_WRITERS = 64 };
static char *open_tmps[MAX_OPEN_WRITERS];
static pthread_mutex_t tmps_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_signal(int sig) {
  for (int i = 0; i < MAX_OPEN_WRITERS; i++)
    if (open_tmps[i]) unlink(open_tmps[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void track_tmp(char *tmp, int add) {
  static int handlers;
  pthread_mutex_lock(&tmps_lock);
  if (add && !handlers) {
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) signal(sigs[i], on_signal);
    handlers = 1;
  }
  for (int i = 0; i < MAX_OPEN_WRITERS; i++) {
    if (add && !open_tmps[i]) { open_tmps[i] = tmp; break; }
    if (!add && open_tmps[i] == tmp) { open_tmps[i] = NULL; break; }
  }
  pthread_mutex_unlock(&tmps_lock);
}

void nmt_writers_abort_all(void) {
  pthread_mutex_lock(&tmps_lock);
  for (int i = 0; i < MAX_OPEN_WRITERS; i++)
    if (open_tmps[i]) { unlink(open_tmps[i]); open_tmps[i] = NULL; }
  pthread_mutex_unlock(&tmps_lock);
}

int nmt_writer_open(nmt_writer **out, const char *path, int flags) {
  nmt_writer *w = calloc(1, sizeof *w);
  if (!w) return nmt_fail(NMT_EIO, "out of memory");
  if (!path || !strcmp(path, "-")) {
    w->fd = 1;
    w->name = strdup("<stdout>");
  } else {
    w->name = strdup(path);
    if (asprintf(&w->tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) w->tmp = NULL;
    w->fd = w->tmp ? open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    if (w->fd < 0) {
      nmt_fail_errno(NMT_EIO, "%s: cannot create", path);
      free(w->tmp); free(w->name); free(w);
      return NMT_EIO;
    }
    track_tmp(w->tmp, 1);
  }
  w->buf = malloc(WRITE_BUF);
  if (flags & NMT_W_ZSTD) {
    w->zc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, 3);
    w->zcap = ZSTD_CStreamOutSize();
    w->zout = malloc(w->zcap);
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

static void writer_free(nmt_writer *w) {
  ZSTD_freeCCtx(w->zc);
  free(w->zout);
  free(w->buf);
  free(w->tmp);
  free(w->name);
  free(w);
}

int nmt_writer_commit(nmt_writer *w) {
  int st = drain(w, ZSTD_e_end);
  if (w->tmp) {
    if (!st && close(w->fd)) st = nmt_fail_errno(NMT_EIO, "%s: close", w->name);
    else if (st) close(w->fd);
    if (!st && rename(w->tmp, w->name)) st = nmt_fail_errno(NMT_EIO, "%s: cannot rename into place", w->name);
    if (st) unlink(w->tmp);
    track_tmp(w->tmp, 0);
  }
  writer_free(w);
  return st;
}

void nmt_writer_abort(nmt_writer *w) {
  if (!w) return;
  if (w->tmp) {
    close(w->fd);
    unlink(w->tmp);
    track_tmp(w->tmp, 0);
  }
  writer_free(w);
}
