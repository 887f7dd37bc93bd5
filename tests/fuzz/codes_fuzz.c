/* libFuzzer target: BPE codes (nmt-bpe apply -c, and the codes a model
 * embeds), then applied to the input's own lines, whose units the codes name,
 * with and without BPE-dropout. */
#include "text/bpe.h"
#include "base/utf8.h"
#include <stdlib.h>
#include <string.h>

enum { MAX_LINES = 64 };

static void apply_lines(nmt_bpe *b, const char *text, size_t len) {
  nmt_strbuf out = {0};
  const char *p = text, *end = text + len;
  for (int k = 0; p < end && k < MAX_LINES; k++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    if (nmt_utf8_invalid(p, n) == n) nmt_bpe_apply_line(b, p, n, &out);
    out.len = 0;
    p = nl ? nl + 1 : end;
  }
  free(out.s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  nmt_bpe *b;
  if (nmt_bpe_load_text(&b, text, size, "fuzz", NULL)) return 0;
  apply_lines(b, text, size);
  nmt_bpe_set_dropout(b, 0.5, 1);
  apply_lines(b, text, size);
  nmt_bpe_free(b);
  return 0;
}
