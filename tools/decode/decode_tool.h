/* nmt-decode's options (the translation itself: decode/stream.h). */
#ifndef NMT_DECODE_TOOL_H
#define NMT_DECODE_TOOL_H
#include "base/cli.h"
#include "decode/align.h"
#include <stdbool.h>

#define PROG "nmt-decode"

typedef struct {
  nmt_strlist models, weights; /* an ensemble: several models, their relative weights */
  const char *input, *output;
  long beam, shortlist, mini_batch, maxi_batch, max_length, cpu_threads;
  const char *device, *gemm_type, *unk_dict, *alignment, *attention_svg;
  double normalize, max_length_factor;
  bool n_best, no_postprocess, raw, replace_unk, zstd;
  nmt_align_kind align_kind; /* from alignment */
  float align_threshold;
} decode_args;

#endif
