/* nmt-spm subcommands; each takes its own argv (argv[0] = subcommand) and
 * returns the exit status. */
#ifndef NMT_TOOLS_SPM_SPM_TOOL_H
#define NMT_TOOLS_SPM_SPM_TOOL_H
#include "base/cli.h"
#include "text/spm.h"

#define PROG "nmt-spm"

int cmd_train(int argc, char **argv);
/* encode, or with decode its inverse */
int cmd_codec(int argc, char **argv, bool decode);

/* Append the positional arguments to a list option's values. */
int spm_tool_inputs(nmt_strlist *inputs, const nmt_strlist *pos);

#endif
