/* A line of the caller's as the model's source ids (include/nmt.h). */
#include "api/api.h"
#include "base/err.h"
#include "base/utf8.h"
#include <string.h>

int api_source_ids(nmt_translator *t, api_worker *w, const char *line, const char *what, int i, int **ids, int *n,
                   int *cap) {
  *n = 0;
  if (!line) return nmt_fail(NMT_EUSAGE, "%s %d is NULL", what, i);
  size_t len = strlen(line);
  if (memchr(line, '\n', len)) return nmt_fail(NMT_EINPUT, "%s %d holds a newline (one line each)", what, i);
  char name[32];
  snprintf(name, sizeof name, "<%s>", what);
  int st = nmt_utf8_check_line(line, len, name, i + 1);
  const char *toks = NULL;
  size_t ntoks = 0;
  if (!st) st = nmt_text_source(w->text, line, len, &toks, &ntoks);
  if (!st) st = nmt_vocab_encode(t->e.model[0].src, toks, ntoks, ids, n, cap);
  if (!st && *n > t->o.max_length) *n = t->o.max_length;
  return st;
}
