/* nmt-model plot METRICS.csv -o curve.svg: the learning curve of a run from its
 * --metrics file (train/curve.h), as nmt-train --plot draws it. */
#include "base/cli.h"
#include "base/err.h"
#include "model_tool.h"
#include "tool.h"
#include "train/curve_svg.h"
#include <stdio.h>
#include <stdlib.h>

int cmd_plot(int argc, char **argv) {
  const char *out = "-", *title = NULL;
  nmt_strlist pos;
  const nmt_opt opts[] = {{"output", 'o', NMT_OPT_STR, &out, "FILE.svg", "the picture (stdout)"},
                          {"title", 0, NMT_OPT_STR, &title, "TEXT", "its title (the CSV's name)"},
                          {0}};
  const nmt_cli cli = {PROG " plot", "METRICS.csv [-o FILE.svg]",
                       "Draw nmt-train's --metrics CSV as an SVG learning curve: the training loss and the\n"
                       "validation loss (ln ppl) above, validation BLEU and chrF below, against the steps,\n"
                       "the epochs' ends dashed. Exit 2 for a CSV that is not nmt-train's, naming its line.",
                       PROG " plot run.csv -o curve.svg", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && pos.n != 1) st = nmt_fail(NMT_EUSAGE, "plot takes one metrics file (got %d)", pos.n);
  if (!st) st = nmt_curve_plot(pos.v[0], out, title ? title : pos.v[0]);
  free(pos.v);
  if (st) nmt_die(PROG, st);
  return 0;
}
