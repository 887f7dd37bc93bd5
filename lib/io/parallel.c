/* Parallel files; see io/parallel.h. */
#include "io/parallel.h"
#include "base/err.h"
#include "base/utf8.h"
#include <stdio.h>

int nmt_parallel_line(nmt_reader *r, long lineno, const char *what, char **line, size_t *len) {
  int k = 1;
  const char *name = nmt_reader_name(r);
  *line = NULL, *len = 0;
  while (nmt_reader_lineno(r) < lineno && (k = nmt_reader_next(r, line, len)) == 1) {}
  if (k < 0) return nmt_errcode();
  if (k == 0 || !*line) /* ended, or lineno was read already: no line of that number left */
    return nmt_fail(NMT_EINPUT, "%s: no line %ld, the input has one: %s has one line per input line "
                    "(an empty line: none)", name, lineno, what);
  return nmt_utf8_check_line(*line, *len, name, lineno) ? NMT_EINPUT : NMT_OK;
}

int nmt_parallel_at(int st, const nmt_reader *r, long lineno) {
  if (st != NMT_EINPUT) return st;
  char why[400]; /* the message is rewritten in place: copy it first */
  snprintf(why, sizeof why, "%s", nmt_errmsg());
  return nmt_fail(st, "%s:%ld: %s", nmt_reader_name(r), lineno, why);
}

int nmt_parallel_end(nmt_reader *r, const nmt_reader *in, const char *what) {
  char *line;
  size_t len;
  int k = nmt_reader_next(r, &line, &len);
  if (k < 0) return nmt_errcode();
  return k ? nmt_fail(NMT_EINPUT, "%s has more lines than %s (%ld): %s has one line per input line",
                      nmt_reader_name(r), nmt_reader_name(in), nmt_reader_lineno(in), what)
           : NMT_OK;
}
