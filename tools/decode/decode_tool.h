/* nmt-decode's options (the translation itself: decode/stream.h). */
#ifndef NMT_DECODE_TOOL_H
#define NMT_DECODE_TOOL_H
#include "models/model.h"
#include <stdbool.h>

#define PROG "nmt-decode"

typedef struct {
  const char *model, *input, *output;
  long beam, shortlist, mini_batch, maxi_batch, max_length, cpu_threads;
  const char *device, *gemm_type;
  double normalize, max_length_factor;
  bool n_best, no_postprocess, raw, alignment, zstd;
} decode_args;

#endif
