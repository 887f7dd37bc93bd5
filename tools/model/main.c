/* nmt-model: look into model files and combine them ("nmt-model SUBCOMMAND ..."). */
#include "base/cli.h"
#include "model_tool.h"
#include "tool.h"
#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
  fprintf(f,
          "Usage: " PROG " average|info|plot [options] FILE...\n"
          "Model files (nmt-train's, or its checkpoints), and training runs' metrics.\n\n"
          "  average  the element-wise mean of the weights of models with the same options,\n"
          "           vocabularies and codes (checkpoint averaging)\n"
          "  info     a model's options, vocabularies and parameter count per tensor;\n"
          "           -t: first its training's record (version, commit, command line, options)\n"
          "  plot     draw nmt-train's --metrics CSV as an SVG learning curve\n\n"
          "'" PROG " SUBCOMMAND --help' tells more.\n\n"
          "Example:\n"
          "  " PROG " average m.bin.best-* -o avg.bin\n"
          "  " PROG " info avg.bin\n"
          "  " PROG " plot run.csv -o curve.svg\n");
}

int main(int argc, char **argv) {
  tool_init(PROG);
  static const tool_cmd cmds[] = {{"average", NULL, cmd_average}, {"info", NULL, cmd_info}, {"plot", NULL, cmd_plot}};
  return tool_subcommand(PROG, cmds, 3, NULL, usage, argc, argv);
}
