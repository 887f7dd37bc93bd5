/* --keep-best N: the list of the N best models by the first validation metric, and its
 * text in the checkpoint (see train/keep.h). The loop writes and removes the files. */
#include "train/keep.h"
#include "base/err.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nmt_kept_path(char *out, size_t n, const char *model, long step) {
  snprintf(out, n, "%s.best-%ld", model, step);
}

bool nmt_kept_insert(nmt_train_state *s, int keep, long step, double value, long *dropped) {
  *dropped = -1;
  int at = s->nkept;
  while (at > 0 && nmt_vmetric_better(s->metric, value, s->kept[at - 1].value)) at--; /* a tie keeps the earlier model */
  if (keep <= 0 || at >= keep) return false;
  if (s->nkept >= keep) *dropped = s->kept[--s->nkept].step; /* nmt_train trims a longer list first */
  memmove(&s->kept[at + 1], &s->kept[at], sizeof *s->kept * (size_t)(s->nkept - at));
  s->kept[at] = (nmt_kept){step, value};
  s->nkept++;
  return true;
}

int nmt_kept_text(const nmt_train_state *s, nmt_strbuf *out) {
  for (int i = 0; i < s->nkept; i++) {
    char line[64];
    int n = snprintf(line, sizeof line, "%ld %a\n", s->kept[i].step, s->kept[i].value);
    if (nmt_strbuf_add(out, line, (size_t)n)) return nmt_fail(NMT_EIO, "out of memory");
  }
  return NMT_OK;
}

int nmt_kept_parse(nmt_train_state *s, const char *text, size_t len, const char *path) {
  char *copy = strndup(text, len), *save = NULL;
  if (!copy) return nmt_fail(NMT_EIO, "out of memory");
  int st = NMT_OK, line_no = 0;
  s->nkept = 0;
  for (char *line = strtok_r(copy, "\n", &save); line && !st; line = strtok_r(NULL, "\n", &save)) {
    nmt_kept k;
    char end;
    line_no++;
    /* best first, as written: a list out of order would drop the wrong file */
    if (s->nkept == NMT_MAX_KEEP || sscanf(line, "%ld %la %c", &k.step, &k.value, &end) != 2 || k.step < 0 ||
        !isfinite(k.value) || (s->nkept && nmt_vmetric_better(s->metric, k.value, s->kept[s->nkept - 1].value)))
      st = nmt_fail(NMT_EINPUT, "%s: kept models, line %d: bad entry '%s'", path, line_no, line);
    else s->kept[s->nkept++] = k;
  }
  free(copy);
  return st;
}
