/* nmt-serve's access log (access_log.h). A reopen holds the lock while it opens the new
 * file and swaps the descriptors: once the new file exists, every line goes there. */
#include "access_log.h"
#include "base/err.h"
#include "serve_tool.h"
#include "tool.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct serve_access_log {
  pthread_mutex_t mu;
  char *path; /* NULL: standard output */
  int fd;
  bool failed; /* a write failed, and was said */
};

static int open_log(const char *path, int *fd) {
  *fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  return *fd < 0 ? nmt_fail_errno(NMT_EIO, "--access-log %s", path) : NMT_OK;
}

int serve_access_log_open(serve_access_log **lp, const char *path) {
  serve_access_log *l = calloc(1, sizeof *l);
  if (!l) return nmt_fail(NMT_EIO, "out of memory");
  l->fd = STDOUT_FILENO;
  int st = strcmp(path, "-") ? (l->path = strdup(path)) ? open_log(path, &l->fd) : nmt_fail(NMT_EIO, "out of memory")
                             : NMT_OK;
  if (st) return free(l->path), free(l), *lp = NULL, st;
  pthread_mutex_init(&l->mu, NULL);
  *lp = l;
  return NMT_OK;
}

int serve_access_log_reopen(serve_access_log *l) {
  if (!l->path) return NMT_OK;
  pthread_mutex_lock(&l->mu);
  int fd, st = open_log(l->path, &fd);
  if (!st) close(l->fd), l->fd = fd, l->failed = false;
  pthread_mutex_unlock(&l->mu);
  return st;
}

/* s into out (room: n), each byte outside '!'..'~' as %XX, cut to fit. */
static void escaped(char *out, size_t n, const char *s) {
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)(s ? s : "-"); *p && k + 4 <= n; p++)
    k += *p > ' ' && *p < 0x7f ? (size_t)snprintf(out + k, n - k, "%c", *p) : (size_t)snprintf(out + k, n - k, "%%%02X", *p);
  out[k] = '\0';
}

void serve_access_log_write(serve_access_log *l, const serve_access *a) {
  struct timespec now;
  struct tm t;
  clock_gettime(CLOCK_REALTIME, &now);
  gmtime_r(&now.tv_sec, &t);
  char when[32], method[40], path[520], line[700];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &t);
  escaped(method, sizeof method, a->method), escaped(path, sizeof path, a->path);
  int n = snprintf(line, sizeof line, "%s.%03ldZ %s %s %s %u %d %.1f\n", when, now.tv_nsec / 1000000, a->client, method,
                   path, a->status, a->sentences, a->ms);
  if (n < 0 || n >= (int)sizeof line) return; /* cannot happen: the fields are bounded */
  pthread_mutex_lock(&l->mu);
  if (write(l->fd, line, (size_t)n) != n && !l->failed) {
    l->failed = true;
    nmt_warn(PROG, "--access-log %s: %s (said once until SIGHUP)", l->path ? l->path : "-", strerror(errno));
  }
  pthread_mutex_unlock(&l->mu);
}

void serve_access_log_close(serve_access_log *l) {
  if (!l) return;
  if (l->path) close(l->fd);
  pthread_mutex_destroy(&l->mu);
  free(l->path), free(l);
}
