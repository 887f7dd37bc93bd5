/* The tools' stderr lines, and their copy in a log file (nmt-train --log FILE):
 * each line timestamped as Marian's logs are, "[2026-11-25 17:21:36] prog: line". */
#include "tool.h"
#include "base/err.h"
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static FILE *log_file;

int tool_log_open(const char *path) {
  log_file = fopen(path, "a");
  return log_file ? NMT_OK : nmt_fail_errno(NMT_EIO, "%s: cannot open", path);
}

/* The line, timestamped, into the log file (if any). */
static void to_log(const char *prog, const char *line) {
  if (!log_file) return;
  char when[32];
  time_t t = time(NULL);
  struct tm tm;
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
  /* a log that fails (a full disk) is no reason to stop the work: say so once, on stderr */
  if (fprintf(log_file, "[%s] %s: %s\n", when, prog, line) < 0 || fflush(log_file)) {
    fclose(log_file);
    log_file = NULL;
    fprintf(stderr, "%s: warning: the log file cannot be written; lines from now on go to stderr only\n", prog);
  }
}

void tool_vsay(const char *prog, const char *prefix, const char *fmt, va_list ap) {
  char line[2048];
  int n = snprintf(line, sizeof line, "%s", prefix);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  fprintf(stderr, "%s: %s\n", prog, line);
  to_log(prog, line);
}

void tool_sayf(const char *prog, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tool_vsay(prog, "", fmt, ap);
  va_end(ap);
}

void tool_log_line(const char *prog, const char *line) { to_log(prog, line); }
