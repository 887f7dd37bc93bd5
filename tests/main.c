/* The test runner: registered TEST cases plus the CLI cases (tests/cli_cases.c).
 * Usage: nmt-tests [NAME-FILTER]. Last line: "N passed, N failed", after
 * "N skipped" when some cases skipped themselves (T_SKIP). */
#include "test.h"
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  char *name;
  t_fn fn;
  void (*run)(void *ctx); /* a CLI case (tests/cli_cases.c), with its data */
  void *ctx;
} t_case;

static t_case *cases;
static int ncases, cap_cases;
static int cur_failures;
static char cur_skip[256]; /* the reason, when the case skipped itself */
static char cur_missing[1024]; /* a ../shared path the case needs and this machine lacks */
static char tmp_root[256];
static char cur_tmp[300];
static int tmp_serial;

static t_case *add_case(const char *name) {
  if (ncases == cap_cases) {
    cap_cases = cap_cases ? cap_cases * 2 : 256;
    cases = realloc(cases, sizeof *cases * (size_t)cap_cases);
  }
  t_case *c = &cases[ncases++];
  memset(c, 0, sizeof *c);
  c->name = strdup(name);
  return c;
}

void t_register(const char *name, t_fn fn) { add_case(name)->fn = fn; }

void t_register_cli(const char *name, void (*run)(void *ctx), void *ctx) {
  t_case *c = add_case(name);
  c->run = run, c->ctx = ctx;
}

void t_fail_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "    %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  cur_failures++;
}

void t_skip(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cur_skip, sizeof cur_skip, fmt, ap);
  va_end(ap);
  if (!cur_skip[0]) snprintf(cur_skip, sizeof cur_skip, "no reason given");
}

const char *t_shared(const char *rel) {
  static _Thread_local char buf[4][1024];
  static _Thread_local int k;
  const char *root = getenv("NMT_SHARED");
  char *b = buf[k++ & 3];
  snprintf(b, sizeof buf[0], "%s/%s", root && *root ? root : "../shared", rel);
  /* Only the shared folder's top level (refs/, data/) is checked: a checkout alone skips
   * the reference tests, while a missing file inside a present folder still fails. */
  char top[1024];
  snprintf(top, sizeof top, "%s/%.*s", root && *root ? root : "../shared", (int)strcspn(rel, "/"), rel);
  if (!cur_missing[0] && access(top, F_OK)) snprintf(cur_missing, sizeof cur_missing, "%s", top);
  return b;
}

bool t_note_shared(const char *cmd) {
  for (const char *p = cmd; (p = strstr(p, "$SHARED/")); p += 8) {
    char top[256];
    snprintf(top, sizeof top, "%.*s", (int)strcspn(p + 8, "/ \t'\"|;&()<>$*?"), p + 8);
    t_shared(top);
  }
  return cur_missing[0] != 0;
}

const char *t_tmpdir(void) {
  if (!cur_tmp[0]) {
    snprintf(cur_tmp, sizeof cur_tmp, "%s/%d", tmp_root, ++tmp_serial);
    mkdir(cur_tmp, 0755);
  }
  return cur_tmp;
}

const char *t_tmp(const char *name) {
  static char buf[4][1024];
  static int k;
  t_tmpdir();
  char *b = buf[k++ & 3];
  snprintf(b, sizeof buf[0], "%s/%s", cur_tmp, name);
  return b;
}

int t_sh(const char *fmt, ...) {
  char *cmd;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&cmd, fmt, ap) < 0) abort();
  va_end(ap);
  int st = system(cmd);
  free(cmd);
  if (st == -1) return -1;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 128 + WTERMSIG(st);
}

void t_show_line(const char *label, const char *d, size_t n, long no) {
  const char *p = d, *e = d + n;
  for (long i = 1; i < no && p < e; i++) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    p = nl ? nl + 1 : e;
  }
  const char *nl = memchr(p, '\n', (size_t)(e - p));
  int len = (int)((nl ? nl : e) - p);
  fprintf(stderr, "      %s: %.*s%s\n", label, len > 300 ? 300 : len, p, p < e ? "" : "<end of file>");
}

char *t_slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *d = malloc(cap);
  size_t k;
  while ((k = fread(d + len, 1, cap - len, f)) > 0) {
    len += k;
    if (len == cap) d = realloc(d, cap *= 2);
  }
  fclose(f);
  *n = len;
  return d;
}

bool t_same_file_at(const char *file, int line, const char *got, const char *want) {
  size_t ng, nw;
  char *g = t_slurp(got, &ng), *w = t_slurp(want, &nw);
  bool ok = g && w && ng == nw && !memcmp(g, w, ng);
  if (!g || !w) {
    t_fail_at(file, line, "cannot read %s", g ? want : got);
  } else if (!ok) {
    size_t i = 0;
    long lineno = 1;
    while (i < ng && i < nw && g[i] == w[i]) lineno += g[i++] == '\n';
    t_fail_at(file, line, "%s differs from %s at line %ld", got, want, lineno);
    t_show_line("got ", g, ng, lineno);
    t_show_line("want", w, nw, lineno);
  }
  free(g);
  free(w);
  return ok;
}

bool t_same_file(const char *got, const char *want) { return t_same_file_at(__FILE__, __LINE__, got, want); }

static void rm_rf(const char *path) {
  char *cmd;
  if (asprintf(&cmd, "rm -rf '%s'", path) >= 0) { if (system(cmd)) {} free(cmd); }
}

int main(int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  char root[4096];
  if (!getcwd(root, sizeof root)) return 3;
  setenv("NMT_ROOT", root, 0);
  const char *bin = getenv("NMT_BIN");
  char path[8192];
  bin = bin && *bin ? bin : "bin"; /* absolute: a suite's setup runs in its fixtures folder */
  snprintf(path, sizeof path, "%s%s%s:%s", *bin == '/' ? "" : root, *bin == '/' ? "" : "/", bin,
           getenv("PATH") ? getenv("PATH") : "");
  setenv("PATH", path, 1);
  const char *tmpdir = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/nmt-tests.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(tmp_root)) { perror("mkdtemp"); return 3; }
  t_load_cli_cases("tests/cli", tmp_root);

  int passed = 0, failed = 0, skipped = 0;
  for (int i = 0; i < ncases; i++) {
    t_case *c = &cases[i];
    if (filter && !strstr(c->name, filter)) continue;
    cur_failures = 0;
    cur_skip[0] = 0;
    cur_missing[0] = 0;
    cur_tmp[0] = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (c->fn) c->fn();
    else c->run(c->ctx);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    /* Without ../shared (a checkout alone) the reference tests skip, naming what is missing. */
    if (cur_missing[0]) {
      cur_failures = 0;
      snprintf(cur_skip, sizeof cur_skip, "needs %.200s (missing; NMT_SHARED names the shared folder)", cur_missing);
    }
    if (cur_failures) failed++;
    else if (cur_skip[0]) skipped++;
    else passed++;
    if (!cur_failures && cur_skip[0]) fprintf(stderr, "skip %s: %s\n", c->name, cur_skip);
    else fprintf(stderr, "%s %s (%.2fs)\n", cur_failures ? "FAIL" : "ok  ", c->name, s);
  }
  rm_rf(tmp_root);
  fflush(stderr);
  if (skipped) printf("%d skipped\n", skipped);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
