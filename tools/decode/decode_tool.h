/* nmt-decode's options (the translation itself: decode/stream.h). */
#ifndef NMT_TOOLS_DECODE_DECODE_TOOL_H
#define NMT_TOOLS_DECODE_DECODE_TOOL_H
#include "base/cli.h"
#include "decode/align.h"
#include <stdbool.h>

#define PROG "nmt-decode"

typedef struct {
  nmt_strlist models, weights; /* an ensemble: several models, their relative weights */
  const char *input, *output;
  long beam, shortlist, mini_batch, maxi_batch, max_length, cpu_threads;
  const char *device, *gemm_type, *unk_dict, *alignment, *attention_svg;
  const char *shard;   /* --shard K/N or auto */
  int shard_k, shard_n; /* from it: 0-based k of n; n 0: the whole input */
  double normalize, max_length_factor;
  bool n_best, no_postprocess, raw, replace_unk, verbose, zstd;
  nmt_align_kind align_kind; /* from alignment */
  float align_threshold;
} decode_args;

/* --shard's K/N (1 <= K <= N), or auto: the rank and size of mpirun
 * (OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE) or of srun (SLURM_PROCID/NTASKS).
 * Sets a->shard_k (0-based) and a->shard_n; NMT_OK or NMT_EUSAGE. */
int decode_shard_parse(decode_args *a);

#endif
