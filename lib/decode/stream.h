/* Translating a stream of lines: windows of maxi_batch × mini_batch lines,
 * sorted by length into mini-batches, the mini-batches shared out over decoding
 * threads (each with one BLAS thread; a window of one mini-batch gets them all
 * as BLAS threads), the answers written back in input order. A window is cut
 * short when the input stalls, and the answers are flushed before waiting. */
#ifndef NMT_DECODE_STREAM_H
#define NMT_DECODE_STREAM_H
#include <stdatomic.h>
#include "decode/align.h"
#include "decode/prefix.h"
#include "decode/search.h"
#include "decode/terms.h"
#include "decode/text.h"
#include "decode/unk.h"
#include "io/io.h"

enum { NMT_MAX_DECODE_THREADS = 8 };

typedef struct {
  nmt_search_opts search;
  int mini_batch, maxi_batch; /* sentences per mini-batch; mini-batches per window */
  int max_length;             /* longer sources are cut to this many subwords (with a warning) */
  int threads;                /* decoding threads, 1..NMT_MAX_DECODE_THREADS */
  bool n_best;                /* every hypothesis, in Marian's format: "N ||| text ||| F0= score ||| score" */
  nmt_align_kind alignment;   /* " ||| ..." after each translation (decode/align.h), or NONE */
  float align_threshold;      /* NMT_ALIGN_THRESHOLD's */
  bool replace_unk;           /* each <unk> out: its most attended source word (decode/unk.h) */
  const nmt_unk_dict *unk_dict; /* with replace_unk: the words' translations (NULL: the words) */
  const char *attention_svg;  /* a folder: N.svg, the best translation's attention of input line N
                                 (0-based; decode/svg.h) for every line translated, or NULL */
  /* Target prefixes (decode/prefix.h): line N of this reader is input line N's (an empty
   * line: none); NULL: none. prefix_to_end: the input is a whole file, so the prefixes must
   * end with it (a shard's lines are found by their numbers). */
  nmt_reader *prefix;
  bool prefix_to_end;
  /* Terminology constraints (decode/terms.h): line N of this reader is input line N's (an
   * empty line: none); NULL: none. They end with the input when prefix_to_end. */
  nmt_reader *constraints;
  uint64_t seed; /* with search.sampling: a line's samples are drawn from (seed, its number, 0-based) */
  /* A line that cannot be translated as it is (invalid UTF-8: an empty line is
   * written; too long: cut): one message naming file and line. May be NULL. */
  void (*warn)(void *ctx, const char *msg);
  void *warn_ctx;
} nmt_decode_opts;

/* A thread's share of sorted sentences: in[i] (nmt_sent: src_n > 0 ids) for i in
 * [0, n), cut into mini-batches of mini_batch, decoded on d the longest first
 * (the decoder's memory reaches its size on the first). The threads of a
 * window share `taken` (0 at the start): each takes the next mini-batch when
 * it is free, so none waits on another's long tail; NULL: this thread decodes
 * them all. A mini-batch's output does not depend on the thread. out[i] each
 * sentence's hypotheses. After each mini-batch [at, at + nb), then(ctx, d, at,
 * nb) when not NULL (the attention passes). NMT_OK or the first error (which
 * stops the other threads at their next mini-batch). nmt_decode_stream and
 * nmt-serve's lanes decode through it. */
typedef int (*nmt_batch_done)(void *ctx, nmt_dec *d, int at, int nb);
int nmt_decode_share(nmt_dec *d, const nmt_models *e, const nmt_search_opts *o, const nmt_sent *in, int n,
                     int mini_batch, atomic_int *taken, nmt_batch_done then, void *ctx, nmt_nbest *out);

/* Translate r's lines into w with the models e (one, or an ensemble): text is
 * the source and output text handling, first the first model (its
 * vocabularies give the source ids and read the output's). NMT_OK or the first
 * error; w is left to the caller to commit. */
int nmt_decode_stream(const nmt_models *e, const nmt_model *first, nmt_text *text, const nmt_decode_opts *o,
                      nmt_reader *r, nmt_writer *w);

#endif
