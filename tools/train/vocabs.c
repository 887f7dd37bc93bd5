/* nmt-train --vocabs: each file a vocabulary (one token a line) or a
 * SentencePiece model (spm_train's or nmt-spm train's PREFIX.model), whose
 * pieces become the vocabulary and whose bytes go into the model. */
#include "train_tool.h"
#include "base/err.h"
#include "io/io.h"
#include "text/spm.h"
#include <stdlib.h>

/* A serialized model starts with its first piece, protobuf field 1 with a
 * length (the byte 0x0a); a vocabulary starts with "<pad>". */
static bool is_spm(const char *data, size_t len) { return len && data[0] == 0x0a; }

int train_vocab_load(nmt_vocab **v, char **spm, size_t *spm_len, const char *path) {
  char *data;
  size_t len;
  int st = nmt_read_file(path, &data, &len);
  if (st) return st;
  if (!is_spm(data, len)) {
    st = nmt_vocab_from_text(v, data, len, path);
    free(data);
    return st;
  }
  nmt_spm *s = NULL;
  st = nmt_spm_load(&s, data, len, path);
  if (!st) st = nmt_spm_vocab(v, s, path);
  nmt_spm_free(s);
  if (st) free(data);
  else *spm = data, *spm_len = len;
  return st;
}
