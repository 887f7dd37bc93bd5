/* The vocabulary of a SentencePiece model; see text/spm.h. */
#include "text/spm.h"
#include "text/vocab.h"
#include <string.h>

int nmt_spm_vocab(nmt_vocab **v, const nmt_spm *s, const char *name) {
  /* Through the text form, so that its checks (a duplicate, a space) hold here too. */
  static const char specials[] = "<pad>\n<unk>\n<s>\n</s>\n";
  nmt_strbuf text = {0};
  int st = nmt_strbuf_add(&text, specials, sizeof specials - 1);
  for (int id = 0; id < nmt_spm_size(s) && !st; id++) {
    bool special;
    const char *piece = nmt_spm_piece(s, id, NULL, &special);
    if (!special && (nmt_strbuf_add(&text, piece, strlen(piece)) || nmt_strbuf_addc(&text, '\n'))) st = NMT_EIO;
  }
  if (!st) st = nmt_vocab_parse(v, text.s, text.len, name);
  nmt_strbuf_free(&text);
  return st;
}
