/* The hypotheses a translation call hands out (include/nmt.h). */
#include "api/result.h"
#include <stdlib.h>

int nmt_result_size(const nmt_result *r) { return r ? r->n : 0; }

int nmt_result_hypotheses(const nmt_result *r, int i) { return r && i >= 0 && i < r->n ? r->sent[i].k : 0; }

const char *nmt_result_text(const nmt_result *r, int i, int k) {
  if (!r || i < 0 || i >= r->n) return NULL;
  if (!r->sent[i].k && !k) return ""; /* an empty line's translation */
  return k >= 0 && k < r->sent[i].k ? r->sent[i].text[k] : NULL;
}

double nmt_result_score(const nmt_result *r, int i, int k) {
  return r && i >= 0 && i < r->n && k >= 0 && k < r->sent[i].k ? r->sent[i].score[k] : 0.0;
}

const char *nmt_result_alignment(const nmt_result *r, int i, int k) {
  if (!r || i < 0 || i >= r->n) return NULL;
  if (!r->sent[i].k && !k) return "";
  return k < 0 || k >= r->sent[i].k ? NULL : r->sent[i].align ? r->sent[i].align[k] : "";
}

void nmt_result_free(nmt_result *r) {
  if (!r) return;
  for (int i = 0; i < r->n; i++) {
    api_sent *s = &r->sent[i];
    for (int k = 0; k < s->k; k++) free(s->text[k]), free(s->align ? s->align[k] : NULL);
    free(s->text), free(s->score), free(s->align);
  }
  free(r->sent);
  free(r);
}
