/* The SentencePiece tests' tiny model; see text/spm_case.h. */
#include "text/spm_case.h"
#include "base/err.h"
#include <stdio.h>

const char *spm_case_sentence(int i) {
  static const char *const syl[] = {"ka", "to", "mi", "ré", "su", "na", "lo", "pe"};
  static char line[128];
  unsigned x = 2654435761u * (unsigned)(i + 1);
  int n = 0, words = 2 + (int)(x % 4);
  for (int w = 0; w < words; w++) {
    x = x * 1103515245u + 12345u;
    n += snprintf(line + n, sizeof line - (size_t)n, "%s%s%s", w ? " " : "", syl[(x >> 8) % 8], syl[(x >> 16) % 8]);
  }
  return line;
}

static int next(void *ctx, const char **line, size_t *n) {
  int *i = ctx;
  if (*i == SPM_CASE_LINES) return 0;
  *line = spm_case_sentence((*i)++);
  *n = strlen(*line);
  return 1;
}

int spm_case_train(char **bytes, size_t *len, long vocab_size, const char *model_type) {
  int i = 0;
  nmt_spm_train_opts o = {vocab_size, model_type, 1.0, 1, next, &i};
  return nmt_spm_train(&o, bytes, len);
}
