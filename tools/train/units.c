/* Marian's units in nmt-train's schedules: "--valid-freq 5000u", "--after 10e",
 * "--disp-freq 10Mt". */
#include "base/err.h"
#include "train_tool.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int train_freq_parse(const char *flag, const char *s, train_freq *f) {
  char *end;
  errno = 0;
  long n = strtol(s, &end, 10), mul = 1;
  bool ok = end != s && s[0] >= '0' && s[0] <= '9' && !errno;
  const char *muls = "KMG"; /* Marian's thousands, millions, billions */
  const char *m = *end ? strchr(muls, *end) : NULL;
  if (ok && m) mul = m == muls ? 1000 : m == muls + 1 ? 1000000 : 1000000000, end++;
  char unit = *end ? *end++ : 'u';
  if (!ok || *end || !strchr("uet", unit) || n > LONG_MAX / mul)
    return nmt_fail(NMT_EUSAGE, "--%s takes N or N with a unit: u (updates, the default), e (epochs) or t "
                    "(target tokens), K/M/G before it for thousands/millions/billions (got '%s')", flag, s);
  *f = (train_freq){n * mul, unit};
  return NMT_OK;
}
