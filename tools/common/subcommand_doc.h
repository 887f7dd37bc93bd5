/* The man page and bash completion of a tool with subcommands (subcommand_doc.c), for
 * tool_subcommand's `--help=man` and `--help=bash`. */
#ifndef NMT_TOOLS_COMMON_SUBCOMMAND_DOC_H
#define NMT_TOOLS_COMMON_SUBCOMMAND_DOC_H
#include "tool.h"

/* FORMAT ("man", "bash") on stdout from usage's text and each of cmds[0..n)'s table;
 * dflt as for tool_subcommand. NMT_OK, NMT_EUSAGE (an unknown format) or NMT_EIO. */
int tool_subcommand_doc(const char *prog, const tool_cmd *cmds, int n, int (*dflt)(int, char **),
                        void (*usage)(FILE *), const char *format);

#endif
