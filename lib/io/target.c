/* Resolving an output path and creating its temp file; see io/target.h. */
#include "io/target.h"
#include "base/err.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MAX_LINKS = 40 }; /* as the kernel's ELOOP limit */

/* "dir/base" split at the last '/': *dir is malloc'd ("." when there is none). */
static char *split(const char *path, const char **base) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  if (!slash) return strdup(".");
  return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* A path that does not exist: follow dangling links to the name they would create,
 * then the canonical folder plus that name. NULL with errno set when there is none. */
static char *resolve_new(const char *path, int links) {
  struct stat ls;
  const char *base;
  if (!lstat(path, &ls) && S_ISLNK(ls.st_mode)) {
    if (links >= MAX_LINKS) { errno = ELOOP; return NULL; }
    char link[PATH_MAX];
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n < 0) return NULL;
    link[n] = 0;
    char *dir = split(path, &base), *next = NULL;
    if (link[0] == '/') next = strdup(link);
    else if (asprintf(&next, "%s/%s", dir, link) < 0) next = NULL;
    free(dir);
    char *r = next ? resolve_new(next, links + 1) : NULL;
    free(next);
    return r;
  }
  char *dir = split(path, &base), *r = NULL;
  if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) { free(dir); errno = EISDIR; return NULL; }
  char *real = realpath(dir, NULL);
  if (real && asprintf(&r, "%s/%s", strcmp(real, "/") ? real : "", base) < 0) r = NULL;
  free(real);
  free(dir);
  return r;
}

int nmt_out_target_resolve(nmt_out_target *t, const char *path) {
  memset(t, 0, sizeof *t);
  struct stat st;
  if (!stat(path, &st)) {
    if (!S_ISREG(st.st_mode)) {
      t->direct = true;
      t->dev = st.st_dev;
      t->ino = st.st_ino;
      return NMT_OK;
    }
    t->target = realpath(path, NULL);
  } else if (errno == ENOENT) {
    t->target = resolve_new(path, 0);
  }
  return t->target ? NMT_OK : nmt_fail_errno(NMT_EIO, "%s: cannot create", path);
}

/* Random name characters: getrandom, or the clock and pid where it is missing. */
static void random_chars(char *out, int n) {
  static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char b[16];
  if (getrandom(b, (size_t)n, GRND_NONBLOCK) != n) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long x = (unsigned long)ts.tv_nsec * 2654435761u ^ (unsigned long)getpid() << 16;
    for (int i = 0; i < n; i++, x = x * 6364136223846793005u + 1442695040888963407u) b[i] = (unsigned char)(x >> 33);
  }
  for (int i = 0; i < n; i++) out[i] = set[b[i] % (sizeof set - 1)];
  out[n] = 0;
}

int nmt_out_temp_create(const nmt_out_target *t, char **tmp) {
  const char *base;
  char *dir = split(t->target, &base);
  for (int tries = 0; tries < 100; tries++) {
    char rnd[7];
    random_chars(rnd, 6);
    /* the name is cut so that the temp name stays within NAME_MAX */
    if (asprintf(tmp, "%s/.%.200s.%s", dir, base, rnd) < 0) break;
    int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) { free(dir); return fd; }
    int e = errno;
    free(*tmp);
    *tmp = NULL;
    errno = e;
    if (e != EEXIST) break;
  }
  free(dir);
  return -1;
}
