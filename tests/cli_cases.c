/* The CLI cases: tests/cli/NAME.cases (tests/cli/README.md). A case is one line
 * EXIT<TAB>STDERR_REGEX<TAB>COMMAND, run by sh from the repository root with the
 * tools on PATH, $TMP a fresh folder, $SHARED the shared folder and $FIX the
 * suite's fixtures; lines under it starting with a tab then "> " give its stdout
 * line by line, exactly, or "~ " a regex the whole stdout must match.
 * tests/cli/NAME.setup, when there is one, makes the fixtures once, before the
 * suite's first selected case. Exit 77 means skipped (stderr says why). */
#include "test.h"
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { SKIP_EXIT = 77 };

typedef struct {
  char *name;    /* NAME of tests/cli/NAME.cases */
  char *fix;     /* its fixtures folder */
  bool has_setup, ran;
  int status;    /* of the setup */
  char msg[512]; /* its stderr's first line */
} suite;

typedef struct {
  suite *s;
  char *name, *cmd, *want_stderr;
  int want_exit;
  char *want_stdout; /* exact lines, or NULL */
  char *stdout_re;   /* or a regex, or NULL */
} cli_case;

/* Single quotes in a command are escaped for the sh -c '...' wrapper. */
static char *quote_for_sq(const char *s) {
  size_t n = 0;
  for (const char *p = s; *p; p++) n += *p == '\'' ? 4 : 1;
  char *o = malloc(n + 1), *q = o;
  for (const char *p = s; *p; p++) {
    if (*p == '\'') {
      memcpy(q, "'\\''", 4);
      q += 4;
    } else *q++ = *p;
  }
  *q = 0;
  return o;
}

static char *first_line(char *e) {
  e[strcspn(e, "\n")] = 0;
  return e;
}

/* The suite's setup, once: NMT_OK, SKIP_EXIT or its failure. */
static int run_setup(suite *s) {
  if (!s->has_setup || s->ran) return s->status;
  s->ran = true;
  mkdir(s->fix, 0755);
  char err[1200];
  snprintf(err, sizeof err, "%s.stderr", s->fix);
  s->status = t_sh("cd \"$NMT_ROOT\" && FIX='%s' SHARED=\"${NMT_SHARED:-../shared}\" sh tests/cli/%s.setup >/dev/null 2>'%s' </dev/null",
                   s->fix, s->name, err);
  size_t n = 0;
  char *e = t_slurp(err, &n);
  if (e) {
    e = realloc(e, n + 1);
    e[n] = 0;
    snprintf(s->msg, sizeof s->msg, "%s", first_line(e));
    free(e);
  }
  return s->status;
}

static bool matches(const char *re, const char *text, const char *name, const char *what) {
  regex_t r;
  if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB)) {
    t_fail_at(name, 0, "bad regex '%s'", re);
    return false;
  }
  bool ok = !regexec(&r, text, 0, NULL, 0);
  regfree(&r);
  if (!ok) t_fail_at(name, 0, "%s does not match /%s/: %s", what, re, text);
  return ok;
}

/* Exact stdout: the first differing line, got against want, and the three lines got has
 * after it (what went wrong is often there: a CI log is all a flaky failure leaves). */
static void check_stdout(const cli_case *c, const char *got) {
  if (!strcmp(got, c->want_stdout)) return;
  long no = 1;
  size_t i = 0, n = strlen(got), lines = 0;
  while (got[i] && got[i] == c->want_stdout[i]) no += got[i++] == '\n';
  t_fail_at(c->name, 0, "stdout differs at line %ld", no);
  t_show_line("got ", got, n, no);
  t_show_line("want", c->want_stdout, strlen(c->want_stdout), no);
  for (size_t j = 0; j < n; j++) lines += got[j] == '\n' || (j + 1 == n);
  for (long k = no + 1; k <= no + 3 && k <= (long)lines; k++) t_show_line("then", got, n, k);
}

