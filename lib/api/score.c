/* nmt_translator_score: forced scores of pairs, as nmt-score prints them (include/nmt.h). */
#include "api/api.h"
#include "base/err.h"
#include "base/utf8.h"
#include "decode/score.h"
#include <stdlib.h>
#include <string.h>

/* The target ids of line (tokens; with raw, segmented as the model segments its target). */
static int target_ids(nmt_translator *t, api_worker *w, const char *line, int i, int **ids, int *n, int *cap) {
  *n = 0;
  if (!line) return nmt_fail(NMT_EUSAGE, "target %d is NULL", i);
  size_t len = strlen(line);
  if (memchr(line, '\n', len)) return nmt_fail(NMT_EINPUT, "target %d holds a newline (one line each)", i);
  int st = nmt_utf8_check_line(line, len, "<target>", i + 1);
  const char *toks = line;
  size_t ntoks = len;
  if (!st && t->o.raw) st = nmt_text_target_tokens(w->text, line, len, &toks, &ntoks);
  if (!st) st = nmt_vocab_encode(t->e.model[0].tgt, toks, ntoks, ids, n, cap);
  return st;
}

typedef struct {
  int *src[1], *tgt[1], sn, tn, scap, tcap;
} pair;

/* One pair at a time: a forced pass costs the same batched or not at this size. */
static int score_all(nmt_translator *t, api_worker *w, const char *const *src, const char *const *tgt, int n,
                     double *scores) {
  pair p = {0};
  int st = NMT_OK;
  for (int i = 0; i < n && !st; i++) {
    st = api_source_ids(t, w, src[i], "source", i, &p.src[0], &p.sn, &p.scap);
    if (!st) st = target_ids(t, w, tgt[i], i, &p.tgt[0], &p.tn, &p.tcap);
    if (!st && !p.sn) st = nmt_fail(NMT_EINPUT, "source %d is empty", i);
    const int *s[1] = {p.src[0]}, *g[1] = {p.tgt[0]};
    if (!st) st = nmt_score(&w->dec[0], &t->e.dec, s, &p.sn, g, &p.tn, 1, &scores[i], NULL);
  }
  free(p.src[0]), free(p.tgt[0]);
  return st;
}

nmt_status nmt_translator_score(nmt_translator *t, const char *const *src, const char *const *tgt, int n,
                                double *scores) {
  if (!t || n < 0 || (n && (!src || !tgt || !scores)))
    return api_status(nmt_fail(NMT_EUSAGE, "nmt_translator_score: NULL translator, lines or scores, or n < 0"));
  api_worker *w = NULL;
  int st = api_worker_take(t, &w);
  bool gpu = !st && t->on_gpu; /* the GPU's one stream: calls take turns */
  if (gpu) api_device_turn(true);
  if (!st) st = score_all(t, w, src, tgt, n, scores);
  if (gpu) api_device_turn(false);
  if (w) api_worker_give(t, w);
  return api_status(st);
}
