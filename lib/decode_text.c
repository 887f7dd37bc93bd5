/* Ids to text, BPE joining; see decode_text.h. */
#include "decode_text.h"
#include "err.h"
#include <string.h>

int nmt_bpe_join(const char *s, size_t n, nmt_strbuf *out) {
  for (size_t i = 0; i < n; i++) {
    bool mark = s[i] == '@' && i + 1 < n && s[i + 1] == '@' && (i + 2 == n || s[i + 2] == ' ');
    if (mark) {
      i += 2; /* skips the "@@" and the space after it */
      continue;
    }
    if (nmt_strbuf_addc(out, s[i])) return nmt_fail(NMT_EIO, "out of memory");
  }
  return NMT_OK;
}

int nmt_ids_text(const nmt_vocab *v, const int *ids, int n, bool join, nmt_strbuf *out) {
  nmt_strbuf plain = {0};
  nmt_strbuf *b = join ? &plain : out;
  int st = NMT_OK;
  for (int i = 0; i < n && !st; i++) {
    const char *tok = nmt_vocab_token(v, ids[i]);
    if ((i && nmt_strbuf_addc(b, ' ')) || nmt_strbuf_add(b, tok, strlen(tok)))
      st = nmt_fail(NMT_EIO, "out of memory");
  }
  if (!st && join && plain.len) st = nmt_bpe_join(plain.s, plain.len, out);
  free(plain.s);
  return st;
}