static char *read_text(const char *path) {
  size_t n = 0;
  char *d = t_slurp(path, &n);
  if (!d) return strdup("");
  d = realloc(d, n + 1);
  d[n] = 0;
  return d;
}

static void run_case(void *ctx) {
  cli_case *c = ctx;
  if (t_note_shared(c->cmd)) return;
  int setup = run_setup(c->s);
  if (setup == SKIP_EXIT) {
    t_skip("%s.setup: %s", c->s->name, c->s->msg);
    return;
  }
  if (setup) {
    t_fail_at(c->name, 0, "tests/cli/%s.setup failed (exit %d): %s", c->s->name, setup, c->s->msg);
    return;
  }
  const char *out = t_tmp("stdout"), *err = t_tmp("stderr");
  int st = t_sh("cd \"$NMT_ROOT\" && TMP='%s' FIX='%s' SHARED=\"${NMT_SHARED:-../shared}\" sh -c '%s' >'%s' 2>'%s' </dev/null",
                t_tmpdir(), c->s->fix, c->cmd, out, err);
  char *e = read_text(err), *o = read_text(out);
  if (st == SKIP_EXIT) t_skip("%s", first_line(e));
  else {
    if (st != c->want_exit) t_fail_at(c->name, 0, "exit %d, expected %d; stderr: %s", st, c->want_exit, e);
    matches(c->want_stderr, e, c->name, "stderr");
    if (c->want_stdout) check_stdout(c, o);
    if (c->stdout_re) matches(c->stdout_re, o, c->name, "stdout");
  }
  free(e), free(o);
}

/* Append s and a newline to *text. */
static void add_line(char **text, const char *s) {
  size_t n = *text ? strlen(*text) : 0, k = strlen(s);
  *text = realloc(*text, n + k + 2);
  memcpy(*text + n, s, k);
  (*text)[n + k] = '\n', (*text)[n + k + 1] = 0;
}

static void load_suite(const char *dir, const char *file, const char *tmp_root) {
  suite *s = calloc(1, sizeof *s);
  s->name = strndup(file, strlen(file) - 6);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.setup", dir, s->name);
  struct stat sb;
  s->has_setup = !stat(path, &sb);
  if (asprintf(&s->fix, "%s/fix-%s", tmp_root, s->name) < 0) abort();
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "r");
  char *line = NULL;
  size_t cap = 0;
  long no = 0;
  cli_case *last = NULL;
  while (f && getline(&line, &cap, f) > 0) {
    no++;
    line[strcspn(line, "\n")] = 0;
    if (!line[0] || line[0] == '#') continue;
    if (line[0] == '\t' && last && (!strncmp(line + 1, "> ", 2) || !strcmp(line + 1, ">"))) {
      add_line(&last->want_stdout, line[2] ? line + 3 : "");
      continue;
    }
    if (line[0] == '\t' && last && !strncmp(line + 1, "~ ", 2)) {
      last->stdout_re = strdup(line + 3);
      continue;
    }
    cli_case *c = last = calloc(1, sizeof *c);
    c->s = s;
    if (asprintf(&c->name, "cli/%s:%ld", s->name, no) < 0) abort();
    char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2) {
      c->want_exit = -1, c->cmd = strdup("false"), c->want_stderr = strdup("malformed case line");
    } else {
      *t1 = *t2 = 0;
      c->want_exit = atoi(line);
      c->want_stderr = strdup(t1 + 1);
      c->cmd = quote_for_sq(t2 + 1);
    }
    t_register_cli(c->name, run_case, c);
  }
  free(line);
  if (f) fclose(f);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int is_cases(const struct dirent *d) {
  size_t l = strlen(d->d_name);
  return l > 6 && !strcmp(d->d_name + l - 6, ".cases");
}

void t_load_cli_cases(const char *dir, const char *tmp_root) {
  struct dirent **names;
  int n = scandir(dir, &names, is_cases, by_name);
  for (int i = 0; i < n; i++) {
    load_suite(dir, names[i]->d_name, tmp_root);
    free(names[i]);
  }
  if (n > 0) free(names);
}
