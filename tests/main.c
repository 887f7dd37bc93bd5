/* The test runner: registered TEST cases plus the CLI cases (tests/cli/NAME.cases).
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
  /* CLI cases only: */
  int want_exit;
  char *want_stderr;
  char *cmd;
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

/* A CLI case's "$SHARED/<folder>" paths, checked as t_shared does. */
static void note_missing_shared(const char *cmd) {
  for (const char *p = cmd; (p = strstr(p, "$SHARED/")); p += 8) {
    char top[256];
    snprintf(top, sizeof top, "%.*s", (int)strcspn(p + 8, "/ \t'\"|;&()<>$*?"), p + 8);
    t_shared(top);
  }
}

const char *t_tmp(const char *name) {
  static char buf[4][1024];
  static int k;
  if (!cur_tmp[0]) {
    snprintf(cur_tmp, sizeof cur_tmp, "%s/%d", tmp_root, ++tmp_serial);
    mkdir(cur_tmp, 0755);
  }
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

/* Line `no` (1-based) of buffer d, for failure messages. */
static void show_line(const char *label, const char *d, size_t n, long no) {
  const char *p = d, *e = d + n;
  for (long i = 1; i < no && p < e; i++) {
    const char *nl = memchr(p, '\n', (size_t)(e - p));
    p = nl ? nl + 1 : e;
  }
  const char *nl = memchr(p, '\n', (size_t)(e - p));
  int len = (int)((nl ? nl : e) - p);
  fprintf(stderr, "      %s: %.*s%s\n", label, len > 300 ? 300 : len, p, p < e ? "" : "<end of file>");
}

static char *slurp(const char *path, size_t *n) {
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
  char *g = slurp(got, &ng), *w = slurp(want, &nw);
  bool ok = g && w && ng == nw && !memcmp(g, w, ng);
  if (!g || !w) {
    t_fail_at(file, line, "cannot read %s", g ? want : got);
  } else if (!ok) {
    size_t i = 0;
    long lineno = 1;
    while (i < ng && i < nw && g[i] == w[i]) lineno += g[i++] == '\n';
    t_fail_at(file, line, "%s differs from %s at line %ld", got, want, lineno);
    show_line("got ", g, ng, lineno);
    show_line("want", w, nw, lineno);
  }
  free(g);
  free(w);
  return ok;
}

bool t_same_file(const char *got, const char *want) { return t_same_file_at(__FILE__, __LINE__, got, want); }

/* ---- CLI cases: EXIT<TAB>STDERR_REGEX<TAB>COMMAND ---- */

/* A case's command exits 77 (automake's "skipped") after saying why on stderr, e.g. where
 * it cannot run under the sanitizers ($NMT_SANITIZED is set then). */
enum { SKIP_EXIT = 77 };

static void run_cli_case(const t_case *c) {
  note_missing_shared(c->cmd);
  if (cur_missing[0]) return;
  const char *err = t_tmp("stderr");
  int st = t_sh("cd \"$NMT_ROOT\" && TMP='%s' SHARED=\"${NMT_SHARED:-../shared}\" sh -c '%s' >/dev/null 2>'%s' </dev/null",
                cur_tmp, c->cmd, err);
  size_t n = 0;
  char *e = slurp(err, &n);
  if (!e) e = strdup("");
  else { e = realloc(e, n + 1); e[n] = 0; }
  if (st == SKIP_EXIT) { /* the case asked to be skipped: its stderr says why */
    t_skip("%.*s", (int)strcspn(e, "\n"), e);
    free(e);
    return;
  }
  if (st != c->want_exit) t_fail_at(c->name, 0, "exit %d, expected %d; stderr: %s", st, c->want_exit, e);
  regex_t re;
  if (regcomp(&re, c->want_stderr, REG_EXTENDED | REG_NOSUB)) {
    t_fail_at(c->name, 0, "bad regex '%s'", c->want_stderr);
  } else {
    if (regexec(&re, e, 0, NULL, 0)) t_fail_at(c->name, 0, "stderr does not match /%s/: %s", c->want_stderr, e);
    regfree(&re);
  }
  free(e);
}

/* Single quotes in a case's command are escaped for the sh -c '...' wrapper. */
static char *quote_for_sq(const char *s) {
  size_t n = 0;
  for (const char *p = s; *p; p++) n += *p == '\'' ? 4 : 1;
  char *o = malloc(n + 1), *q = o;
  for (const char *p = s; *p; p++) {
    if (*p == '\'') { memcpy(q, "'\\''", 4); q += 4; }
    else *q++ = *p;
  }
  *q = 0;
  return o;
}

static void load_cli_cases(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *ent;
  char **names = NULL;
  int nn = 0;
  while ((ent = readdir(d))) {
    size_t l = strlen(ent->d_name);
    if (l > 6 && !strcmp(ent->d_name + l - 6, ".cases")) {
      names = realloc(names, sizeof *names * (size_t)(nn + 1));
      names[nn++] = strdup(ent->d_name);
    }
  }
  closedir(d);
  for (int i = 0; i < nn; i++) {
    for (int j = i + 1; j < nn; j++)
      if (strcmp(names[j], names[i]) < 0) { char *t = names[i]; names[i] = names[j]; names[j] = t; }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    long no = 0;
    while (f && getline(&line, &cap, f) > 0) {
      no++;
      line[strcspn(line, "\n")] = 0;
      if (!line[0] || line[0] == '#') continue;
      char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
      char name[1200];
      snprintf(name, sizeof name, "cli/%.*s:%ld", (int)(strlen(names[i]) - 6), names[i], no);
      t_case *c = add_case(name);
      if (!t2) { c->want_exit = -1; c->cmd = strdup("false"); c->want_stderr = strdup("malformed case line"); continue; }
      *t1 = *t2 = 0;
      c->want_exit = atoi(line);
      c->want_stderr = strdup(t1 + 1);
      c->cmd = quote_for_sq(t2 + 1);
    }
    free(line);
    if (f) fclose(f);
    free(names[i]);
  }
  free(names);
}

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
  snprintf(path, sizeof path, "%s:%s", bin && *bin ? bin : "bin", getenv("PATH") ? getenv("PATH") : "");
  setenv("PATH", path, 1);
  const char *tmpdir = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/nmt-tests.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(tmp_root)) { perror("mkdtemp"); return 3; }
  load_cli_cases("tests/cli");

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
    else run_cli_case(c);
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
