/* nmt-decode's options (the translation itself: decode/stream.h). */
#ifndef NMT_TOOLS_DECODE_DECODE_TOOL_H
#define NMT_TOOLS_DECODE_DECODE_TOOL_H
#include "base/cli.h"
#include "decode/align.h"
#include "decode/lexical.h"
#include "decode/sample.h"
#include <stdbool.h>

#define PROG "nmt-decode"

typedef struct {
  /* the options as given, or their defaults (options.def) */
#define OPTION NMT_CLI_FIELD
#include "options.def"
#undef OPTION
  int shard_k, shard_n; /* from shard: 0-based k of n; n 0: the whole input */
  nmt_align_kind align_kind; /* from alignment */
  float align_threshold;
  nmt_sampling sampling; /* from output_sampling and temperature (kind NONE: beam search) */
  nmt_shortlist_spec shortlist_spec; /* from shortlist */
} decode_args;

/* --output-sampling's values (full [T], topk K [T]: Marian's, T the temperature) and their
 * checks against --temperature and --seed, each given or not: sets a->sampling. NMT_OK or
 * NMT_EUSAGE. */
int decode_sampling_parse(decode_args *a, bool temperature_given, bool seed_given);

/* --shard's K/N (1 <= K <= N), or auto: the rank and size of mpirun
 * (OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE) or of srun (SLURM_PROCID/NTASKS).
 * Sets a->shard_k (0-based) and a->shard_n; NMT_OK or NMT_EUSAGE. */
int decode_shard_parse(decode_args *a);

#endif
