/* The text on both sides of a model at decode time. Source: the line as it
 * is (BPE'd tokens or SentencePiece pieces), or with --raw normalised,
 * tokenized and BPE'd with the model's tokenizer settings and embedded codes,
 * or split by its SentencePiece model. Output: ids back to tokens, by default
 * BPE joined (subword-nmt's "@@ " marks removed) and, when the model has
 * tokenizer settings, detokenized as its target language; or decoded by its
 * target's SentencePiece model. */
#ifndef NMT_DECODE_TEXT_H
#define NMT_DECODE_TEXT_H
#include "models/model.h"
#include "base/strbuf.h"
#include "text/vocab.h"
#include <stdbool.h>

/* Append the text of ids[0..n) to out; with join, BPE pieces are merged. */
int nmt_ids_text(const nmt_vocab *v, const int *ids, int n, bool join, nmt_strbuf *out);
/* Append s[0..n) with every "@@ " and a final "@@" removed. */
int nmt_bpe_join(const char *s, size_t n, nmt_strbuf *out);
/* Append the text of ids[0..n): their tokens joined by seg (SentencePiece). */
int nmt_ids_desegment(const nmt_vocab *v, const nmt_segmenter *seg, const int *ids, int n, nmt_strbuf *out);

typedef struct nmt_text nmt_text;

/* For model m (named `path` in messages; it must outlive t). raw needs the
 * model's codes and settings, or its SentencePiece models opened
 * (nmt_model_open_spm); NMT_EUSAGE names what is missing. postprocess joins
 * BPE and detokenizes when the model has settings, or decodes pieces. */
int nmt_text_new(nmt_text **t, const nmt_model *m, const char *path, bool raw, bool postprocess);
void nmt_text_free(nmt_text *t);
/* The byte budget of the BPE word cache behind raw sources (nmt_bpe_set_cache; none
 * without BPE). */
void nmt_text_set_cache(nmt_text *t, size_t bytes);
/* The token text of one source line (valid UTF-8, no '\n'): the line itself,
 * or its processed form with raw; *out stays valid until the next call. */
int nmt_text_source(nmt_text *t, const char *line, size_t n, const char **out, size_t *out_n);
/* The target tokens of text in the output's own form (a target prefix), segmented as the
 * model segments its target: as it is without postprocessing; split by the target's
 * SentencePiece model; else, when the model records its tokenizer, normalised and
 * tokenized as its target language; then BPE'd with its codes when it has them. *out
 * stays valid until the next call. */
int nmt_text_target_tokens(nmt_text *t, const char *line, size_t n, const char **out, size_t *out_n);
/* Append the output text of target ids[0..n) to out. */
int nmt_text_target(nmt_text *t, const int *ids, int n, nmt_strbuf *out);
/* The same from the target tokens toks[0..n) (space separated, unjoined), e.g.
 * with <unk> replaced (decode/unk.h). */
int nmt_text_output(nmt_text *t, const char *toks, size_t n, nmt_strbuf *out);

#endif
