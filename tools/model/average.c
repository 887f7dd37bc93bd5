/* nmt-model average A B ... -o M: checkpoint averaging (models/average.h). */
#include "base/cli.h"
#include "base/err.h"
#include "models/average.h"
#include "model_tool.h"
#include "tool.h"
#include <stdlib.h>

int cmd_average(int argc, char **argv) {
  const char *out = NULL;
  nmt_strlist pos;
  const nmt_opt opts[] = {{"output", 'o', NMT_OPT_STR, &out, "FILE", "the averaged model (required)"}, {0}};
  const nmt_cli cli = {PROG " average", "MODEL... -o FILE",
                       "The element-wise mean of the models' weights; the models must have the same options,\n"
                       "vocabularies, BPE codes or SentencePiece models and tokenizer settings. The output is\n"
                       "the first model with the mean weights (checkpoints give their trained weights, not\n"
                       "their training state).",
                       PROG " average m.bin.best-* -o avg.bin", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && !out) st = nmt_fail(NMT_EUSAGE, "-o/--output FILE is required");
  if (!st && !pos.n) st = nmt_fail(NMT_EUSAGE, "no models to average (see --help)");
  if (st) nmt_die(PROG, st);
  nmt_average avg = {0};
  for (int i = 0; i < pos.n && !st; i++) st = nmt_average_add(&avg, pos.v[i]);
  if (!st) nmt_average_finish(&avg);
  if (!st) st = nmt_model_save(&avg.out, out);
  nmt_average_free(&avg);
  free(pos.v);
  if (st) nmt_die(PROG, st);
  return 0;
}
