/* The dispatch of the tools that have subcommands; see tool.h. */
#include "base/cli.h"
#include "subcommand_doc.h"
#include "tool.h"
#include <string.h>

int tool_subcommand(const char *prog, const tool_cmd *cmds, int n, int (*dflt)(int, char **),
                    void (*usage)(FILE *), int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 1;
  }
  const char *cmd = argv[1];
  for (int i = 0; i < n; i++)
    if (!strcmp(cmd, cmds[i].name) || (cmds[i].alias && !strcmp(cmd, cmds[i].alias)))
      return cmds[i].run(argc - 1, argv + 1);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strncmp(cmd, "--help=", 7)) { /* the man page, the bash completion */
    int st = tool_subcommand_doc(prog, cmds, n, dflt, usage, cmd + 7);
    if (st) nmt_die(prog, st);
    return 0;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("%s %s\n", prog, NMT_VERSION);
    return 0;
  }
  if (dflt && cmd[0] == '-') return dflt(argc, argv);
  fprintf(stderr, "%s: unknown subcommand '%s' (see --help)\n", prog, cmd);
  return 1;
}
