/* libFuzzer target: vocabularies. The same bytes as an nmt vocabulary (one
 * token a line, nmt-train --vocabs, model files), then encoded with itself
 * and written back; and as a subword-nmt vocabulary ("WORD COUNT" lines,
 * nmt-bpe apply --vocabulary), read through a memory file. */
#include "text/bpe.h"
#include "fuzz_util.h"
#include "text/vocab.h"
#include <stdlib.h>

static void token_vocab(const uint8_t *data, size_t size) {
  nmt_vocab *v;
  if (nmt_vocab_parse(&v, (const char *)data, size, "fuzz")) return;
  int *ids = NULL, n = 0, cap = 0;
  nmt_strbuf text = {0};
  nmt_vocab_encode(v, (const char *)data, size, &ids, &n, &cap);
  nmt_vocab_text(v, &text);
  for (int i = 0; i < n; i++) nmt_vocab_token(v, ids[i]);
  free(ids);
  free(text.s);
  nmt_vocab_free(v);
}

static void bpe_vocab(const uint8_t *data, size_t size) {
  static const char codes[] = "#version: 0.2\na b\nab c</w>\n";
  nmt_bpe_opts o = {.merges = -1, .vocab_path = fuzz_memfile(data, size), .vocab_threshold = 1};
  nmt_bpe *b;
  if (nmt_bpe_load_text(&b, codes, sizeof codes - 1, "codes", &o)) return;
  nmt_strbuf out = {0};
  nmt_bpe_apply_line(b, "abc ab a b c", 12, &out);
  free(out.s);
  nmt_bpe_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  token_vocab(data, size);
  bpe_vocab(data, size);
  return 0;
}
