/* Training data: a parallel corpus of BPE'd text read into token ids (length
 * filter), an epoch's plan of batches (seeded shuffle, length bucketing,
 * sentence and token limits) and the batch every family's forward takes:
 * time-major ids with padding, lengths, and the masks, built by one rule
 * (nmt_seq_masks) here and at the decoder's start. */
#ifndef NMT_MODELS_BATCH_H
#define NMT_MODELS_BATCH_H
#include "nn/tape.h"
#include "text/segment.h"
#include "text/vocab.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct {
  int *src, *tgt;           /* ids of all kept pairs, one after the other */
  long *src_off, *tgt_off;  /* (n+1) offsets of each pair's ids */
  long n;                   /* pairs kept */
  long dropped;             /* pairs dropped: a side longer than max_length tokens */
} nmt_corpus;

/* Read two line-aligned files (zstd allowed). seg: NULL, or the sides'
 * segmenters for raw text (SentencePiece; text/tstream_ids.h). max_length 0:
 * no limit. NMT_EINPUT: different line counts ("A has N lines but B has M"),
 * invalid UTF-8, or no pair left; NMT_EIO: unreadable. */
int nmt_corpus_read(nmt_corpus *c, const char *src_path, const char *tgt_path,
                    const nmt_vocab *vs, const nmt_vocab *vt, nmt_segmenter *const seg[2],
                    long max_length);
void nmt_corpus_free(nmt_corpus *c);

/* What a window is sorted by (Marian's --maxi-batch-sort): the source's length, then
 * the target's (the default, as before the option); the target's, then the source's
 * (Marian's default: about 1% faster here, the decoder's steps being most of a step; 10
 * epochs of Multi30k gave the same validation perplexity, 5.05, and BLEU 50.3 against
 * 50.5, one run each: not enough to change the default); or not at all. */
typedef enum { NMT_SORT_SRC, NMT_SORT_TRG, NMT_SORT_NONE } nmt_batch_sort;

/* "trg", "src", "none"; and back: NMT_OK, or NMT_EUSAGE naming flag and the choices. */
const char *nmt_batch_sort_name(nmt_batch_sort s);
int nmt_batch_sort_parse(const char *flag, const char *name, nmt_batch_sort *s);

typedef struct {
  int max_sents;   /* sentences per batch */
  long max_words;  /* padded target tokens (B * T) per batch; 0: no limit */
  int window;      /* pairs sorted by length together (bucketing); <= 1: keep order */
  bool shuffle;    /* shuffle pairs before and batches after bucketing */
  nmt_batch_sort sort; /* the window's order */
} nmt_batch_opts;

/* One epoch: pair indices batch after batch. */
typedef struct {
  long *pairs;   /* (corpus n) */
  long *start;   /* (nbatches+1) batch b is pairs[start[b] .. start[b+1]) */
  long nbatches;
} nmt_plan;

/* Plan epoch `epoch` of c; the same (seed, epoch) gives the same plan. */
int nmt_plan_epoch(nmt_plan *p, const nmt_corpus *c, const nmt_batch_opts *o, uint64_t seed,
                   long epoch);
void nmt_plan_free(nmt_plan *p);

/* The masks of sequences of lengths len (B) over T steps, one rule: 1 where
 * step t < len[b] (a real token), 0 on padding. steps (T*B) time-major, rows
 * (B,T) sentence-major (attention); either may be NULL. */
void nmt_seq_masks(const int *len, int T, int B, float *steps, float *rows);

/* A batch, time-major (token (t, b) at index t*B+b): source x1..xm </s>, decoder
 * input <s> y1..yn, target y1..yn </s>, padded with NMT_PAD to the longest.
 * nmt_batch_fill makes one from the corpus in memory of its own; a batch of
 * given ids gets its lengths and masks from nmt_batch_masks. */
typedef struct {
  int B, S, T;
  const int *src;     /* (S*B) source ids, </s> then pad after each sentence */
  const int *src_len; /* (B) source lengths with </s>, 1..S */
  const int *tgt_in;  /* (T*B) decoder inputs: <s> y1 .. y_{n-1}, pad after */
  const int *tgt_out; /* (T*B) targets: y1 .. </s>, pad after */
  const int *tgt_len; /* (B) target lengths with </s> */
  const float *src_mask, *src_rows; /* (S*B), (B,S): nmt_seq_masks of src_len */
  const float *tgt_mask, *tgt_rows; /* (T*B), (B,T): of tgt_len */
  long words;         /* target tokens, </s> included */
  struct {            /* the memory of a batch that owns its data */
    int *ids;
    float *masks;
    size_t cap_ids, cap_masks;
  } own;
} nmt_batch;

int nmt_batch_fill(nmt_batch *b, const nmt_corpus *c, const long *pairs, int n);
/* Target lengths (the targets of each sentence up to the first pad), unless
 * given, and the masks of a batch whose ids are set, in its own memory.
 * NMT_OK or NMT_EIO. */
int nmt_batch_masks(nmt_batch *b);
/* The same into the caller's memory: tgt_len (B), masks 2·(S+T)·B floats. */
void nmt_batch_set_masks(nmt_batch *b, int *tgt_len, float *masks);
void nmt_batch_free(nmt_batch *b);
/* b's ids, lengths and masks copied once into g's backend memory, what the
 * ops are given (slices too: dev->tgt_mask + t*B); b, in host memory, keeps
 * serving the host's logic (row lists, lengths). On a backend whose memory is
 * the host's, dev is b's arrays themselves. False (g failed) on error. */
bool nmt_batch_upload(nn_graph *g, const nmt_batch *b, nmt_batch *dev);

/* Fisher–Yates shuffle of a[0..n) with Philox (seed, stream). */
void nmt_shuffle(long *a, long n, uint64_t seed, uint64_t stream);

#endif
