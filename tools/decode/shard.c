/* nmt-decode --shard: which part of the input this process translates. */
#include "base/err.h"
#include "decode_tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The launcher's rank and size, as environment variable names. */
static const char *const launchers[][2] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"SLURM_PROCID", "SLURM_NTASKS"}};

int decode_shard_parse(decode_args *a) {
  long k = 0, n = 0;
  char tail;
  if (!strcmp(a->shard, "auto")) {
    size_t i = 0;
    while (i < sizeof launchers / sizeof *launchers && !getenv(launchers[i][0])) i++;
    if (i == sizeof launchers / sizeof *launchers)
      return nmt_fail(NMT_EUSAGE, "--shard auto: no launcher's rank in the environment (OMPI_COMM_WORLD_RANK, "
                      "PMI_RANK, SLURM_PROCID): run under mpirun or srun, or give --shard K/N");
    const char *rank = getenv(launchers[i][0]), *size = getenv(launchers[i][1]);
    if (!size || sscanf(rank, "%ld%c", &k, &tail) != 1 || sscanf(size, "%ld%c", &n, &tail) != 1 || k < 0 || k >= n)
      return nmt_fail(NMT_EUSAGE, "--shard auto: %s=%s and %s=%s are not a rank of a size", launchers[i][0], rank,
                      launchers[i][1], size ? size : "(unset)");
    a->shard_k = (int)k, a->shard_n = (int)n;
    return NMT_OK;
  }
  if (sscanf(a->shard, "%ld/%ld%c", &k, &n, &tail) != 2 || n < 1 || n > 1000000 || k < 1 || k > n)
    return nmt_fail(NMT_EUSAGE, "--shard '%s': expected K/N with 1 <= K <= N (N up to 1000000), or auto", a->shard);
  a->shard_k = (int)k - 1, a->shard_n = (int)n;
  return NMT_OK;
}
