/* A tiny test runner: TEST(name) registers a case; the runner (tests/main.c)
 * runs them all, or those whose name contains argv[1], and ends with
 * "N passed, N failed" (after "N skipped" when cases were skipped). Names start with their area: "tok/...", "bpe/...". */
#ifndef NMT_TESTS_TEST_H
#define NMT_TESTS_TEST_H
#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <string.h>

typedef void (*t_fn)(void);
void t_register(const char *name, t_fn fn);

#define TEST(name)                                                   \
  static void name(void);                                           \
  __attribute__((constructor)) static void name##_reg(void) {       \
    t_register(#name, name);                                        \
  }                                                                 \
  static void name(void)

/* Record a failure with file:line and a message; the case goes on. */
void t_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define T_FAIL(...) t_fail_at(__FILE__, __LINE__, __VA_ARGS__)
/* End the case as skipped, saying why (no GPU): counted apart, never as passed. */
void t_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define T_SKIP(...) do { t_skip(__VA_ARGS__); return; } while (0)
#define CHECK(c) do { if (!(c)) T_FAIL("CHECK(%s)", #c); } while (0)
#define CHECK_INT(a, b) do { long long a_ = (a), b_ = (b); \
  if (a_ != b_) T_FAIL("%s == %lld, expected %lld", #a, a_, b_); } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
  if (!a_ || strcmp(a_, b_)) T_FAIL("%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_); } while (0)
#define CHECK_NEAR(a, b, tol) do { double a_ = (a), b_ = (b); \
  if (!(fabs(a_ - b_) <= (tol))) T_FAIL("%s == %.10g, expected %.10g", #a, a_, b_); } while (0)

/* Where ../shared is: $NMT_SHARED or "../shared". Returns a static path
 * "<shared>/<rel>". */
const char *t_shared(const char *rel);
/* A fresh temp directory for this case (removed at exit); returns "<dir>/<name>". */
const char *t_tmp(const char *name);
/* Run `sh -c cmd` (printf-style) from the repo root with bin/ first in PATH.
 * Returns the exit status (or 128+signal). */
int t_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Compare two files byte for byte; on difference record a failure naming the
 * first differing line of each. Returns true when equal. */
bool t_same_file(const char *got, const char *want);
#define CHECK_SAME_FILE(got, want) t_same_file_at(__FILE__, __LINE__, got, want)
bool t_same_file_at(const char *file, int line, const char *got, const char *want);

/* For the CLI cases (tests/cli_cases.c): register a case run by run(ctx); load
 * tests/cli's suites (fixtures under tmp_root); note the $SHARED/<folder> a
 * command names (true when one is missing: the case skips); a file's bytes (malloc'ed, NULL
 * when unreadable); print line `no` (1-based) of d with a label. */
void t_register_cli(const char *name, void (*run)(void *ctx), void *ctx);
void t_load_cli_cases(const char *dir, const char *tmp_root);
bool t_note_shared(const char *cmd);
/* The case's temp directory (t_tmp's). */
const char *t_tmpdir(void);
char *t_slurp(const char *path, size_t *n);
void t_show_line(const char *label, const char *d, size_t n, long no);

#endif
