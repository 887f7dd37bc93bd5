/* SentencePiece through Debian's libsentencepiece (C++; text/spm.cc is the
 * shim): a model loaded from the bytes of a .model file, text to pieces or
 * ids and back, the model's pieces (and an nmt vocabulary of them:
 * text/spm_vocab.c), and training as spm_train does. Only the programs that
 * call these link the library (the Makefile links it as needed). */
#ifndef NMT_TEXT_SPM_H
#define NMT_TEXT_SPM_H
#include "text/segment.h"
#include "text/vocab.h"
#include <stdbool.h>
#include <stddef.h>

typedef struct nmt_spm nmt_spm;

/* The model serialized in bytes[0..len) (spm_train's PREFIX.model); `name`
 * in messages. Checked first (text/spm_check.h): the library never sees a
 * damaged one. NMT_EINPUT "NAME: not a SentencePiece model (...)". */
int nmt_spm_load(nmt_spm **s, const void *bytes, size_t len, const char *name);
void nmt_spm_free(nmt_spm *s);
/* The model as a segmenter: split gives pieces, join decodes them. It is s
 * itself: its free frees s. */
nmt_segmenter *nmt_spm_segmenter(nmt_spm *s);

/* Append the pieces of line[0..n) (valid UTF-8), or with ids their ids in
 * decimal, space separated, as spm_encode writes them. */
int nmt_spm_encode(const nmt_spm *s, const char *line, size_t n, bool ids, nmt_strbuf *out);
/* Append the text of space-separated pieces (or ids) toks[0..n), as
 * spm_decode. An id that is not a number of the model's is NMT_EINPUT. */
int nmt_spm_decode(const nmt_spm *s, const char *toks, size_t n, bool ids, nmt_strbuf *out);

int nmt_spm_size(const nmt_spm *s);
/* Piece id (0 <= id < size): its text, its score, and whether it is one of
 * the model's specials (unknown, control: <unk> <s> </s>), which a vocabulary
 * made of the pieces has of its own. */
const char *nmt_spm_piece(const nmt_spm *s, int id, float *score, bool *special);

/* An nmt vocabulary of the model's pieces: the four specials (text/vocab.h),
 * then every other piece in id order; `name` in messages. */
int nmt_spm_vocab(nmt_vocab **v, const nmt_spm *s, const char *name);

typedef struct {
  long vocab_size;
  const char *model_type;     /* unigram, bpe, char or word */
  double character_coverage;  /* 0.9995 is spm_train's default */
  long threads;
  /* The training sentences: 1 with line[0..n), 0 at the end, -1 on error
   * (message set). */
  int (*next)(void *ctx, const char **line, size_t *n);
  void *ctx;
} nmt_spm_train_opts;

/* Train a model on o's sentences; *bytes (malloc'd, *len long) is its
 * serialized form. NMT_EUSAGE (a bad option) or NMT_EINPUT with
 * SentencePiece's message, or the sentence reader's status. */
int nmt_spm_train(const nmt_spm_train_opts *o, char **bytes, size_t *len);

#endif
