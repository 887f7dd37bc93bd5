/* nmt-bpe subcommands; each takes its own argv (argv[0] = subcommand) and
 * returns the exit status. */
#ifndef NMT_TOOLS_BPE_BPE_TOOL_H
#define NMT_TOOLS_BPE_BPE_TOOL_H

#define PROG "nmt-bpe"

int cmd_learn(int argc, char **argv);
int cmd_learn_joint(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_vocab(int argc, char **argv);

#endif
