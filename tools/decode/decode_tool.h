/* nmt-decode's options (the translation itself: decode/stream.h). */
#ifndef NMT_TOOLS_DECODE_DECODE_TOOL_H
#define NMT_TOOLS_DECODE_DECODE_TOOL_H
#include "base/cli.h"
#include "decode/align.h"
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
} decode_args;

/* --shard's K/N (1 <= K <= N), or auto: the rank and size of mpirun
 * (OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE) or of srun (SLURM_PROCID/NTASKS).
 * Sets a->shard_k (0-based) and a->shard_n; NMT_OK or NMT_EUSAGE. */
int decode_shard_parse(decode_args *a);

#endif
