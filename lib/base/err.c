/* The current error: one line per thread, set by nmt_fail, printed by tools. */
#include "base/err.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char err_msg[1024];
static _Thread_local int err_code;

/* Formatted into a local buffer first: callers often pass the previous message
 * (nmt_errmsg()) as an argument, and vsnprintf's source and target must not overlap. */
static int vfail(int code, int with_errno, const char *fmt, va_list ap) {
  int saved = errno;
  char msg[sizeof err_msg];
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  if (with_errno && n >= 0 && (size_t)n < sizeof msg)
    snprintf(msg + n, sizeof msg - n, ": %s", strerror(saved));
  memcpy(err_msg, msg, sizeof msg);
  err_code = code;
  return code;
}

int nmt_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(code, 0, fmt, ap);
  va_end(ap);
  return code;
}

int nmt_fail_errno(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(code, 1, fmt, ap);
  va_end(ap);
  return code;
}

const char *nmt_errmsg(void) { return err_msg; }
int nmt_errcode(void) { return err_code; }
