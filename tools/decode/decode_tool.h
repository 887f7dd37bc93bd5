/* nmt-decode's pieces: options (main.c) and the windowed stream (stream.c). */
#ifndef NMT_DECODE_TOOL_H
#define NMT_DECODE_TOOL_H
#include "models/model.h"
#include <stdbool.h>

#define PROG "nmt-decode"

enum { NMT_MAX_DECODE_THREADS = 8 };

typedef struct {
  const char *model, *input, *output;
  long beam, shortlist, mini_batch, maxi_batch, max_length, cpu_threads;
  const char *device, *gemm_type;
  double normalize, max_length_factor;
  bool n_best, no_postprocess, raw, alignment, zstd;
} decode_args;

/* Translate a.input into a.output: windows of maxi_batch × mini_batch lines,
 * sorted by length into batches, written back in input order. A window is cut
 * short when the input stalls, and the answers are flushed before waiting. */
int decode_stream(nmt_model *m, const decode_args *a);

#endif
