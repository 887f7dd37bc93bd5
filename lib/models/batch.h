/* Training data: a parallel corpus of BPE'd text read into token ids (length
 * filter), an epoch's plan of batches (seeded shuffle, length bucketing,
 * sentence and token limits) and one batch materialised time-major with
 * padding, as nn_luong_forward takes it. */
#ifndef NMT_BATCH_H
#define NMT_BATCH_H
#include "models/net.h"
#include "text/vocab.h"
#include <stdint.h>

typedef struct {
  int *src, *tgt;           /* ids of all kept pairs, one after the other */
  long *src_off, *tgt_off;  /* (n+1) offsets of each pair's ids */
  long n;                   /* pairs kept */
  long dropped;             /* pairs dropped: a side longer than max_length tokens */
} nmt_corpus;

/* Read two line-aligned files (zstd allowed). max_length 0: no limit.
 * NMT_EINPUT: different line counts ("A has N lines but B has M"), invalid
 * UTF-8, or no pair left; NMT_EIO: unreadable. */
int nmt_corpus_read(nmt_corpus *c, const char *src_path, const char *tgt_path,
                    const nmt_vocab *vs, const nmt_vocab *vt, long max_length);
void nmt_corpus_free(nmt_corpus *c);

typedef struct {
  int max_sents;   /* sentences per batch */
  long max_words;  /* padded target tokens (B * T) per batch; 0: no limit */
  int window;      /* pairs sorted by length together (bucketing); <= 1: keep order */
  bool shuffle;    /* shuffle pairs before and batches after bucketing */
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

/* A batch: source x1..xm </s>, decoder input <s> y1..yn, target y1..yn </s>,
 * time-major, padded with NMT_PAD to the batch's longest. */
typedef struct {
  int B, S, T;
  int *src, *src_len, *tgt_in, *tgt_out;
  size_t cap_src, cap_tgt, cap_b;
  long words; /* target tokens, </s> included */
} nmt_batch;

int nmt_batch_fill(nmt_batch *b, const nmt_corpus *c, const long *pairs, int n);
nn_batch nmt_batch_view(const nmt_batch *b);
void nmt_batch_free(nmt_batch *b);

/* Fisher–Yates shuffle of a[0..n) with Philox (seed, stream). */
void nmt_shuffle(long *a, long n, uint64_t seed, uint64_t stream);

#endif
