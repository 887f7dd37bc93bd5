/* The tools' fatal path and warnings. */
#include "tool.h"
#include "base/err.h"
#include "io/io.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void nmt_die(const char *prog, int status) {
  if (status == NMT_DONE) exit(0);
  nmt_writers_abort_all();
  const char *msg = nmt_errmsg();
  tool_sayf(prog, "%s", msg[0] ? msg : "failed");
  exit(status == NMT_OK ? NMT_EIO : status);
}

void nmt_warn(const char *prog, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tool_vsay(prog, "warning: ", fmt, ap);
  va_end(ap);
}
