/* A segmenter: raw text to the space-separated tokens a vocabulary holds, and
 * back. A table of functions, so that the readers of text (text/tstream_ids,
 * models/batch, train/valid, decode/text) can use one without linking its
 * library: SentencePiece (text/spm.h) is C++ and linked only into the tools
 * that open a model of it. */
#ifndef NMT_TEXT_SEGMENT_H
#define NMT_TEXT_SEGMENT_H
#include "base/strbuf.h"

typedef struct nmt_segmenter nmt_segmenter;
struct nmt_segmenter {
  /* Append the tokens of line[0..n) (valid UTF-8, no '\n'), space separated. */
  int (*split)(const nmt_segmenter *s, const char *line, size_t n, nmt_strbuf *out);
  /* Append the text of the space-separated tokens toks[0..n). */
  int (*join)(const nmt_segmenter *s, const char *toks, size_t n, nmt_strbuf *out);
  void (*free)(nmt_segmenter *s);
};

#endif
