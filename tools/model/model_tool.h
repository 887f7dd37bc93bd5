/* nmt-model subcommands; each takes its own argv (argv[0] = subcommand) and
 * returns the exit status. */
#ifndef NMT_TOOLS_MODEL_MODEL_TOOL_H
#define NMT_TOOLS_MODEL_MODEL_TOOL_H

#define PROG "nmt-model"

int cmd_average(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
