/* nmt-decode's options (the translation itself: decode/stream.h). */
#ifndef NMT_DECODE_TOOL_H
#define NMT_DECODE_TOOL_H
#include "base/cli.h"
#include <stdbool.h>

#define PROG "nmt-decode"

typedef struct {
  nmt_strlist models, weights; /* an ensemble: several models, their relative weights */
  const char *input, *output;
  long beam, shortlist, mini_batch, maxi_batch, max_length, cpu_threads;
  const char *device, *gemm_type, *unk_dict;
  double normalize, max_length_factor;
  bool n_best, no_postprocess, raw, alignment, replace_unk, zstd;
} decode_args;

#endif
