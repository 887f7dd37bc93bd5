/* A model's SentencePiece models opened as segmenters; see models/model.h. */
#include "models/model.h"
#include "text/spm.h"
#include <stdio.h>

int nmt_model_open_spm(nmt_model *m, const char *path) {
  static const char *const side[2] = {"srcspm", "tgtspm"};
  for (int i = 0; i < 2; i++) {
    if (!m->spm[i] || m->seg[i]) continue;
    char name[512];
    snprintf(name, sizeof name, "%s: %s", path, side[i]);
    nmt_spm *s;
    int st = nmt_spm_load(&s, m->spm[i], m->spm_len[i], name);
    if (st) return st;
    m->seg[i] = nmt_spm_segmenter(s);
  }
  return NMT_OK;
}
